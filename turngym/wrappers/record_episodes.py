"""``RecordEpisodes``: write every finished episode as one JSON line; ``load_transcripts``.

A line holds ``env_id``, ``seed``, ``options``, the reset ``observation`` and ``info``,
and ``steps``: for each step its ``action``, ``observation``, ``reward``,
``terminated``, ``truncated`` and ``info``; plus ``return`` and ``length``. Values are
made JSON-safe: NumPy arrays become lists, NumPy scalars numbers, tuples and sets
lists, non-string dict keys strings, anything else its ``repr``. Non-finite floats are
written as Python's ``json`` writes them (``NaN``, ``Infinity``), which it reads back.

A line is written with one ``write`` and flushed when its episode ends, so a crash
mid-episode loses only that episode; earlier lines stay intact. An episode abandoned by
``reset`` or ``close`` before it ended is not written. Several processes should record
to separate files.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import RecordConstructorArgs

__all__ = ["RecordEpisodes", "iter_transcripts", "json_safe", "load_transcripts"]


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON types (see the module docstring for the rules).

    >>> json_safe({"a": np.arange(3), 1: (np.float32(0.5), {"x"})})
    {'a': [0, 1, 2], '1': [0.5, ['x']]}
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [json_safe(v) for v in value]
        try:
            return sorted(items)
        except TypeError:  # mixed types: keep any order
            return items
    return repr(value)


class RecordEpisodes(gym.Wrapper, RecordConstructorArgs):
    """Append one JSON line per finished episode to ``path``.

    Args:
        env: the env to record.
        path: the JSONL file (parent folders are created).
        mode: ``"a"`` appends to an existing file, ``"w"`` starts it afresh.
        fsync: also ``os.fsync`` each line (survives a power cut, costs a disk sync).

    Example:
        >>> import tempfile, gymnasium as gym, turngym
        >>> path = tempfile.mkdtemp() + "/episodes.jsonl"
        >>> env = RecordEpisodes(gym.make("turngym/Bandit-v0"), path)
        >>> _ = env.reset(seed=0)
        >>> _ = env.step("Bread")
        >>> env.close()
        >>> [(t["env_id"], t["seed"], t["steps"][0]["action"]) for t in load_transcripts(path)]
        [('turngym/Bandit-v0', 0, 'Bread')]

    """

    def __init__(
        self, env: gym.Env, path: str | os.PathLike[str], mode: str = "a", fsync: bool = False
    ) -> None:
        RecordConstructorArgs.__init__(self, path=str(path), mode=mode, fsync=fsync)
        gym.Wrapper.__init__(self, env)
        if mode not in ("a", "w"):
            raise ValueError(f"mode must be 'a' (append) or 'w' (overwrite), got {mode!r}")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fsync = bool(fsync)
        self._file: IO[str] | None = self.path.open(mode, encoding="utf-8")
        self._episode: dict[str, Any] | None = None
        self.episodes_written = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env and start a new transcript (an unfinished one is dropped)."""
        obs, info = self.env.reset(seed=seed, options=options)
        spec = self.env.spec
        self._episode = {
            "env_id": spec.id if spec is not None else None,
            "seed": seed,
            "options": json_safe(options),
            "observation": json_safe(obs),
            "info": json_safe(info),
            "steps": [],
        }
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env and record the step; write the line when the episode ends."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._episode is not None:
            self._episode["steps"].append(
                {
                    "action": json_safe(action),
                    "observation": json_safe(obs),
                    "reward": float(reward),
                    "terminated": bool(terminated),
                    "truncated": bool(truncated),
                    "info": json_safe(info),
                }
            )
            if terminated or truncated:
                self._write(self._episode)
                self._episode = None
        return obs, float(reward), terminated, truncated, info

    def _write(self, episode: dict[str, Any]) -> None:
        if self._file is None:
            raise ValueError(f"RecordEpisodes({self.path}) was closed; make a new one to record")
        steps = episode["steps"]
        total = math.fsum(s["reward"] for s in steps)
        # ASCII escapes keep lone surrogates (fuzzed actions) exact and encodable.
        line = json.dumps({**episode, "return": total, "length": len(steps)})
        # One write of the whole line, then flush: a crash leaves whole lines behind.
        self._file.write(line + "\n")
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())
        self.episodes_written += 1

    def close(self) -> None:
        """Close the file (an unfinished episode is not written), then the env."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._episode = None
        super().close()


def iter_transcripts(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Yield the episodes of a ``RecordEpisodes`` file one at a time (see ``load_transcripts``)."""
    with Path(path).open(encoding="utf-8") as f:
        lines = f.read().split("\n")
    # The text after the last newline is a line cut short by a crash (or nothing).
    *whole, tail = lines
    for number, line in enumerate(whole, 1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number} is not a JSON line: {error}") from error
    if tail.strip():
        try:
            last = json.loads(tail)
        except json.JSONDecodeError:
            return  # the torn last line of a crashed writer
        yield last


def load_transcripts(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All episodes recorded in ``path``, as dicts (one per line).

    A last line cut short by a crash is skipped; a bad line anywhere else raises
    ``ValueError`` naming it.
    """
    return list(iter_transcripts(path))

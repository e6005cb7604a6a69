"""``RecordEpisodes``: write every finished episode as one JSON line; ``load_transcripts``.

A line holds ``env_id``, ``seed``, ``options``, the reset ``observation`` and ``info``,
and ``steps``: for each step its ``action``, ``observation``, ``reward``,
``terminated``, ``truncated`` and ``info``; plus ``return`` and ``length``. Values are
made JSON-safe: NumPy arrays become lists, NumPy scalars numbers, tuples and sets
lists, non-string dict keys strings, anything else its ``repr``. Non-finite floats are
written as Python's ``json`` writes them (``NaN``, ``Infinity``), which it reads back.

Pictures (uint8 arrays shaped (H, W) or (H, W, C), C in 1..4, of at least 256 pixels:
the screenshots of web and desktop envs; ``turngym.images.is_image``) are not lists of
numbers but PNG files ``images/<sha256>.png`` in the JSONL file's folder, each distinct
picture stored once and written atomically; the JSON holds
``{"__turngym__": "image", "path": "images/<sha256>.png", "shape": [H, W, C]}``.
``load_transcripts`` gives them back as arrays (``images=False``: the references as
they are), reading only regular files inside the folder (no ``..``, absolute paths or
symlinks) of at most ``max_image_pixels`` pixels. Writing or reading pictures needs
Pillow (the ``data`` extra).

A line is written with one ``write`` and flushed when its episode ends, so a crash
mid-episode loses only that episode; earlier lines stay intact. An episode abandoned by
``reset`` or ``close`` before it ended is not written (its pictures, stored as they
came, may stay in ``images/``). Several processes should record to separate files;
they may share a folder and its ``images/``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import RecordConstructorArgs

from turngym.images import ImageError, is_image, read_inside, read_png, write_png_file

__all__ = [
    "MAX_IMAGE_PIXELS",
    "RecordEpisodes",
    "iter_transcripts",
    "json_safe",
    "load_transcripts",
]

MARKER = "__turngym__"
"""The key of the JSON object that stands for a picture stored as a file."""
MAX_IMAGE_PIXELS = 1 << 26
"""Default bound on one loaded picture's width x height (a 8192 x 8192 screen)."""


def json_safe(value: Any, image: Callable[[np.ndarray], Any] | None = None) -> Any:
    """``value`` as plain JSON types (see the module docstring for the rules).

    Args:
        value: what to convert.
        image: what a picture (``turngym.images.is_image``) becomes; None: a list too.

    >>> json_safe({"a": np.arange(3), 1: (np.float32(0.5), {"x"})})
    {'a': [0, 1, 2], '1': [0.5, ['x']]}

    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, np.ndarray):
        if image is not None and is_image(value):
            return image(value)
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): json_safe(v, image) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, image) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [json_safe(v, image) for v in value]
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
            "options": self._safe(options),
            "observation": self._safe(obs),
            "info": self._safe(info),
            "steps": [],
        }
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env and record the step; write the line when the episode ends."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._episode is not None:
            self._episode["steps"].append(
                {
                    "action": self._safe(action),
                    "observation": self._safe(obs),
                    "reward": float(reward),
                    "terminated": bool(terminated),
                    "truncated": bool(truncated),
                    "info": self._safe(info),
                }
            )
            if terminated or truncated:
                self._write(self._episode)
                self._episode = None
        return obs, float(reward), terminated, truncated, info

    def _safe(self, value: Any) -> Any:
        """``value`` JSON-safe, its pictures stored as PNG files beside the JSONL."""
        return json_safe(value, self._store_image)

    def _store_image(self, image: np.ndarray) -> dict[str, Any]:
        path = write_png_file(self.path.parent, image)
        return {MARKER: "image", "path": path, "shape": list(image.shape)}

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


def _load_images(value: Any, root: Path, max_pixels: int, cache: dict[str, np.ndarray]) -> Any:
    """``value`` with each picture reference replaced by the picture it names."""
    if isinstance(value, list):
        return [_load_images(v, root, max_pixels, cache) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get(MARKER) != "image":
        return {k: _load_images(v, root, max_pixels, cache) for k, v in value.items()}
    name, shape = value.get("path"), value.get("shape")
    if (
        set(value) != {MARKER, "path", "shape"}
        or not isinstance(name, str)
        or not isinstance(shape, list)
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in shape)
    ):
        shown = json.dumps(value)[:200]
        raise ImageError(f"a picture is {{{MARKER!r}, 'path', 'shape': [H, W, C]}}, got {shown}")
    if name not in cache:
        # A PNG never needs much more than its raw pixels (RGBA) plus its chunks.
        data = read_inside(root, name, 4 * max_pixels + (1 << 20), limit="4 x max_image_pixels")
        cache[name] = read_png(data, max_pixels)
    picture = cache[name]
    # (H, W, 1) is stored as a grey (H, W) PNG; any other shape must be the PNG's
    if tuple(shape) not in (picture.shape, (*picture.shape, 1)):
        raise ImageError(f"picture {name!r} is {picture.shape}, not the shape {shape} it names")
    return picture.reshape(shape).copy()


def iter_transcripts(
    path: str | os.PathLike[str], images: bool = True, max_image_pixels: int = MAX_IMAGE_PIXELS
) -> Iterator[dict[str, Any]]:
    """Yield the episodes of a ``RecordEpisodes`` file one at a time (see ``load_transcripts``)."""
    root = Path(path).parent

    def with_images(data: Any, number: int) -> Any:
        if not images:
            return data
        try:
            return _load_images(data, root, max_image_pixels, {})
        except ImageError as error:
            raise ValueError(f"{path}:{number}: {error}") from None
        except RecursionError:
            raise ValueError(f"{path}:{number}: nested too deep") from None

    with Path(path).open(encoding="utf-8") as f:
        lines = f.read().split("\n")
    # The text after the last newline is a line cut short by a crash (or nothing).
    *whole, tail = lines
    for number, line in enumerate(whole, 1):
        if line.strip():
            try:
                data = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number} is not a JSON line: {error}") from error
            yield with_images(data, number)
    if tail.strip():
        try:
            last = json.loads(tail)
        except json.JSONDecodeError:
            return  # the torn last line of a crashed writer
        yield with_images(last, len(whole) + 1)


def load_transcripts(
    path: str | os.PathLike[str], images: bool = True, max_image_pixels: int = MAX_IMAGE_PIXELS
) -> list[dict[str, Any]]:
    """All episodes recorded in ``path``, as dicts (one per line).

    Args:
        path: the JSONL file ``RecordEpisodes`` wrote.
        images: give pictures back as uint8 arrays read from ``images/``; False: leave
            the ``{"__turngym__": "image", "path", "shape"}`` references as they are.
        max_image_pixels: a larger picture is refused before it is decoded.

    A last line cut short by a crash is skipped; a bad line anywhere else, or a picture
    reference that leaves the file's folder (``..``, an absolute path, a symlink), names
    no readable PNG or one over ``max_image_pixels``, raises a one-line ``ValueError``
    naming the file and line.

    """
    return list(iter_transcripts(path, images=images, max_image_pixels=max_image_pixels))

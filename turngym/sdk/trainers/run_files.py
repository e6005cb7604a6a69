"""Files a training run writes beside its metrics, for ``turngym view``.

- ``write_config``: ``config.json``, the config dataclass as JSON, with its trainer's
  name (``trainer``) first.
- ``record_eval_episodes``: a few episodes of each evaluation in
  ``episodes/eval-step-NNNNNNN.jsonl`` (``turngym.sdk.episode_files`` schema);
  ``drop_eval_episodes_after``: a resumed run drops those after its checkpoint.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["drop_eval_episodes_after", "record_eval_episodes", "write_config"]


def _write_text_atomic(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (a temp file beside it, then rename)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_config(run_dir: Path, config: Any) -> Path:
    """``run_dir/config.json``: the config dataclass as JSON (rewritten only when it differs).

    Its ``trainer`` key names the trainer (``turngym train NAME --config`` takes the
    file back). A resumed run with the same config leaves the file as it was.
    """
    path = run_dir / "config.json"
    named = getattr(config, "trainer", "")
    data = {"trainer": named, **dataclasses.asdict(config)} if named else dataclasses.asdict(config)
    text = json.dumps(data, indent=1, default=str) + "\n"
    if not (path.is_file() and path.read_text(encoding="utf-8") == text):
        run_dir.mkdir(parents=True, exist_ok=True)
        _write_text_atomic(path, text)
    return path


def record_eval_episodes(
    trainer: Any, groups: Iterable[tuple[Sequence[Any], dict[str, Any]]]
) -> Path | None:
    """Save the first ``eval_record_episodes`` episodes of each group of an evaluation.

    ``groups`` are ``(episodes, meta)`` pairs: one for a single-agent env, one per seat
    in a game (meta: ``mode``, and ``seat`` and ``opponent`` for games). Each episode's
    ``meta`` gets the group's and ``step`` (``trainer.step``), and they go to
    ``trainer.run_dir/episodes/eval-step-NNNNNNN.jsonl`` (pictures as PNG files in
    ``episodes/images/``), replaced whole. Returns the file, or None when recording is
    off (``eval_record_episodes=0``) or this is not process 0 under torchrun.
    """
    count = trainer.config.eval_record_episodes
    if not count or not getattr(trainer, "is_main", True):
        return None
    from turngym.sdk.episode_files import EpisodeWriter

    step = trainer.step
    path = trainer.run_dir / "episodes" / f"eval-step-{step:07d}.jsonl"
    kept = [
        dataclasses.replace(ep, meta={**ep.meta, **meta, "step": step})
        for episodes, meta in groups
        for ep in list(episodes)[:count]
    ]
    with EpisodeWriter(path) as writer:
        writer.write(kept)
    return path


def drop_eval_episodes_after(run_dir: Path, step: int) -> None:
    """Delete the recorded evaluations of steps after ``step`` (a resumed run redoes them).

    Like the metrics rows after the checkpoint, they come from the run that crashed.
    """
    for path in (run_dir / "episodes").glob("eval-step-*.jsonl"):
        number = path.stem.removeprefix("eval-step-")
        if number.isdigit() and int(number) > step:
            path.unlink()

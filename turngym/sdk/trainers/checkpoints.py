"""A run's checkpoints: written whole or not at all, and found again on resume.

A checkpoint is written to a temporary directory and renamed into place, and ``LATEST``
is replaced atomically, so a crash never leaves a half-written checkpoint where resume
would find it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

__all__ = ["checkpoint_dirs", "latest_checkpoint", "open_run_dir", "save_checkpoint"]


def checkpoint_dirs(run_dir: Path) -> list[Path]:
    """The run's complete checkpoints, oldest first."""
    root = run_dir / "checkpoints"
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith("step-"))


def open_run_dir(output_dir: str | Path, resume: bool) -> Path:
    """The run directory of a trainer; with ``resume`` it must hold a checkpoint.

    Nothing is created here: the first file a run writes makes the folder, so a run that
    fails before its first step leaves no empty one behind.

    Raises:
        ValueError: ``resume`` and no checkpoint to resume from (a missing or empty dir).

    """
    run_dir = Path(output_dir)
    if resume and latest_checkpoint(run_dir) is None:
        what = "does not exist" if not run_dir.exists() else "holds no checkpoint"
        raise ValueError(
            f"resume: {run_dir} {what}; drop --resume to start a new run there, or "
            "name the --output-dir of the run to continue"
        )
    return run_dir


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The checkpoint ``LATEST`` names, or None when the run has none."""
    pointer = run_dir / "checkpoints" / "LATEST"
    if not pointer.is_file():
        return None
    path = run_dir / "checkpoints" / pointer.read_text().strip()
    return path if path.is_dir() else None


def save_checkpoint(run_dir: Path, step: int, write: Any, keep: int = 2) -> Path:
    """Write a checkpoint atomically: ``write(tmp_dir)`` fills it, then it is renamed.

    ``LATEST`` then names it (replaced atomically) and all but the newest ``keep``
    checkpoints are deleted.
    """
    root = run_dir / "checkpoints"
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"step-{step:07d}"
    tmp = root / f".tmp-step-{step:07d}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    write(tmp)
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)
    pointer = root / ".LATEST.tmp"
    pointer.write_text(final.name + "\n")
    os.replace(pointer, root / "LATEST")
    for old in checkpoint_dirs(run_dir)[:-keep] if keep > 0 else []:
        if old != final:
            shutil.rmtree(old, ignore_errors=True)
    return final

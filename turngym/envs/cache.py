"""Where envs keep what they prepare once and reuse: ``$TURNGYM_CACHE`` or ``~/.cache/turngym``."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """The cache root: ``$TURNGYM_CACHE`` or ``~/.cache/turngym`` (not created here)."""
    root = os.environ.get("TURNGYM_CACHE") or Path.home() / ".cache" / "turngym"
    return Path(root)

"""turngym's wheel built from this checkout, offline, and a virtualenv to install it in."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_wheel(where: Path) -> Path:
    """Build turngym's wheel into ``where`` (no network: this Python's hatchling)."""
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*build, "-w", str(where), str(ROOT)], check=True, capture_output=True)
    (wheel,) = where.glob("turngym-*.whl")
    return wheel


def bare_venv(where: Path) -> tuple[Path, Path]:
    """A new virtualenv without pip: its Python and its site-packages."""
    venv.create(where, with_pip=False)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return python, Path(purelib)

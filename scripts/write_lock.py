"""Write the install lock (``requirements/lock.txt``) from what a virtualenv holds.

``make lock`` builds a fresh virtualenv with the newest releases pyproject.toml's ranges
allow, then calls this script on it: every distribution there but turngym itself is
pinned to its exact version (pip, setuptools and the CPU torch build included), so
``make test``, ``make demo``, ``make check-base``, ``make docs`` and CI install exactly
these. Usage: ``python scripts/write_lock.py VENV OUT``.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import date
from pathlib import Path

HEADER = """\
# turngym's install lock: the exact versions `make test`, `make demo`, `make check`,
# `make check-base`, `make docs` and CI install (pip constraints, `pip install -c`).
# Users of `pip install turngym` get pyproject.toml's ranges instead.
# Written by `make lock` (scripts/write_lock.py) on {day}, on Python {python} ({platform}):
# the newest releases the ranges allowed that day. To see drift before it surprises
# anyone: `make lock test` resolves again, rebuilds .venv and runs the suite; commit the
# new lock when it is green. Do not edit by hand.
"""


def freeze(venv: Path) -> list[str]:
    """Every distribution in ``venv`` as ``name==version`` (editable installs left out)."""
    python = venv / "bin" / "python"
    out = subprocess.run(
        [str(python), "-m", "pip", "freeze", "--all", "--exclude-editable"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    pins = [line.strip() for line in out.splitlines() if line.strip()]
    odd = [line for line in pins if "==" not in line or line.startswith("-")]
    if odd:
        raise SystemExit(f"write_lock: not a name==version pin: {odd[0]!r}")
    return sorted(pins, key=str.lower)


def describe(venv: Path) -> tuple[str, str]:
    """The Python version and platform of ``venv``'s interpreter."""
    python = venv / "bin" / "python"
    code = (
        "import platform, sys; print(platform.python_version()); "
        "print(sys.platform, platform.machine())"
    )
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True)
    version, plat = out.stdout.splitlines()[:2]
    return version, plat


def main(argv: list[str]) -> int:
    """Write the lock of ``argv[0]`` (a virtualenv) to ``argv[1]``."""
    if len(argv) != 2:
        print("usage: python scripts/write_lock.py VENV OUT", file=sys.stderr)
        return 2
    venv, out = Path(argv[0]), Path(argv[1])
    version, plat = describe(venv)
    text = HEADER.format(day=date.today().isoformat(), python=version, platform=plat)
    out.parent.mkdir(parents=True, exist_ok=True)
    pins = freeze(venv)
    out.write_text(text + "\n".join(pins) + "\n")
    print(f"write_lock: {out} pins {len(pins)} distributions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

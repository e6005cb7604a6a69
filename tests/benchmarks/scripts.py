"""Run a script of ``benchmarks/`` as a user would and read its JSON lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_benchmark(name: str, *args: str, extra_env: dict[str, str] | None = None) -> list[dict]:
    """``python benchmarks/<name> ARGS`` with the checkout's turngym; one dict per stdout line.

    Fails the test (with the script's stderr) when the script exits non-zero.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(extra_env or {})}
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]

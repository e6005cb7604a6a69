"""Start a training script under ``torchrun`` for the data-parallel tests (CPU and GPU)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def torchrun(script: str, args: list[str], nproc: int, cwd: Path, timeout: float) -> str:
    """Run ``script`` (its source) in ``nproc`` processes under torchrun; its stdout.

    The checkout goes first on ``PYTHONPATH`` (what the caller's path holds stays, so
    packages installed beside it are found); a failed run fails the test with stderr.
    """
    path = cwd / "train.py"
    path.write_text(script)
    python_path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": python_path, "OMP_NUM_THREADS": "1"}
    env.pop("WORLD_SIZE", None)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(nproc)]
    cmd += ["--master_addr", "127.0.0.1", "--master_port", str(free_port())]
    done = subprocess.run(
        [*cmd, str(path), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout

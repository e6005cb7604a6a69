"""A real `turngym serve` subprocess on 127.0.0.1 with a tiny model, shared by the tests of
OpenAIPolicy and of the server (started once per test process)."""

from __future__ import annotations

import atexit
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

# A short corpus keeps the tokenizer build quick; the words still make sensible tokens.
TEXTS = [
    "You are in a frozen lake. Move left, right, up or down to reach the goal.",
    "The hole is at row 2, column 3. Answer: down",
    "system user assistant You are a helpful assistant.",
    "Guess the five-letter word: crane slate adieu",
]


@dataclass
class Served:
    """A running server: its process, API root, model dir and log file."""

    proc: subprocess.Popen[str]
    url: str
    model_dir: Path
    log: Path

    def stop(self) -> None:
        """Stop the server and remove its log (read it first if it is wanted)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.unlink(missing_ok=True)


def build_model(path: Path) -> Path:
    from turngym.sdk.models import build_tiny_model

    return build_tiny_model(path, vocab_size=300, hidden=32, layers=2, heads=2, texts=TEXTS)


def start_server(
    model_dir: Path,
    *args: str,
    api_key: str | None = None,
    threads: int | None = None,
    timeout: float = 600.0,
) -> Served:
    """Start `turngym serve --model DIR --port 0 ARGS` and wait until /health answers.

    ``timeout`` only stops a server that never comes up from hanging the tests: a loaded
    machine (CI, ``tools/under-load``) can take minutes to import torch and load a model.

    ``api_key`` reaches the server as ``TURNGYM_API_KEY`` (never on its command line);
    without it the server gets no key, whatever this process's environment holds.
    ``threads``: torch's intra-op threads in the server (one, as the tests' own torch
    has, keeps a server that generates a lot fast on a busy machine, where a second
    thread only spins against the other processes).
    """
    import httpx

    log = Path(tempfile.mkstemp(prefix="turngym-serve-", suffix=".log")[1])
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    env.pop("TURNGYM_API_KEY", None)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    headers = {}
    if api_key is not None:
        env["TURNGYM_API_KEY"] = api_key
        headers["Authorization"] = f"Bearer {api_key}"
    cmd = [sys.executable, "-m", "turngym.cli", "serve", "--model", str(model_dir), "--port", "0"]
    proc = subprocess.Popen(
        [*cmd, *args], stdout=subprocess.PIPE, stderr=log.open("w"), text=True, env=env
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stdout is not None
    stdout = proc.stdout
    threading.Thread(target=lambda: [lines.put(x) for x in stdout], daemon=True).start()
    try:
        line = lines.get(timeout=timeout)
    except queue.Empty:
        proc.kill()
        message = f"turngym serve printed nothing in {timeout} s: {log.read_text()}"
        raise RuntimeError(message) from None
    match = re.fullmatch(r"serving (.+) as (\S+) on (http://127\.0\.0\.1:\d+/v1)\n", line)
    assert match, f"unexpected start line {line!r}; log: {log.read_text()}"
    served = Served(proc, match.group(3), model_dir, log)
    deadline = time.monotonic() + timeout
    while True:
        try:
            health = httpx.get(served.url[: -len("/v1")] + "/health", headers=headers, timeout=5)
            if health.status_code == 200:
                return served
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            message = f"turngym serve did not come up: {log.read_text()}"
            served.stop()
            raise RuntimeError(message)
        time.sleep(0.05)


_SHARED: Served | None = None


def shared_server() -> Served:
    """One server per test process (tiny model in a temp dir), stopped at exit."""
    global _SHARED
    if _SHARED is None:
        root = Path(tempfile.mkdtemp(prefix="turngym-tiny-"))
        _SHARED = start_server(build_model(root / "tiny"), "--batch-wait-ms", "20")
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        atexit.register(_SHARED.stop)  # atexit runs last-registered first: stop, then remove
    return _SHARED

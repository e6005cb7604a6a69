"""``turngym serve`` under hostile requests: how long an honest request takes beside each.

For every attack, a fresh ``turngym serve`` (a subprocess, on 127.0.0.1) serves a tiny
model; the script times ``--normal`` honest completions alone (``phase: "alone"``),
then sends the hostile request and, while it is in flight, the same honest completions
again (``phase: "beside"``), and finally waits for the hostile reply (at most
``--timeout`` s). One JSON line per (attack, phase):

- ``prompt-2M-chars``: a 2,000,000-character prompt (the model's context is 2,048 tokens).
- ``max_tokens-200000`` and ``max_tokens-1e9``: ``max_tokens`` far past the context.
- ``prompts-1000``: 1,000 prompts in one request.
- ``nested-100k``: a JSON array nested 100,000 deep.
- ``body-2GiB``: a ``Content-Length`` of 2 GiB, of which 1 KB is sent.
- ``abandoned``: 8 generations of (context - 8) tokens whose client leaves after 0.3 s
  (the honest requests are sent after it left).
- ``heavy-legal``: another client (127.0.0.2) sends four of the largest legal requests
  (one prompt, context - 8 new tokens each), then the honest client (127.0.0.3) sends.

The honest request is ``--max-tokens`` (16) greedy tokens after a short prompt. Run it
from a checkout to measure that checkout: the server is ``python -m turngym.cli serve``
of the turngym next to this script, so a copy of the script in an older checkout
measures the older server the same way.

    .venv/bin/python benchmarks/serve_hostile.py
    .venv/bin/python benchmarks/serve_hostile.py --attacks prompt-2M-chars,abandoned
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HONEST = {"prompt": "You are in a frozen lake. Move left, right, up or down.", "temperature": 0}


def _line(**fields: Any) -> None:
    print(json.dumps({"bench": "serve_hostile", **fields}), flush=True)


class Server:
    """A ``turngym serve`` subprocess on 127.0.0.1 and a port it picked."""

    def __init__(self, model_dir: Path, timeout: float = 120.0) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
        env.pop("TURNGYM_API_KEY", None)
        cmd = [sys.executable, "-m", "turngym.cli", "serve", "--model", str(model_dir)]
        self.proc = subprocess.Popen(
            [*cmd, "--port", "0", "--batch-wait-ms", "5"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/v1", line)
        if match is None:
            self.stop()
            raise RuntimeError(f"turngym serve did not start: {line!r}")
        self.port = int(match.group(1))
        deadline = time.monotonic() + timeout
        while self.get("/health")[0] != 200:
            if time.monotonic() > deadline:
                raise RuntimeError("turngym serve did not answer /health")
            time.sleep(0.05)

    def request(
        self, method: str, path: str, body: bytes = b"", timeout: float = 60.0, source: str = ""
    ) -> tuple[int, bytes]:
        """(status, body) of one request; status 0 if it timed out or the link broke."""
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=timeout, source_address=(source, 0) if source else None
        )
        try:
            conn.request(method, path, body, {"Content-Type": "application/json"})
            reply = conn.getresponse()
            return reply.status, reply.read()
        except (OSError, http.client.HTTPException):
            return 0, b""
        finally:
            conn.close()

    def get(self, path: str) -> tuple[int, Any]:
        status, data = self.request("GET", path, timeout=10)
        return status, json.loads(data) if status == 200 else None

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def honest(server: Server, n: int, max_tokens: int, timeout: float) -> dict[str, Any]:
    """Seconds of ``n`` honest completions, one after another (from 127.0.0.3)."""
    body = json.dumps({**HONEST, "max_tokens": max_tokens}).encode()
    seconds, failed = [], 0
    for _ in range(n):
        start = time.perf_counter()
        status, _ = server.request("POST", "/v1/completions", body, timeout, "127.0.0.3")
        seconds.append(time.perf_counter() - start)
        failed += status != 200
    return {
        "requests": n,
        "failed": failed,
        "median_s": round(statistics.median(seconds), 4),
        "max_s": round(max(seconds), 4),
    }


def _completion(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


def attack(name: str, server: Server, context: int, timeout: float) -> dict[str, Any]:
    """Start the attack ``name`` in the background; return a dict its thread fills in."""
    result: dict[str, Any] = {}
    bodies = {
        "prompt-2M-chars": _completion(prompt="You are in a frozen lake. " * 80_000, max_tokens=16),
        "max_tokens-200000": _completion(prompt=[5, 6, 7], max_tokens=200_000, temperature=0),
        "max_tokens-1e9": _completion(prompt=[5, 6, 7], max_tokens=10**9, temperature=1),
        "prompts-1000": _completion(prompt=[[5, 6, 7]] * 1000, max_tokens=16, temperature=0),
        "nested-100k": b"[" * 100_000 + b"]" * 100_000,
    }

    replies: list[tuple[int, float]] = []

    def send(body: bytes, source: str = "", expected: int = 1) -> None:
        start = time.perf_counter()
        status, data = server.request("POST", "/v1/completions", body, timeout, source)
        replies.append((status, round(time.perf_counter() - start, 4)))
        if status >= 400:
            message = json.loads(data).get("error", {}).get("message", "")
            result["hostile_message"] = message[:160]
        if len(replies) == expected:  # the last reply: the attack is over
            result["hostile_s"] = max(s for _, s in replies)
            statuses = [status for status, _ in replies]
            result["hostile_status"] = statuses[0] if expected == 1 else statuses

    if name in bodies:
        threading.Thread(target=send, args=(bodies[name],), daemon=True).start()
    elif name == "body-2GiB":
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=timeout)
        head = "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2147483648\r\n\r\n"
        sock.sendall(head.encode() + b"x" * 1024)

        def read() -> None:
            start = time.perf_counter()
            try:
                first = sock.recv(64)
                result["hostile_status"] = int(first.split()[1]) if first else 0
            except OSError:
                result["hostile_status"] = 0
            result["hostile_s"] = round(time.perf_counter() - start, 4)
            sock.close()

        threading.Thread(target=read, daemon=True).start()
    elif name == "abandoned":
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
        body = _completion(prompt=[[5, 6, 7]] * 8, max_tokens=context - 8, temperature=0)
        conn.request("POST", "/v1/completions", body, {"Content-Type": "application/json"})
        time.sleep(0.3)
        conn.close()  # the client leaves
        result["hostile_status"] = "left after 0.3 s"
    elif name == "heavy-legal":
        for i in range(4):
            body = _completion(prompt=[[5, 6, 7]], max_tokens=context - 8 - i, temperature=0)
            threading.Thread(target=send, args=(body, "127.0.0.2", 4), daemon=True).start()
    else:
        raise ValueError(f"unknown attack {name!r}")
    time.sleep(0.2)  # the hostile request reaches the server first
    return result


ATTACKS = (
    "prompt-2M-chars",
    "max_tokens-200000",
    "max_tokens-1e9",
    "prompts-1000",
    "nested-100k",
    "body-2GiB",
    "abandoned",
    "heavy-legal",
)


def main(argv: list[str] | None = None) -> int:
    """Measure every attack; print one JSON line per (attack, phase)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacks", default=",".join(ATTACKS), help="comma-separated")
    parser.add_argument("--normal", type=int, default=5, help="honest requests per phase")
    parser.add_argument("--max-tokens", type=int, default=16, help="of each honest request")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    parser.add_argument("--context", type=int, default=2048, help="the tiny model's context")
    args = parser.parse_args(argv)
    names = [a for a in args.attacks.split(",") if a]
    unknown = sorted(set(names) - set(ATTACKS))
    if unknown:
        parser.error(f"unknown attacks {unknown}; pick from {', '.join(ATTACKS)}")
    sys.path.insert(0, str(ROOT))
    from turngym.sdk.models import build_tiny_model

    env = {"python": platform.python_version(), "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        model = build_tiny_model(
            Path(tmp) / "tiny", vocab_size=300, hidden=32, layers=2, heads=2,
            max_positions=args.context,
        )  # fmt: skip
        for name in names:
            server = Server(model)
            try:
                honest(server, 2, args.max_tokens, args.timeout)  # warm-up
                alone = honest(server, args.normal, args.max_tokens, args.timeout)
                _line(attack=name, phase="alone", **alone, **env)
                before = (server.get("/health")[1] or {}).get("batching", {})
                result = attack(name, server, args.context, args.timeout)
                beside = honest(server, args.normal, args.max_tokens, args.timeout)
                deadline = time.monotonic() + args.timeout
                while "hostile_status" not in result and time.monotonic() < deadline:
                    time.sleep(0.05)
                health = (server.get("/health")[1] or {}).get("batching", {})
                extra: dict[str, Any] = {}
                if "generated_tokens" in health:
                    extra["generated_tokens"] = health["generated_tokens"] - before.get(
                        "generated_tokens", 0
                    )
                ratio = beside["median_s"] / alone["median_s"]
                _line(
                    attack=name,
                    phase="beside",
                    **beside,
                    slowdown=round(ratio, 2),
                    **{"hostile_status": None, **result},
                    **extra,
                    **env,
                )
            finally:
                server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

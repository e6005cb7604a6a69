"""``AppProcess``: the env's handle on one bundled app running on its display.

It starts ``python -m turngym.envs.gui.apps <name>`` as a client of the ``Display``,
waits for the app's ``ready`` line, connects to its Unix socket and sends JSON
requests (``load``, ``observe``). Anything that goes wrong (the app died, hung or
answered an error) is an ``AppError`` that says which app and why; the env turns it
into a truncated episode and the next reset starts the app again.

The app's socket and its stderr (a file: a pipe nobody drains could fill and hang the
app) live in a `reaper.temp_dir` ``turngym-<app>-*``, removed on close or, if this
process is killed, by the reaper (or the next start's sweep).
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from turngym.envs.gui.apps import APPS
from turngym.envs.gui.display import Display
from turngym.host import reaper

__all__ = ["AppError", "AppProcess"]

START_TIMEOUT = 20.0
"""Seconds an app gets to open its window."""
REQUEST_TIMEOUT = 10.0
"""Seconds an app gets to answer one request."""
STDERR_TAIL = 65_536
"""Bytes of a dead app's stderr read for its error message."""


# ``python -m turngym.envs.gui.apps`` would run ``turngym/__init__.py``, which registers
# every env with Gymnasium: 0.2 s of imports an app never uses, paid on every app start.
# The app process only needs the apps package, so it gets the package's folders as bare
# namespace modules and imports from there.
_BOOTSTRAP = f"""
import sys, types
for name, path in {{
    "turngym": {str(Path(__file__).resolve().parents[3])!r},
    "turngym.envs": {str(Path(__file__).resolve().parents[2])!r},
}}.items():
    module = types.ModuleType(name)
    module.__path__ = [path]
    sys.modules[name] = module
sys.argv[0] = "python -m turngym.envs.gui.apps"
from turngym.envs.gui.apps.__main__ import main
main()
"""


class AppError(RuntimeError):
    """A bundled app died, hung, or could not do what the env asked."""


class AppProcess:
    """One bundled app (``APPS`` name) running on ``display``, files in ``workdir``.

    Args:
        display: the X display to run on.
        app: the app's name in ``APPS``.
        workdir: the folder the app's files live in.
        geometry: the window's Tk geometry, e.g. ``"1280x800+0+0"``.

    """

    def __init__(self, display: Display, app: str, workdir: str, geometry: str) -> None:
        if app not in APPS:
            raise ValueError(f"unknown app {app!r}; bundled apps: {', '.join(sorted(APPS))}")
        self.app = app
        self.display = display
        self._dir = str(reaper.temp_dir(f"turngym-{app}-"))
        self._sock_path = os.path.join(self._dir, "app.sock")
        self._stderr_path = os.path.join(self._dir, "stderr")
        command = [sys.executable, "-c", _BOOTSTRAP, app]
        command += ["--socket", self._sock_path, "--workdir", workdir, "--geometry", geometry]
        with open(self._stderr_path, "wb") as stderr:
            self.proc = display.spawn(command, stdout=subprocess.PIPE, stderr=stderr.fileno())
        self._sock: socket.socket | None = None
        self._buffer = b""
        try:
            self._wait_ready()
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.connect(self._sock_path)
        except (AppError, OSError) as error:
            self.close()
            raise AppError(f"the {app} app did not start: {error}") from error

    def _wait_ready(self) -> None:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(left, 0))
            chunk = os.read(self.proc.stdout.fileno(), 64) if ready else b""
            if not chunk:
                raise AppError(self._why_dead() or f"no window after {START_TIMEOUT:.0f} s")
            line += chunk

    def _why_dead(self) -> str:
        code = self.proc.poll()
        if code is None:
            return ""
        err = b""
        try:
            with open(self._stderr_path, "rb") as stderr:
                stderr.seek(max(0, os.fstat(stderr.fileno()).st_size - STDERR_TAIL))
                err = stderr.read(STDERR_TAIL)
        except OSError:
            pass
        last = " | ".join(err.decode(errors="replace").strip().splitlines()[-3:])
        how = f"killed by signal {-code}" if code < 0 else f"exited with code {code}"
        return how + (f": {last}" if last else "")

    @property
    def alive(self) -> bool:
        """Whether the app's process is running."""
        return self.proc.poll() is None and self._sock is not None

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request and return the app's reply; ``AppError`` if it fails.

        ``observe`` is answered in two lines (drawn, then the tree): this returns the
        tree. ``send`` + ``receive`` let the caller work between the two.
        """
        self.send(op, **fields)
        reply = self.receive(op)
        return self.receive(op) if reply.get("drawn") else reply

    def send(self, op: str, **fields: Any) -> None:
        """Send one request without waiting for the answer."""
        if self._sock is None:
            raise AppError(f"the {self.app} app is closed")
        try:
            self._sock.sendall(json.dumps({"op": op, **fields}).encode() + b"\n")
        except OSError as error:
            raise AppError(self._lost(str(error))) from error

    def receive(self, op: str) -> dict[str, Any]:
        """The app's next reply line (to ``op``, for the error message)."""
        try:
            reply = self._read_line()
        except OSError as error:
            raise AppError(self._lost(str(error))) from error
        if not reply.get("ok"):
            raise AppError(f"the {self.app} app failed to {op}: {reply.get('error')}")
        return reply

    def _read_line(self) -> dict[str, Any]:
        assert self._sock is not None
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._sock], [], [], max(left, 0))
            if not ready:
                raise AppError(f"the {self.app} app did not answer in {REQUEST_TIMEOUT:.0f} s")
            chunk = self._sock.recv(1 << 20)
            if not chunk:
                raise AppError(self._lost("it closed the connection"))
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return dict(json.loads(line))

    def _lost(self, what: str) -> str:
        time.sleep(0.05)  # let a dying process be reaped, so we can say how it ended
        return f"the {self.app} app stopped answering ({self._why_dead() or what})"

    def close(self) -> None:
        """Ask the app to quit, then stop its process; remove its socket folder."""
        if self._sock is not None:
            try:
                if self.proc.poll() is None:
                    self._sock.sendall(b'{"op": "quit"}\n')
            except OSError:
                pass
            self._sock.close()
            self._sock = None
        self.display.stop(self.proc)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        reaper.remove_dir(self._dir)

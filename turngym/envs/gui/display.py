"""``Display``: a private Xvfb X server, and the processes that run on it.

``Display`` starts ``Xvfb`` on a display number the server picks itself (``-displayfd``,
so two envs never race for one), listening on its Unix socket only (``-nolisten tcp``),
with the screen size asked for (default 1280x800, 24-bit). ``spawn`` starts a client on
it (an app, ``xterm``, a window manager) and keeps track of it. ``close()`` stops every
process it started, the server last, and a finalizer does the same when the object is
collected or the interpreter exits. Every process is started by `reaper.spawn`, in a
session of its own that the reaper kills when this process ends in any way (SIGKILL
included), so no Xvfb or client outlives its env.

Xvfb comes from Debian's ``xvfb`` package (``apt-get install xvfb``); ``xvfb_available``
says whether it is on ``PATH``.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import time
import weakref
from collections.abc import Sequence

from turngym.envs import reaper

__all__ = ["DEFAULT_SIZE", "Display", "DisplayError", "xvfb_available"]

DEFAULT_SIZE = (1280, 800)
"""The screen size (width, height) of a display when none is given."""
START_TIMEOUT = 10.0
"""Seconds Xvfb gets to report its display number before ``Display`` gives up."""


class DisplayError(RuntimeError):
    """The X server could not be started, or died."""


def xvfb_available() -> bool:
    """Whether the ``Xvfb`` binary is installed (Debian: ``apt-get install xvfb``)."""
    return shutil.which("Xvfb") is not None


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """Terminate ``processes`` (last started first), then kill what is left."""
    for proc in reversed(processes):
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 2.0
    for proc in reversed(processes):
        try:
            proc.wait(timeout=max(0.05, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        reaper.forget(proc.pid)  # waited for: its id may be reused
    processes.clear()


class Display:
    """A private Xvfb server; ``spawn`` runs clients on it; ``close`` stops them all.

    Args:
        size: the screen's (width, height) in pixels.
        window_manager: a window manager command to run (e.g. ``"twm"``), or None for
            none: apps then place their own windows and keyboard focus follows the
            pointer.

    Example:
        >>> display = Display(size=(640, 480))  # doctest: +SKIP
        >>> display.name, display.alive  # doctest: +SKIP
        (':1', True)
        >>> display.close()  # doctest: +SKIP

    """

    def __init__(
        self,
        size: tuple[int, int] = DEFAULT_SIZE,
        *,
        window_manager: str | None = None,
    ) -> None:
        width, height = (int(v) for v in size)
        if not (64 <= width <= 8192 and 64 <= height <= 8192):
            raise ValueError(f"size must be (width, height) in 64..8192, got {size!r}")
        if not xvfb_available():
            raise DisplayError(
                "Xvfb is not installed; install it with `apt-get install xvfb` "
                "(`make test` does so as root)"
            )
        self.size = (width, height)
        self._processes: list[subprocess.Popen[bytes]] = []
        # The finalizer holds the list, not self, so collection and exit both clean up.
        self._finalizer = weakref.finalize(self, _stop, self._processes)
        self.server = self._start_server()
        self.name = self._name
        if window_manager is not None:
            if shutil.which(window_manager) is None:
                self.close()
                raise DisplayError(f"window manager {window_manager!r} is not installed")
            self.spawn([window_manager])

    def _start_server(self) -> subprocess.Popen[bytes]:
        read_fd, write_fd = os.pipe()
        width, height = self.size
        command = [
            "Xvfb",
            "-displayfd",
            str(write_fd),
            "-nolisten",
            "tcp",
            "-screen",
            "0",
            f"{width}x{height}x24",
            "-nocursor",
            "-noreset",
        ]
        try:
            proc = reaper.spawn(
                command,
                pass_fds=(write_fd,),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        finally:
            os.close(write_fd)
        self._processes.append(proc)
        number = b""
        deadline = time.monotonic() + START_TIMEOUT
        try:
            while not number.endswith(b"\n"):
                left = deadline - time.monotonic()
                ready, _, _ = select.select([read_fd], [], [], max(left, 0))
                chunk = os.read(read_fd, 16) if ready else b""
                if not chunk:
                    break
                number += chunk
        finally:
            os.close(read_fd)
        if not number.strip().isdigit():
            error = self._stderr_of(proc)
            self.close()
            raise DisplayError(f"Xvfb did not start: {error or 'no display number reported'}")
        self._name = f":{int(number)}"
        return proc

    @staticmethod
    def _stderr_of(proc: subprocess.Popen[bytes]) -> str:
        if proc.poll() is None:
            proc.terminate()
        try:
            _, err = proc.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            return ""
        lines = (err or b"").decode(errors="replace").strip().splitlines()
        return " | ".join(lines[-3:])

    @property
    def alive(self) -> bool:
        """Whether the X server is still running."""
        return self.server.poll() is None

    @property
    def pids(self) -> list[int]:
        """The process ids of the server and every client started here, still running."""
        return [p.pid for p in self._processes if p.poll() is None]

    def env(self) -> dict[str, str]:
        """An environment for a client of this display (``DISPLAY`` set, X auth dropped)."""
        env = {k: v for k, v in os.environ.items() if k not in ("XAUTHORITY", "WAYLAND_DISPLAY")}
        env["DISPLAY"] = self.name
        return env

    def spawn(
        self,
        command: Sequence[str],
        *,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        stdout: int | None = subprocess.DEVNULL,
        stderr: int | None = subprocess.DEVNULL,
    ) -> subprocess.Popen[bytes]:
        """Start ``command`` as a client of this display; ``close`` stops it.

        Each client runs in a session of its own, so stopping it also stops what it
        started (a shell's children in an ``xterm``), and the reaper kills that session
        if this process dies first.
        """
        if not self.alive:
            raise DisplayError(f"the X server {self.name} is not running")
        proc = reaper.spawn(
            list(command),
            cwd=cwd,
            env={**self.env(), **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
        )
        self._processes.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen[bytes]) -> None:
        """Stop one client started by ``spawn`` (and its session)."""
        if proc in self._processes:
            self._processes.remove(proc)
        _stop([proc])

    def close(self) -> None:
        """Stop every client, then the server. Safe to call twice."""
        self._finalizer()

    def __enter__(self) -> Display:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""``Display``: a private Xvfb X server, and the processes that run on it.

``Display`` starts ``Xvfb`` on a display number the server picks itself (``-displayfd``,
so two envs never race for one), listening on its Unix socket only (``-nolisten tcp``),
with the screen size asked for (default 1280x800, 24-bit). ``spawn`` starts a client on
it (an app, ``xterm``, a window manager) and keeps track of it. ``close()`` stops every
process it started, the server last, and a finalizer does the same when the object is
collected or the interpreter exits. Every process is started by `reaper.spawn`, in a
session of its own that the reaper kills when this process ends in any way (SIGKILL
included), so no Xvfb or client outlives its env.

The server's socket (``/tmp/.X11-unix/X<n>`` and its abstract twin) is open to every
local user, so each display has its own random MIT-MAGIC-COOKIE-1, in a 0600 file
(``xauthority``) in a private `reaper.temp_dir` folder removed at close (or by the
reaper). Xvfb is started with ``-auth`` on it and refuses any client without the cookie;
``env()`` gives clients ``XAUTHORITY``, and ``using_xauthority`` does the same for a
connection made in this process (python-xlib and mss read ``XAUTHORITY`` when they
connect).

Xvfb comes from Debian's ``xvfb`` package (``apt-get install xvfb``); ``xvfb_available``
says whether it is on ``PATH``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from turngym.host import reaper

__all__ = ["DEFAULT_SIZE", "Display", "DisplayError", "using_xauthority", "xvfb_available"]

DEFAULT_SIZE = (1280, 800)
"""The screen size (width, height) of a display when none is given."""
START_TIMEOUT = 10.0
"""Seconds Xvfb gets to report its display number before ``Display`` gives up."""


class DisplayError(RuntimeError):
    """The X server could not be started, or died."""


def xvfb_available() -> bool:
    """Whether the ``Xvfb`` binary is installed (Debian: ``apt-get install xvfb``)."""
    return shutil.which("Xvfb") is not None


_COOKIE_NAME = b"MIT-MAGIC-COOKIE-1"
_FAMILY_LOCAL = 256  # a Unix socket, by host name: the only entry python-xlib matches
_FAMILY_WILD = 0xFFFF  # any address, for libXau (xterm, xdotool, Tk, mss): a renamed host
_environ_lock = threading.RLock()


def _write_xauthority(path: Path, cookie: bytes) -> None:
    """Write an Xauthority file (0600, new) holding ``cookie`` for any display number.

    Each entry is family (u16) then address, display number, auth name and auth data,
    each a big-endian u16 length and the bytes. The number is left empty (any display):
    the file is this display's alone, and the number is known only once Xvfb runs.
    """
    entries = b""
    for family, address in ((_FAMILY_LOCAL, socket.gethostname().encode()), (_FAMILY_WILD, b"")):
        fields = (address, b"", _COOKIE_NAME, cookie)
        entries += struct.pack(">H", family)
        entries += b"".join(struct.pack(">H", len(f)) + f for f in fields)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(entries)


@contextlib.contextmanager
def using_xauthority(path: str | os.PathLike[str] | None) -> Iterator[None]:
    """Within: this process's ``XAUTHORITY`` is ``path``, for an X connection made here.

    python-xlib and libxcb (mss) take no cookie argument; both read ``XAUTHORITY``
    when a connection opens, and only then. The variable is set for that moment only
    (serialised by a lock), so the process's other X connections (to a user's desktop)
    keep their usual cookie file.
    With ``path`` None nothing changes.

    >>> with using_xauthority("/tmp/cookie"):
    ...     os.environ["XAUTHORITY"]
    '/tmp/cookie'
    """
    if path is None:
        yield
        return
    with _environ_lock:
        saved = os.environ.get("XAUTHORITY")
        os.environ["XAUTHORITY"] = os.fspath(path)
        try:
            yield
        finally:
            if saved is None:
                os.environ.pop("XAUTHORITY", None)
            else:
                os.environ["XAUTHORITY"] = saved


def _close(processes: list[subprocess.Popen[bytes]], folder: Path) -> None:
    """Stop ``processes``, then remove the private folder (and the cookie in it)."""
    _stop(processes)
    reaper.remove_dir(folder)


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
        self._folder = reaper.temp_dir("turngym-x11-")
        # The finalizer holds the list, not self, so collection and exit both clean up.
        self._finalizer = weakref.finalize(self, _close, self._processes, self._folder)
        self.xauthority = str(self._folder / "xauthority")
        """The file holding this display's cookie (0600): what ``XAUTHORITY`` names."""
        _write_xauthority(Path(self.xauthority), secrets.token_bytes(16))
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
            "-auth",
            self.xauthority,
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
        """An environment for a client of this display: ``DISPLAY`` and its ``XAUTHORITY``."""
        env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
        env["DISPLAY"] = self.name
        env["XAUTHORITY"] = self.xauthority
        return env

    def connect(self) -> Any:
        """A python-xlib connection to this display, with its cookie (close it after)."""
        from Xlib import display

        with using_xauthority(self.xauthority):
            return display.Display(self.name)

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

"""Child processes and temp folders that never outlive this process, even a SIGKILLed one.

Finalizers and ``atexit`` do not run when a process is killed with SIGKILL (the OOM
killer, a cluster's scheduler, ``kill -9``), so an env's Xvfb, apps and browser would
stay, and its temp folders pile up. The first call here starts a reaper: a small
process (this file run with ``python -I -S``, nothing of turngym imported) that reads
commands from a pipe whose write end only this process holds. ``spawn``/``watch``
name the process groups it must kill, ``temp_dir`` the folders it must remove (with
whatever is mounted inside them). When the pipe closes, because this process ended in
any way, the reaper kills those groups, unmounts and removes those folders, and exits.
A thread's exit does not trigger it (unlike ``PR_SET_PDEATHSIG``), so envs made in
worker threads are safe.

``temp_dir`` names a folder ``<prefix><pid>.<start time>-<random>`` and, the first time
a prefix is used in a process, sweeps the folders of that prefix whose owner process is
gone (when even the reaper was killed): nothing piles up across runs.

>>> folder = temp_dir("turngym-doctest-")
>>> folder.is_dir(), folder.name.startswith(f"turngym-doctest-{os.getpid()}.")
(True, True)
>>> remove_dir(folder)
>>> folder.exists()
False
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["forget", "remove_dir", "spawn", "sweep", "temp_dir", "watch"]

_lock = threading.Lock()
_pipe: int | None = None
_reaper: int | None = None  # its pid
_swept: set[tuple[str, str]] = set()


# --------------------------------------------------------------------------- the reaper


def _start() -> int:
    """The write end of the reaper's pipe, starting the reaper the first time."""
    global _pipe, _reaper
    if _pipe is None:
        read, write = os.pipe()  # both ends close-on-exec: no other child holds them
        null = os.open(os.devnull, os.O_RDWR)
        try:
            # posix_spawn, not Popen: the reaper outlives every Popen object (no warning
            # at exit that it still runs). setsid: a Ctrl-C or a group kill does not reach it.
            _reaper = os.posix_spawn(
                sys.executable,
                [sys.executable, "-I", "-S", os.path.abspath(__file__)],
                os.environ,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, read, 0),
                    (os.POSIX_SPAWN_DUP2, null, 1),
                    (os.POSIX_SPAWN_DUP2, null, 2),
                ],
                setsid=True,
            )
        finally:
            os.close(read)
            os.close(null)
        _pipe = write
    return _pipe


def _send(op: str, arg: str) -> None:
    line = f"{op} {arg.encode('utf-8', 'surrogateescape').hex()}\n".encode()
    # OSError: the reaper is gone (killed by hand); there is nothing more to do
    with _lock, contextlib.suppress(OSError):
        os.write(_start(), line)


def _forget_after_fork() -> None:
    # A forked child must not hold our pipe open (our reaper would wait for it too) nor
    # write to our reaper; it starts its own when it needs one.
    global _pipe, _reaper
    if _pipe is not None:
        with contextlib.suppress(OSError):
            os.close(_pipe)
    _pipe, _reaper = None, None


os.register_at_fork(after_in_child=_forget_after_fork)


def watch(pgid: int) -> None:
    """Kill the process group ``pgid`` when this process ends, however it ends."""
    _send("+g", str(int(pgid)))


def forget(pgid: int) -> None:
    """No longer kill ``pgid`` (it was stopped and waited for: its id may be reused)."""
    if _pipe is not None:
        _send("-g", str(int(pgid)))


def spawn(argv: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen`` in a session of its own, watched: it dies when this process dies.

    Call `forget` with its pid once it has been stopped and waited for.
    """
    popen_kwargs["start_new_session"] = True
    proc: subprocess.Popen[bytes] = subprocess.Popen(list(argv), **popen_kwargs)
    watch(proc.pid)
    return proc


# --------------------------------------------------------------------------- folders


def _start_time(pid: int) -> str | None:
    """The start time of process ``pid`` (clock ticks after boot), or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2 :].split()
    if fields[0] in (b"Z", b"X"):
        return None
    return fields[19].decode()  # field 22 of the whole line


def temp_dir(prefix: str, parent: str | os.PathLike[str] | None = None) -> Path:
    """A new private folder (mode 0700), removed when this process ends, however it ends.

    Folders with the same prefix left by processes that are gone are swept first.
    """
    if "/" in prefix or not prefix:
        raise ValueError(f"prefix must be a non-empty file name, got {prefix!r}")
    where = Path(parent) if parent is not None else Path(tempfile.gettempdir())
    if (prefix, str(where)) not in _swept:
        _swept.add((prefix, str(where)))
        sweep(prefix, where)
    me = os.getpid()
    folder = Path(tempfile.mkdtemp(prefix=f"{prefix}{me}.{_start_time(me) or 0}-", dir=where))
    _send("+d", str(folder))
    return folder


def remove_dir(folder: str | os.PathLike[str]) -> None:
    """Remove a `temp_dir` folder now (unmounting anything inside it first)."""
    path = os.fspath(folder)
    _unmount_below(path)
    shutil.rmtree(path, ignore_errors=True)
    if _pipe is not None:
        _send("-d", path)


def sweep(prefix: str, parent: str | os.PathLike[str] | None = None) -> list[Path]:
    """Remove the ``prefix`` folders in ``parent`` whose owner process is gone; return them.

    Only folders of this user, named as `temp_dir` names them, are touched.
    """
    where = Path(parent) if parent is not None else Path(tempfile.gettempdir())
    pattern = re.compile(re.escape(prefix) + r"(\d+)\.(\d+)-[^/]*$")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(where))
    except OSError:
        return removed
    for entry in entries:
        match = pattern.match(entry.name)
        if match is None:
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.geteuid() or entry.is_symlink():
                continue
        except OSError:
            continue
        pid, started = int(match.group(1)), match.group(2)
        if _start_time(pid) == started or (started == "0" and _start_time(pid) is not None):
            continue  # its owner still runs
        _unmount_below(entry.path)
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


def _unmount_below(path: str) -> None:
    """Detach every mount at or below ``path`` (deepest first); needs the right to unmount."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return
    root = os.path.realpath(path)
    points = []
    for line in lines:
        point = re.sub(r"\\(\d{3})", lambda m: chr(int(m.group(1), 8)), line.split()[4])
        if point == root or point.startswith(root.rstrip("/") + "/"):
            points.append(point)
    if not points:
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for point in sorted(points, key=len, reverse=True):
        libc.umount2(os.fsencode(point), 2)  # MNT_DETACH


# --------------------------------------------------------------------------- main


def _main() -> None:
    """The reaper: collect commands until the pipe closes, then kill and remove."""
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    groups: set[int] = set()
    folders: set[str] = set()
    pending = b""
    while True:
        try:
            chunk = os.read(0, 1 << 16)
        except InterruptedError:
            continue
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            op, _, arg = line.decode().partition(" ")
            value = bytes.fromhex(arg).decode("utf-8", "surrogateescape")
            if op == "+g":
                groups.add(int(value))
            elif op == "-g":
                groups.discard(int(value))
            elif op == "+d":
                folders.add(value)
            elif op == "-d":
                folders.discard(value)
    for group in groups:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)
    for folder in folders:
        _unmount_below(folder)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    _main()

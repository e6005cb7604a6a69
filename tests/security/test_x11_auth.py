"""Another local user on the env's X server: it may neither read the screen nor send input.

An X server's Unix socket (``/tmp/.X11-unix/X<n>``, and its abstract twin) is open to
every local user, so only the display's cookie keeps them off the desktop: with it they
could screenshot the agent's windows, read the task, and inject clicks and keys. Each
``Display`` has its own random MIT-MAGIC-COOKIE-1 in a private 0600 file, and every
client the env starts is given it. Everything here runs as one user (root), so "another
user" is a client without the cookie: no ``XAUTHORITY``, an empty one, a wrong cookie.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import signal
import stat
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import system_deps
from turngym.agents.experts.gui import GUIOracle

pytestmark = [pytest.mark.x11, system_deps.x11()]

HUNG = 30.0
"""Seconds after which a wait is called hung (a bound, not a timing)."""


@pytest.fixture
def display() -> Iterator[Any]:
    from turngym.envs.gui.display import Display

    made = Display((320, 240))
    yield made
    made.close()


def _entry(family: int, address: bytes, number: bytes, name: bytes, data: bytes) -> bytes:
    fields = (address, number, name, data)
    return struct.pack(">H", family) + b"".join(struct.pack(">H", len(f)) + f for f in fields)


def _outsider_files(tmp_path: Path, number: str) -> dict[str, Path | None]:
    """Authority files a client without the cookie might hold: none, empty, a guessed cookie."""
    import socket

    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    wrong = tmp_path / "wrong"
    cookie = secrets.token_bytes(16)
    host = socket.gethostname().encode()
    wrong.write_bytes(
        _entry(256, host, number.encode(), b"MIT-MAGIC-COOKIE-1", cookie)
        + _entry(0xFFFF, b"", b"", b"MIT-MAGIC-COOKIE-1", cookie)
    )
    return {"none": None, "empty": empty, "wrong": wrong}


def _env_without_cookie(tmp_path: Path, authority: Path | None, display: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "XAUTHORITY"}
    env["DISPLAY"] = display
    env["HOME"] = str(tmp_path)  # no ~/.Xauthority to fall back on
    if authority is not None:
        env["XAUTHORITY"] = str(authority)
    return env


@contextlib.contextmanager
def _process_env(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _xlib_connects(env: dict[str, str], name: str) -> bool:
    """Whether python-xlib in this process connects to ``name`` with ``env`` as its environment."""
    from Xlib import display as xdisplay
    from Xlib import error as xerror

    with _process_env(env):
        try:
            dpy = xdisplay.Display(name)
        except (xerror.DisplayError, ConnectionError):
            return False
    dpy.screen().root.get_geometry()  # a round trip: really in
    dpy.close()
    return True


def _mss_connects(env: dict[str, str], name: str) -> bool:
    """Whether mss (libxcb, the screenshots' path) grabs the screen of ``name`` with ``env``."""
    import mss

    with _process_env(env):
        try:
            grabber = mss.MSS(display=name) if hasattr(mss, "MSS") else mss.mss(display=name)
            grabber.grab({"left": 0, "top": 0, "width": 8, "height": 8})
        except Exception:  # mss.exception.ScreenShotError: refused
            return False
    grabber.close()
    return True


def _command_connects(env: dict[str, str], *argv: str) -> bool:
    return subprocess.run(list(argv), env=env, capture_output=True, timeout=HUNG).returncode == 0


def _outsiders(env: dict[str, str], name: str) -> dict[str, Callable[[], bool]]:
    """Ways to reach the screen or the input, each True when the server let it in."""
    ways: dict[str, Callable[[], bool]] = {
        "python-xlib": lambda: _xlib_connects(env, name),
        "mss": lambda: _mss_connects(env, name),
    }
    for tool, args in {
        "xdpyinfo": ("-display", name),
        "xwininfo": ("-root", "-display", name),
        "xdotool": ("mousemove", "5", "5"),
    }.items():
        if shutil.which(tool):
            ways[tool] = functools.partial(_command_connects, env, tool, *args)
    return ways


@pytest.mark.parametrize("held", ["none", "empty", "wrong"])
def test_a_client_without_the_cookie_is_refused(display: Any, tmp_path: Path, held: str) -> None:
    authority = _outsider_files(tmp_path, display.name.lstrip(":"))[held]
    env = _env_without_cookie(tmp_path, authority, display.name)
    let_in = {way: connects() for way, connects in _outsiders(env, display.name).items()}
    assert not any(let_in.values()), f"let in without the cookie: {let_in}"
    # The display's own clients get in, by every one of those ways.
    own = {way: connects() for way, connects in _outsiders(display.env(), display.name).items()}
    assert all(own.values()), f"the display's own clients were refused: {own}"


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


def test_the_cookie_is_fresh_per_display_in_a_private_file_removed_at_close(display: Any) -> None:
    from turngym.envs.gui.display import Display

    path = Path(display.xauthority)
    info, folder = os.lstat(path), os.lstat(path.parent)
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
    assert stat.S_ISDIR(folder.st_mode) and stat.S_IMODE(folder.st_mode) == 0o700
    assert info.st_uid == folder.st_uid == os.geteuid()
    assert display.env()["XAUTHORITY"] == str(path)
    # The server reads this file, and listens on no TCP port.
    argv = _cmdline(display.server.pid)
    assert argv[argv.index("-auth") + 1] == str(path)
    assert argv[argv.index("-nolisten") + 1] == "tcp"

    from Xlib.xauth import Xauthority

    cookies = {e[4] for e in Xauthority(str(path)).entries if e[3] == b"MIT-MAGIC-COOKIE-1"}
    assert len(cookies) == 1 and len(next(iter(cookies))) == 16
    with Display((320, 240)) as other:
        others = {e[4] for e in Xauthority(other.xauthority).entries}
        assert others.isdisjoint(cookies) and Path(other.xauthority).parent != path.parent
    display.close()
    assert not path.exists() and not path.parent.exists()


def test_a_killed_owner_leaves_no_cookie_behind() -> None:
    code = (
        "import os, signal\n"
        "from turngym.envs.gui.display import Display\n"
        "d = Display((320, 240))\n"
        "print(d.xauthority, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HUNG)
    assert out.returncode == -signal.SIGKILL
    path = Path(out.stdout.split()[-1])
    deadline = time.monotonic() + HUNG  # the reaper removes it once the pipe closes
    while path.parent.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not path.parent.exists()


def test_a_desktop_env_works_with_the_cookie_and_refuses_outsiders(tmp_path: Path) -> None:
    import numpy as np

    from turngym.envs.gui.env import DesktopEnv

    env = DesktopEnv("notes-rename")
    try:
        oracle = GUIOracle(env)
        obs, info = env.reset(seed=4)
        assert len(np.unique(obs["screenshot"].reshape(-1, 3), axis=0)) > 10
        assert env.display is not None
        name = env.display.name
        outsider = _env_without_cookie(tmp_path, None, name)
        let_in = {way: connects() for way, connects in _outsiders(outsider, name).items()}
        assert not any(let_in.values()), f"let in without the cookie: {let_in}"
        for _ in range(12):
            obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
            if terminated or truncated:
                break
        assert info["success"] and reward == 1.0
        assert obs["screenshot"].any()
    finally:
        env.close()


def _descendants(pid: int) -> list[tuple[int, str]]:
    out = subprocess.run(["ps", "-eo", "pid,ppid,comm"], capture_output=True, text=True).stdout
    rows = [line.split(None, 2) for line in out.strip().splitlines()[1:]]
    children: dict[int, list[tuple[int, str]]] = {}
    for pid_text, parent, comm in rows:
        children.setdefault(int(parent), []).append((int(pid_text), comm.strip()))
    found: list[tuple[int, str]] = []
    todo = [pid]
    while todo:
        for entry in children.get(todo.pop(), []):
            found.append(entry)
            todo.append(entry[0])
    return found


@pytest.mark.sandbox
@system_deps.bubblewrap()
@system_deps.needs(shutil.which("xterm"), "xterm", "apt-get install xterm")
def test_the_terminals_sandboxed_shell_has_no_cookie() -> None:
    from turngym.envs.gui.env import DesktopEnv

    env = DesktopEnv("terminal-notes")
    try:
        env.reset(seed=0)
        assert env.display is not None
        cookie = env.display.xauthority
        terminal = env._terminal
        assert terminal is not None
        shells = [pid for pid, comm in _descendants(terminal.proc.pid) if comm == "bash"]
        deadline = time.monotonic() + HUNG
        while not shells and time.monotonic() < deadline:
            time.sleep(0.05)
            shells = [pid for pid, comm in _descendants(terminal.proc.pid) if comm == "bash"]
        shell = shells[-1]  # the innermost bash: the agent's interactive shell
        environ = Path(f"/proc/{shell}/environ").read_bytes().split(b"\0")
        assert not any(v.startswith(b"XAUTHORITY=") for v in environ)
        assert not any(cookie.encode() in v for v in environ)
        # Its own mount namespace: the host's /tmp, and so the cookie file, is not there.
        assert not os.path.exists(f"/proc/{shell}/root{cookie}")
    finally:
        env.close()

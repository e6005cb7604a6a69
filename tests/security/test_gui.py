"""Attacks of a desktop (GUI) agent on the host, and the env working on afterwards.

The agent of a hybrid task has a shell (in bubblewrap) whose folder is the episode's
folder, which the apps and the task checks, running on the host as root, read and write.
From that shell it can plant a link to a host file, a FIFO, a 30 GB sparse file, or run
a fork bomb; and the process that holds the env can be killed outright. Where typing the
commands through the env would be slow, a test makes the same syscalls in the episode's
folder itself: the agent's shell could make them all.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests import system_deps
from turngym.agents.experts.gui import GUIOracle
from turngym.agents.experts.gui.screen import Screen, key, type_text
from turngym.envs.gui.apps import settings_file as fmt
from turngym.envs.gui.apps import text_digest
from turngym.envs.gui.env import DesktopEnv
from turngym.envs.gui.tasks import load_task

SECRET = "root:$6$turngym-secret-hash-3f9a1c:19000:0:99999:7:::"
"""What stands in for /etc/shadow: it must never reach the agent."""
HUGE = 256 << 20
"""A sparse file's size: no disk used, but a read of it all costs that much memory."""
HUNG = 60.0
"""Seconds a step may take before the test calls it hung (a bound, not a timing)."""


def needs_x11(test: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a test that needs Xvfb, python-xlib, mss and Tk."""
    return pytest.mark.x11(system_deps.x11()(test))


def needs_terminal(test: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a test that needs the desktop plus xterm and bubblewrap (the terminal)."""
    xterm = system_deps.needs(shutil.which("xterm"), "xterm", "apt-get install xterm")
    return needs_x11(pytest.mark.sandbox(system_deps.bubblewrap()(xterm(test))))


# --------------------------------------------------------------------------- helpers


class Desk:
    """Drives a `DesktopEnv` as an agent would: clicks widgets by name, types, keys."""

    def __init__(self, env: DesktopEnv, seed: int = 0) -> None:
        self.env = env
        self.text, info = env.reset(seed=seed)
        self.seen = [self.text]
        self.screen = Screen(info["widgets"])
        self.info = info

    def __call__(self, action: str) -> tuple[float, bool, bool]:
        self.text, reward, terminated, truncated, self.info = self.env.step(action)
        self.seen.append(self.text)
        self.seen.append(json.dumps(self.env.app_state))
        self.screen = Screen(self.info["widgets"])
        return reward, terminated, truncated

    def click(self, role: str, name: str, **fields: Any) -> None:
        self(self.screen.click(role, name, **fields))

    def shell(self, command: str) -> None:
        """Type ``command`` and Return into the terminal."""
        self(self.screen.click("terminal"))
        self(type_text(command + "\n"))

    def retype(self, entry: str, text: str) -> None:
        """Replace the text of the entry ``entry`` (Tk: Ctrl+A home, Ctrl+K kill line)."""
        self.click("entry", entry)
        self(key("ctrl+a"))
        self(key("ctrl+k"))
        self(type_text(text))

    def everything_seen(self) -> str:
        return "\n".join(self.seen)


def _env(task: str, **kwargs: Any) -> DesktopEnv:
    kwargs.setdefault("screenshot", False)
    return DesktopEnv(task, max_turns=500, max_invalid_actions=None, **kwargs)


@pytest.fixture
def make_env() -> Iterator[Callable[..., DesktopEnv]]:
    made: list[DesktopEnv] = []

    def make(task: str, **kwargs: Any) -> DesktopEnv:
        made.append(_env(task, **kwargs))
        return made[-1]

    yield make
    for env in made:
        env.close()


def poll(predicate: Callable[[], bool], polls: int = 300, every: float = 0.1) -> bool:
    """Whether ``predicate`` holds within ``polls`` checks (``every`` seconds apart)."""
    for _ in range(polls):
        if predicate():
            return True
        time.sleep(every)
    return predicate()


def _unblock(fifo: Path) -> None:
    """Open a FIFO for writing and close it: a reader blocked on it gets end-of-file."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def _bounded(work: Callable[[], Any], fifo: Path | None = None) -> tuple[bool, Any]:
    """Run ``work`` in a thread; (finished within `HUNG` s, its result or exception)."""
    result: list[Any] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as error:  # handed to the test, which reports it
            result.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HUNG)
    finished = not thread.is_alive()
    if not finished and fifo is not None:
        for _ in range(50):  # release the blocked reader so the test can clean up
            _unblock(fifo)
            thread.join(0.2)
            if not thread.is_alive():
                break
    return finished, result[0] if result else None


def _proc_stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return [raw[: raw.index("(")].strip(), *raw[raw.rindex(")") + 2 :].split()]


def _alive(pid: int) -> bool:
    stat = _proc_stat(pid)
    return stat is not None and stat[1] not in ("Z", "X")


def _descendants(root: int) -> list[int]:
    """The pids below ``root`` (its children, theirs...), living or zombie."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _proc_stat(int(entry))
            if stat is not None:
                children.setdefault(int(stat[2]), []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmHWM for {pid}")


def _sparse(path: Path, size: int = HUGE) -> None:
    with open(path, "wb") as out:
        out.truncate(size)


def _socket_file(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))


# --------------------------------------------------------------------------- Notes


@needs_terminal
@pytest.mark.parametrize("link", ["file", "folder"])
def test_notes_never_show_a_host_file_linked_from_the_terminal(make_env, tmp_path, link):
    shadow = tmp_path / "shadow"
    shadow.write_text(SECRET + "\n")
    hostdir = tmp_path / "host-notes"
    hostdir.mkdir()
    (hostdir / "stolen.txt").write_text(SECRET + "\n")
    env = make_env("terminal-notes")
    desk = Desk(env)
    if link == "file":
        desk.shell(f"ln -s {shadow} notes/shadow.txt")
        made = env.workdir / "notes" / "shadow.txt"
    else:
        desk.shell(f"rm -r notes && ln -s {hostdir} notes")
        made = env.workdir / "notes"
    assert poll(made.is_symlink), "the terminal did not make the link"
    desk.click("button", "Refresh", app="notes")
    for title in ("shadow", "stolen"):
        if desk.screen.find("listitem", title):
            desk.click("listitem", title)
            desk.click("text", "Body")
            desk(type_text("pwned"))
            desk.click("button", "Save", app="notes")
    assert SECRET not in desk.everything_seen()
    assert (hostdir / "stolen.txt").read_text() == SECRET + "\n"
    assert list(hostdir.iterdir()) == [hostdir / "stolen.txt"]
    _solve(env, seed=1)  # the env keeps serving honest use


@needs_x11
@pytest.mark.parametrize("target", ["missing", "host file"])
def test_saving_a_note_through_a_link_writes_nothing_outside(make_env, tmp_path, target):
    outside = tmp_path / "outside.txt"
    if target == "host file":
        outside.write_text(SECRET)
    env = make_env("notes-create")
    desk = Desk(env)
    os.symlink(outside, env.workdir / "notes" / "evil.txt")  # the agent's `ln -s`
    desk.click("button", "Refresh")
    desk.click("button", "New")
    desk.retype("Title", "evil")
    desk.click("text", "Body")
    desk(type_text("pwned"))
    desk(key("ctrl+s"))
    assert outside.read_text() == SECRET if target == "host file" else not outside.exists()
    assert (env.workdir / "notes" / "evil.txt").is_symlink()
    status = env.app_state["notes"]["status"]
    assert status.startswith("Error") and "link" in status, status
    # a note renamed onto the link is refused too, and the note is kept
    desk.retype("Title", "honest")
    desk(key("ctrl+s"))
    assert (env.workdir / "notes" / "honest.txt").read_text() == "pwned"
    desk.retype("Title", "evil")
    desk(key("ctrl+s"))
    assert (env.workdir / "notes" / "honest.txt").read_text() == "pwned"
    assert outside.read_text() == SECRET if target == "host file" else not outside.exists()
    assert SECRET not in desk.everything_seen()


@needs_x11
@pytest.mark.parametrize("kind", ["fifo", "huge"])
def test_notes_refuse_special_and_huge_files_and_keep_answering(make_env, kind):
    env = make_env("notes-create")
    desk = Desk(env)
    path = env.workdir / "notes" / "trap.txt"
    {"fifo": os.mkfifo, "huge": _sparse}[kind](path)
    app = env._apps["notes"].proc.pid
    before = _peak_rss_kb(app)

    def look() -> tuple[float, bool, bool]:
        desk.click("button", "Refresh")
        if desk.screen.find("listitem", "trap"):
            desk.click("listitem", "trap")
        return desk(f"click({desk.screen.get('button', 'Save')['index']})")

    finished, result = _bounded(look, fifo=path if kind == "fifo" else None)
    assert finished, "the Notes app hung on the file"
    assert not isinstance(result, BaseException), result
    _, _, truncated = result
    assert not truncated, desk.text  # the app answered: it did not hang or fail
    assert env.app_state["notes"]["notes"].get("trap") is None
    assert _peak_rss_kb(app) - before < 64_000  # it read no more than a bounded amount
    # honest use goes on in the same episode
    desk.click("button", "New")
    desk.retype("Title", "fine")
    desk.click("text", "Body")
    desk(type_text("still working"))
    desk(key("ctrl+s"))
    assert (env.workdir / "notes" / "fine.txt").read_text() == "still working"


# --------------------------------------------------------------------------- Files


def _rows(screen: Screen) -> list[str]:
    return [w["name"] for w in screen.widgets if w.get("list") == "Entries"]


@needs_x11
def test_the_files_app_never_enters_moves_into_or_deletes_through_a_link(make_env, tmp_path):
    host = tmp_path / "host"
    host.mkdir()
    (host / "victim.txt").write_text(SECRET)
    env = make_env("files-move")
    desk = Desk(env)
    files = env.workdir / "files"
    os.symlink(host, files / "portal")
    os.symlink(host / "victim.txt", files / "alias.txt")
    os.mkfifo(files / "pipe")  # the Files check reads the tree after every step
    _socket_file(files / "sock")

    def attack() -> list[str]:
        desk.retype("Name", "fresh")  # the app lists the folder again after a change
        desk.click("button", "New folder")
        for row in [r for r in _rows(desk.screen) if r.startswith(("portal", "alias", "pipe"))]:
            desk.click("listitem", row, list="Entries")
            desk.click("button", "Open")
            for victim in [r for r in _rows(desk.screen) if r.startswith("victim")]:
                desk.click("listitem", victim, list="Entries")
                desk.click("button", "Delete")
            desk.click("button", "Up")
        # move a file into the linked folder, if the Move dialog offers it
        plain = next(
            r for r in _rows(desk.screen) if r.endswith((".txt", ".md", ".csv")) and "ali" not in r
        )
        desk.click("listitem", plain, list="Entries")
        desk.click("button", "Move to...")
        offered = [w["name"] for w in desk.screen.widgets if w.get("list") == "Destination"]
        if "files/portal/" in offered:
            desk.click("listitem", "files/portal/", list="Destination")
            desk.click("button", "Move")
        return offered

    finished, offered = _bounded(attack, fifo=files / "pipe")
    assert finished, "a step hung (the Files check opened the FIFO)"
    assert not isinstance(offered, BaseException), offered
    assert "files/portal/" not in offered
    assert sorted(p.name for p in host.iterdir()) == ["victim.txt"]
    assert (host / "victim.txt").read_text() == SECRET
    assert "victim" not in desk.everything_seen() and SECRET not in desk.everything_seen()
    tree = env.app_state["files"]["tree"]
    assert tree["files/portal"] == "link" and tree["files/pipe"] == "special"
    # the check is not fooled, and the episode goes on
    reward, terminated, truncated = desk("done()")
    assert terminated and not truncated and reward == 0.0


# --------------------------------------------------------------------------- Settings


@needs_x11
def test_settings_never_reads_or_writes_through_a_link(make_env, tmp_path):
    host = tmp_path / "host.json"
    host.write_text(fmt.dumps({**fmt.DEFAULTS, "full_name": SECRET, "email": "a@b.org"}))
    before = host.read_bytes()
    env = make_env("settings-profile")
    desk = Desk(env)
    target = env.workdir / fmt.FILENAME
    target.unlink()
    os.symlink(host, target)
    desk.click("button", "Reset")
    desk.retype("Full name", "Mallory")
    desk.retype("Email", "mallory@example.org")
    desk.click("button", "Save")
    assert host.read_bytes() == before
    assert target.is_symlink()
    assert SECRET not in desk.everything_seen()
    assert "link" in env.app_state["settings"]["status"]


@needs_x11
@pytest.mark.parametrize("kind", ["fifo", "huge", "deep json"])
def test_settings_survives_a_special_or_hostile_settings_file(make_env, kind):
    env = make_env("settings-theme")
    desk = Desk(env)
    target = env.workdir / fmt.FILENAME
    target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "huge":
        _sparse(target)
    else:
        target.write_text("[" * 200_000)
    app = env._apps["settings"].proc.pid
    before = _peak_rss_kb(app)

    def act() -> tuple[float, bool, bool]:
        desk.click("button", "Reset")
        return desk("done()")

    finished, result = _bounded(act, fifo=target if kind == "fifo" else None)
    assert finished, "the Settings app or its check hung"
    assert not isinstance(result, BaseException), result
    reward, terminated, truncated = result
    assert terminated and not truncated and reward == 0.0, desk.text
    assert _peak_rss_kb(app) - before < 64_000
    assert env.app_state["settings"]["saved"] is None


# --------------------------------------------------------------------------- task checks


def _solved(task_name: str, workdir: Path) -> tuple[Any, dict[str, Any], str, dict[str, Any]]:
    """A task whose folder and apps are in its solved state, and the file its check reads."""
    task = load_task(task_name)
    params = task.sample(np.random.default_rng(0))
    task.setup(params, workdir)
    state: dict[str, Any] = {}
    if task_name == "terminal-file":
        target = params["file"]
        (workdir / target).write_text(params["line"] + "\n")
    elif task_name == "terminal-notes":
        target = f"notes/{params['title']}.txt"
        (workdir / target).write_text(f"{params['first']}\n{params['second']}\n")
        # the Notes app opened the shell's first line and saved both
        opened = {params["title"]: text_digest(params["first"] + "\n")}
        saved = {params["title"]: text_digest(f"{params['first']}\n{params['second']}\n")}
        state = {"notes": {"opened": opened, "saved": saved}}
    elif task_name == "files-delete":
        (workdir / params["path"]).unlink()
        target = next(p for p in sorted(params["files"]) if p != params["path"])
    else:
        target = fmt.FILENAME
        (workdir / target).write_text(fmt.dumps({**params["start"], **params["changes"]}))
    assert task.check(params, state, workdir), "the solved state should pass"
    return task, params, target, state


CHECKED = ["terminal-file", "terminal-notes", "files-delete", "settings-theme"]


@pytest.mark.parametrize("task_name", CHECKED)
def test_a_check_never_follows_a_link_to_the_right_answer(tmp_path, task_name):
    workdir = tmp_path / "episode"
    workdir.mkdir()
    task, params, target, state = _solved(task_name, workdir)
    outside = tmp_path / "outside"
    shutil.move(workdir / target, outside)  # the answer lives outside the folder
    os.symlink(outside, workdir / target)
    assert task.check(params, state, workdir) is False


@pytest.mark.parametrize("task_name", CHECKED)
def test_a_check_does_not_hang_on_a_fifo(tmp_path, task_name):
    workdir = tmp_path / "episode"
    workdir.mkdir()
    task, params, target, state = _solved(task_name, workdir)
    (workdir / target).unlink()
    os.mkfifo(workdir / target)
    finished, result = _bounded(lambda: task.check(params, state, workdir), fifo=workdir / target)
    assert finished, "the check blocked on opening the FIFO"
    assert result is False


@pytest.mark.parametrize("task_name", CHECKED)
def test_a_check_reads_a_bounded_amount_of_a_huge_file(tmp_path, task_name):
    workdir = tmp_path / "episode"
    workdir.mkdir()
    task, params, target, state = _solved(task_name, workdir)
    (workdir / target).unlink()
    _sparse(workdir / target)
    tracemalloc.start()
    try:
        result = task.check(params, state, workdir)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result is False
    assert peak < 16 << 20, f"the check held {peak >> 20} MB to read the file"


def test_a_settings_check_survives_deeply_nested_json(tmp_path):
    workdir = tmp_path / "episode"
    workdir.mkdir()
    task, params, target, state = _solved("settings-font", workdir)
    (workdir / target).write_text("[" * 200_000)
    assert task.check(params, state, workdir) is False


# --------------------------------------------------------------------------- the terminal


def _terminal_env(make_env: Callable[..., DesktopEnv], **limits: Any) -> DesktopEnv:
    from turngym.envs.gui.terminal import TerminalLimits

    return make_env("terminal-file", terminal_limits=TerminalLimits(**limits))


def _terminal_processes(env: DesktopEnv, name: str | None = None) -> list[int]:
    """The living processes of the env's terminal (xterm's descendants), by name."""
    assert env._terminal is not None
    found = _descendants(env._terminal.proc.pid)
    return [p for p in found if _alive(p) and (name is None or _comm(p) == name)]


def _file(path: Path) -> Callable[[], bool]:
    return lambda: path.exists() and path.stat().st_size > 0


@needs_terminal
def test_the_terminal_caps_its_processes(make_env):
    env = _terminal_env(make_env, processes=64)
    desk = Desk(env)
    desk.shell("for i in $(seq 300); do sleep 1000 & done")
    counts = []
    for _ in range(100):
        counts.append(len(_terminal_processes(env, "sleep")))
        if len(counts) > 20 and counts[-1] == counts[-20]:  # no more are made
            break
        time.sleep(0.1)
    assert 0 < max(counts) <= 64, counts
    sleeps = _terminal_processes(env, "sleep")
    _solve(env, seed=1)  # the next episode: a fresh terminal, the old processes gone
    assert not any(map(_alive, sleeps))


def _solve(env: DesktopEnv, seed: int) -> None:
    """Play an episode with the oracle: the env serves honest use."""
    oracle = GUIOracle(env)
    obs, info = env.reset(seed=seed)
    for _ in range(20):
        obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
        if terminated or truncated:
            break
    assert info["success"] and reward == 1.0, obs


@needs_terminal
def test_a_memory_hog_in_the_terminal_is_killed(make_env):
    env = _terminal_env(make_env, memory_mb=256)
    desk = Desk(env)
    desk.shell(
        "python3 -c \"b = b'x' * (600 << 20); open('hog.ok', 'w').write('held')\"; echo $? > hog.rc"
    )
    assert poll(_file(env.workdir / "hog.rc"), polls=600), "the hog neither ended nor failed"
    assert not (env.workdir / "hog.ok").exists()
    assert (env.workdir / "hog.rc").read_text().strip() != "0"
    desk.shell("echo alive > alive.txt")
    assert poll(_file(env.workdir / "alive.txt"))


@needs_terminal
def test_a_command_is_stopped_at_its_wall_clock_limit(make_env):
    env = _terminal_env(make_env, wall_s=2)
    desk = Desk(env)
    # (Ctrl+C aborts a whole command line: what comes after a stopped command is not run)
    desk.shell("sleep 100000")
    assert poll(lambda: bool(_terminal_processes(env, "sleep")))
    assert poll(lambda: not _terminal_processes(env, "sleep"), polls=600), "sleep ran on"
    desk.shell("echo $? > slept.rc")
    assert poll(_file(env.workdir / "slept.rc"))
    assert (env.workdir / "slept.rc").read_text().strip() == "130"  # 128 + SIGINT
    assert "wall-clock" in desk.everything_seen()  # the agent is told why
    # a command that ignores Ctrl+C is killed
    desk.shell("bash -c \"trap '' INT; sleep 100000\"")
    assert poll(lambda: bool(_terminal_processes(env, "sleep")))
    assert poll(lambda: not _terminal_processes(env, "sleep"), polls=600), "sleep ran on"
    # a loop in the shell itself (no child to kill) is interrupted as Ctrl+C would
    desk.shell("while :; do :; done")
    desk.shell("echo alive > alive.txt")
    assert poll(_file(env.workdir / "alive.txt"), polls=600), "the shell's own loop ran on"


@needs_terminal
def test_a_process_is_stopped_at_its_cpu_time_limit(make_env):
    env = _terminal_env(make_env, cpu_s=1, wall_s=3600)
    desk = Desk(env)
    desk.shell("python3 -c 'while True: pass'; echo $? > cpu.rc")
    assert poll(_file(env.workdir / "cpu.rc"), polls=900), "the CPU hog was never stopped"
    assert (env.workdir / "cpu.rc").read_text().strip() != "0"


@needs_terminal
def test_files_written_from_the_terminal_are_capped_in_size(make_env):
    env = _terminal_env(make_env, file_mb=4)
    desk = Desk(env)
    desk.shell("head -c 50M /dev/zero > big.bin; echo $? > big.rc")
    assert poll(_file(env.workdir / "big.rc"), polls=600)
    assert (env.workdir / "big.bin").stat().st_size <= 4 << 20
    assert (env.workdir / "big.rc").read_text().strip() != "0"
    # a write by the shell itself fails too, and the shell lives on
    desk.shell("printf '%*s' 6000000 x > big2.bin; echo $? > big2.rc")
    assert poll(_file(env.workdir / "big2.rc"), polls=600), "the shell died writing"
    assert (env.workdir / "big2.bin").stat().st_size <= 4 << 20


@needs_terminal
def test_the_terminal_cannot_fill_the_disk_past_the_folders_quota(make_env):
    import os

    if os.geteuid() != 0:
        pytest.skip("only root may mount the folder's tmpfs quota; each file stays capped")
    env = _terminal_env(make_env, file_mb=4, disk_mb=16)
    desk = Desk(env)
    fill = "for i in $(seq 20); do head -c 3M /dev/zero > f$i.bin; done"
    # the report needs room: one file goes first (the quota held the rest)
    desk.shell(f"{fill}; du -sk . > fill.txt; rm f1.bin; du -sk . > fill.txt; echo ok > fill.rc")
    assert poll(_file(env.workdir / "fill.rc"), polls=600)
    used = sum(p.stat().st_blocks * 512 for p in env.workdir.glob("f*.bin"))
    assert used <= 16 << 20  # 20 files of 3 MB were asked for
    assert int((env.workdir / "fill.txt").read_text().split()[0]) <= 16 << 10
    # the /tmp of the shell is bounded too
    desk.shell("head -c 40M /dev/zero > /tmp/x.bin; ls -s --block-size=1M /tmp/x.bin > tmp.rc")
    assert poll(_file(env.workdir / "tmp.rc"), polls=600)
    assert int((env.workdir / "tmp.rc").read_text().split()[0]) <= 16


# --------------------------------------------------------------------------- process death

_REPO = Path(__file__).resolve().parents[2]


def _start_time(pid: int) -> str | None:
    stat = _proc_stat(pid)
    return None if stat is None else stat[20]


@needs_terminal
def test_nothing_outlives_a_killed_env_process():
    code = (
        "import json, time\n"
        "from turngym.envs.gui.env import DesktopEnv\n"
        "env = DesktopEnv('terminal-notes', screenshot=False)\n"
        "env.reset(seed=0)\n"
        "folders = [str(env.workdir)] + [app._dir for app in env._apps.values()]\n"
        "print(json.dumps(folders), flush=True)\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=_REPO
    )
    children: dict[int, str | None] = {}
    folders: list[str] = []
    try:
        assert proc.stdout is not None
        finished, line = _bounded(proc.stdout.readline)
        assert finished and line, "the env did not start"
        folders = json.loads(line)
        children = {p: _start_time(p) for p in _descendants(proc.pid)}
        names = {_comm(p) for p in children}
        assert {"Xvfb", "xterm", "bash"} <= names, names

        def same(pid: int) -> bool:  # still the process we saw (its pid is not reused)
            return _alive(pid) and _start_time(pid) == children[pid]

        proc.kill()
        proc.wait()
        gone = poll(lambda: not any(map(same, children)) and not any(map(os.path.exists, folders)))
        left = {p: _comm(p) for p in children if same(p)}
        assert gone, f"left behind: processes {left}, folders {[*filter(os.path.exists, folders)]}"
    finally:
        proc.kill()
        for pid in children:
            if _alive(pid) and _start_time(pid) == children[pid]:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


@needs_x11
def test_folders_left_by_a_dead_process_are_swept_at_the_next_start():
    tmp = Path(tempfile.mkdtemp(prefix="tg-sweep-", dir="/tmp"))  # short: sockets go in it
    try:
        dead = subprocess.Popen(["true"])
        dead.wait()
        stale = [tmp / f"turngym-{name}-{dead.pid}.12345-x1y2z3" for name in ("gui", "notes")]
        for folder in stale:
            folder.mkdir()
            (folder / "left.txt").write_text("left over")
        live = tmp / f"turngym-gui-{os.getpid()}.{_start_time(os.getpid())}-mine"
        live.mkdir()
        code = (
            "from turngym.envs.gui.env import DesktopEnv\n"
            "env = DesktopEnv('notes-create', screenshot=False)\n"
            "env.reset(seed=0)\n"
            "env.close()\n"
        )
        env = {**os.environ, "TMPDIR": str(tmp)}
        subprocess.run([sys.executable, "-c", code], env=env, cwd=_REPO, check=True, timeout=300)
        assert [f for f in stale if f.exists()] == []
        assert live.exists()  # its owner (this test) still runs
        assert sorted(tmp.iterdir()) == [live]  # and the env removed its own
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

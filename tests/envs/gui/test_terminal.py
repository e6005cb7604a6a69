"""The terminal's limits where no cgroup can be made: rlimits, and a warning as root."""

from __future__ import annotations

import contextlib
import os
import shutil
import time

import pytest

from tests import system_deps
from turngym.agents.experts.gui.screen import Screen, type_text
from turngym.envs.gui.env import DesktopEnv
from turngym.envs.gui.terminal import TerminalLimits
from turngym.host import cgroups

pytestmark = [
    pytest.mark.x11,
    system_deps.x11(),
    pytest.mark.sandbox,
    system_deps.bubblewrap(),
    system_deps.needs(shutil.which("xterm"), "xterm", "apt-get install xterm"),
]


def test_without_cgroups_the_terminal_falls_back_on_rlimits(monkeypatch):
    class NoCgroups(cgroups.CgroupSet):
        def __init__(self, **limits: int) -> None:
            self.dirs = {}

    monkeypatch.setattr(cgroups, "CgroupSet", NoCgroups)
    env = DesktopEnv(
        "terminal-file", screenshot=False, terminal_limits=TerminalLimits(memory_mb=256)
    )
    try:
        # as root the process count is then unbounded (RLIMIT_NPROC spares root): it warns
        root = os.geteuid() == 0
        warns = pytest.warns(RuntimeWarning, match="pids cgroup")
        with warns if root else contextlib.nullcontext():
            _, info = env.reset(seed=0)
        env.step(Screen(info["widgets"]).click("terminal"))
        hog = "python3 -c \"b = b'x' * (600 << 20); open('hog.ok', 'w')\"; echo $? > hog.rc\n"
        env.step(type_text(hog))
        rc = env.workdir / "hog.rc"
        for _ in range(600):
            if rc.exists() and rc.read_text():
                break
            time.sleep(0.1)
        assert rc.read_text().strip() == "1"  # MemoryError: RLIMIT_AS refused the allocation
        assert not (env.workdir / "hog.ok").exists()
    finally:
        env.close()


def test_the_terminal_looks_the_same_with_or_without_the_pointer_in_it():
    # xterm drew a hollow cursor while it lacked the focus (the pointer's, there is no
    # window manager), a solid one once the FocusIn had been handled: which of the two
    # the first screenshot caught depended on timing, so seeds did not replay
    env = DesktopEnv(task="terminal-file")
    try:
        env.reset(seed=0)
        inside = env.step("move(640, 400)")[0]["screenshot"]
        outside = env.step("move(640, 795)")[0]["screenshot"]  # below the terminal
    finally:
        env.close()
    cell = (slice(0, 40), slice(0, 300))  # the prompt and the cursor
    assert (inside[cell] == outside[cell]).all()

"""The process's Chromium: where it is found, that close() ends it, that a crash recovers."""

from __future__ import annotations

import os
import signal
import time

import psutil
import pytest

from tests import system_deps
from tests.envs.web.toy_site import ToyEnv
from turngym.envs.web.axtree import find_id
from turngym.envs.web.browser import BrowserError, BrowserHost, find_chromium


def _chromium_processes() -> list[psutil.Process]:
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if "chrom" in proc.name().lower() and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.NoSuchProcess:
            continue
    return found


def _browser_process() -> psutil.Process:
    mains = [p for p in _chromium_processes() if not any("--type=" in a for a in p.cmdline())]
    assert len(mains) == 1, mains
    return mains[0]


def test_turngym_chromium_names_the_binary(monkeypatch, tmp_path):
    fake = tmp_path / "my-chromium"
    fake.write_text("#!/bin/sh\n")
    monkeypatch.setenv("TURNGYM_CHROMIUM", str(fake))
    assert find_chromium() == str(fake)
    monkeypatch.setenv("TURNGYM_CHROMIUM", str(tmp_path / "missing"))
    with pytest.raises(BrowserError, match="TURNGYM_CHROMIUM"):
        find_chromium()


def test_a_closed_host_refuses_work_with_a_clear_error():
    host = BrowserHost()

    async def nothing() -> None:
        return None

    with pytest.raises(BrowserError, match="closed"):
        host.run(nothing())


@pytest.mark.browser
@system_deps.chromium()
def test_close_leaves_no_chromium_processes():
    assert _chromium_processes() == []
    envs = [ToyEnv(), ToyEnv()]
    for env in envs:
        env.reset(seed=0)
    assert len(_chromium_processes()) >= 3  # one browser, a renderer per tab, helpers
    envs[0].close()
    assert _chromium_processes()  # the other env still uses the browser
    envs[1].close()
    deadline = time.monotonic() + 5
    while _chromium_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _chromium_processes() == []


@pytest.mark.browser
@system_deps.chromium()
def test_a_killed_browser_truncates_the_episode_and_reset_recovers():
    env = ToyEnv()
    try:
        obs, _ = env.reset(seed=0)
        launches = BrowserHost.shared().launches
        os.kill(_browser_process().pid, signal.SIGKILL)
        time.sleep(0.2)
        with pytest.warns(UserWarning, match="Chromium exited"):
            obs, reward, terminated, truncated, info = env.step(
                f"click({find_id(obs, 'button', 'Add one')})"
            )
        assert truncated and not terminated and reward == 0.0
        assert "Chromium exited" in info["browser_error"] and "reset()" in obs
        obs, info = env.reset(seed=0)  # a new browser
        assert BrowserHost.shared().launches == launches + 1
        obs, *_ = env.step(f"click({find_id(obs, 'button', 'Add one')})")
        assert "Counter: 1" in obs
    finally:
        env.close()


@pytest.mark.browser
@system_deps.chromium()
def test_envs_reset_from_many_threads_share_one_browser():
    from turngym.envs.vector import ThreadedVectorEnv

    first = ToyEnv()  # a browser started and closed before: the host starts again
    first.reset(seed=0)
    first.close()
    vector = ThreadedVectorEnv([ToyEnv] * 4)
    try:
        obs, _ = vector.reset(seed=0)
        assert all("button 'Add one'" in o for o in obs)
        mains = [p for p in _chromium_processes() if not any("--type=" in a for a in p.cmdline())]
        assert len(mains) == 1  # before the fix, each thread launched a Chromium of its own
        actions = [f"click({find_id(o, 'button', 'Add one')})" for o in obs]
        obs, _, _, _, infos = vector.step(actions)
        assert all("Counter: 1" in o for o in obs) and not infos["invalid_action"].any()
    finally:
        vector.close()
    assert _chromium_processes() == [] or time.sleep(1) or _chromium_processes() == []


@pytest.mark.browser
@system_deps.chromium()
def test_cdp_replies_skip_playwrights_conversion_and_match_the_public_call():
    env = ToyEnv()
    try:
        env.reset(seed=0)
        page = env.unwrapped._page
        channel = page._cdp
        assert channel.fast  # the installed Playwright still has the fast path

        async def both() -> tuple:
            fast = await channel.send("Accessibility.getFullAXTree")
            public = await channel.session.send("Accessibility.getFullAXTree")
            return fast, public

        fast, public = env.unwrapped._host.run(both())
        assert fast == public and len(fast["nodes"]) > 5
    finally:
        env.close()

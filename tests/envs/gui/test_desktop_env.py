"""DesktopEnv end to end: observations, input paths, bad actions, faults and cleanup."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests import system_deps
from turngym.agents.experts.gui import GUIOracle
from turngym.envs.gui.env import DesktopEnv
from turngym.envs.gui.terminal import TerminalLimits

pytestmark = [pytest.mark.x11, system_deps.x11()]


def _children_named(*names: str) -> list[int]:
    """Pids of this process's descendants whose command is one of ``names``."""
    out = subprocess.run(["ps", "-eo", "pid,ppid,comm"], capture_output=True, text=True).stdout
    rows = [line.split(None, 2) for line in out.strip().splitlines()[1:]]
    parent = {int(pid): int(ppid) for pid, ppid, _ in rows}
    found = []
    for pid, _, comm in rows:
        p = int(pid)
        while p in parent and p != os.getpid():
            p = parent[p]
        if p == os.getpid() and comm.strip() in names:
            found.append(int(pid))
    return found


def _widget(env, role, name):
    return next(w for w in env.unwrapped.widgets if w["role"] == role and w["name"] == name)


@pytest.fixture
def env():
    made = gym.make("turngym/gui.notes-create-v0", max_turns=40)
    yield made
    made.close()


def test_observation_is_text_and_a_screenshot_of_the_screen(env):
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    assert obs["screenshot"].shape == (800, 1280, 3) and obs["screenshot"].dtype == np.uint8
    assert obs["text"].startswith("Task: In the Notes app")
    assert '] button "Save" (' in obs["text"] and info["widgets"][0]["index"] == 0
    # The screen is not blank: the app's window is drawn on it.
    assert len(np.unique(obs["screenshot"].reshape(-1, 3), axis=0)) > 10


def test_click_by_index_and_by_pixels_reach_the_same_widget(env):
    env.reset(seed=0)
    title = _widget(env, "entry", "Title")
    env.step(f"click({title['index']})")
    env.step('type("first")')
    body = _widget(env, "text", "Body")
    x, y = body["x"] + 10, body["y"] + 10
    env.step(f"click({x}, {y})")
    obs, *_ = env.step('type("second line\\nthird: ünï €")')
    state = env.unwrapped.app_state["notes"]
    assert state["title"] == "first" and state["body"] == "second line\nthird: ünï €"
    assert 'value="second line\\nthird: ünï €" focused' in obs["text"]


def _focus_body_recording_settles(env):
    """Reset, click into the note's body; the list fills with pressed counts at each settle."""
    env.reset(seed=0)
    device = env.unwrapped._input
    settled = []
    real = device.settle
    device.settle = lambda: (settled.append(len(device._pressed)), real())
    body = _widget(env, "text", "Body")
    env.step(f"click({body['x'] + 10}, {body['y'] + 10})")
    return settled


def test_typing_more_distinct_characters_than_spare_keycodes_delivers_every_one(env):
    """Borrowed keycodes are remapped within one call: each remap waits for the apps."""
    settled = _focus_body_recording_settles(env)
    text = "äöüßçøñžĳΩ€łśźżąęćńőűŕĺľťďňšč αβγ"  # 33 symbols the US keymap lacks
    env.step(f'type("{text}")')
    assert env.unwrapped.app_state["notes"]["body"] == text
    assert settled and all(n > 0 for n in settled)


def test_every_remap_after_a_borrowed_press_waits_for_the_apps(env):
    """Not only a reused keycode: any mapping change waits until the apps read the presses."""
    settled = _focus_body_recording_settles(env)
    env.step('type("ü€ñ")')  # three fresh keycodes: two remaps follow a borrowed press
    assert settled == [1, 1]
    assert env.unwrapped.app_state["notes"]["body"] == "ü€ñ"


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("click(1280, 5)", "outside the 1280x800 screen"),
        ("drag(5, 5, 9, -1)", "outside the 1280x800 screen"),
        ("click(999)", "no widget [999] on screen"),
        ('key("ctrl+nosuchkey")', "unknown key 'nosuchkey'"),
        ("type()", "type: missing text"),
        ("scroll(5, 5, 500)", "wheel notches in -50..50"),
        ("rm -rf /", "not a single action call"),
        ("click(__import__('os'))", "must be a literal pixel coordinate"),
    ],
)
def test_bad_actions_are_invalid_with_a_clear_message(env, action, message):
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["invalid_action"] and message in obs["text"] and message in info["invalid_reason"]
    assert reward == 0.0 and not terminated and not truncated


def test_done_and_fail_end_the_episode(env):
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step("done()")
    assert terminated and reward == 0.0 and not info["success"] and "not done" in obs["text"]
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step("FAIL")
    assert terminated and reward == 0.0 and not info["success"]


def test_xdotool_backend_plays_the_same_episode():
    made = gym.make("turngym/gui.notes-rename-v0", input_backend="xdotool")
    try:
        oracle = GUIOracle(made)
        obs, info = made.reset(seed=4)
        for _ in range(12):
            obs, reward, terminated, truncated, info = made.step(oracle.act(obs, info))
            if terminated or truncated:
                break
        assert info["success"] and reward == 1.0
    finally:
        made.close()


@pytest.mark.parametrize("victim", ["app", "xvfb"])
def test_a_killed_app_or_server_truncates_clearly_and_reset_recovers(env, victim):
    env.reset(seed=1)
    inner = env.unwrapped
    if victim == "app":
        os.kill(inner._apps["notes"].proc.pid, signal.SIGKILL)
        expected = "the notes app stopped answering (killed by signal 9)"
    else:
        os.kill(inner.display.server.pid, signal.SIGKILL)
        expected = "went away" if victim == "xvfb" else ""
    time.sleep(0.1)
    obs, reward, terminated, truncated, info = env.step("click(400, 300)")
    assert truncated and not terminated and reward == 0.0
    assert expected in obs["text"] and "reset() restarts the desktop" in obs["text"]
    assert expected in info["gui_error"]
    assert obs["screenshot"].shape == (800, 1280, 3)
    obs, info = env.reset(seed=1)
    assert '] button "Save"' in obs["text"]
    oracle = GUIOracle(env)
    for _ in range(15):
        obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
        if terminated or truncated:
            break
    assert info["success"]


def test_close_leaves_no_server_app_or_terminal_behind():
    made = gym.make("turngym/gui.terminal-notes-v0")
    made.reset(seed=0)
    running = _children_named("Xvfb", "xterm", "python", "python3", "bwrap", "bash")
    assert len(running) >= 4  # Xvfb, the Notes app, xterm, its sandboxed shell
    pids = made.unwrapped.display.pids
    made.close()
    time.sleep(0.2)
    assert not [p for p in pids if os.path.exists(f"/proc/{p}") and _alive(p)]
    assert _children_named("Xvfb", "xterm", "bwrap") == []


def _alive(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(")")[-1].split()[0] != "Z"


def test_an_interpreter_that_exits_without_close_stops_its_server():
    code = (
        "from turngym.envs.gui.env import DesktopEnv\n"
        "env = DesktopEnv('notes-delete')\n"
        "env.reset(seed=0)\n"
        "print(env.display.server.pid, flush=True)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    pid = int(out.stdout.split()[-1])
    time.sleep(0.2)
    assert not (os.path.exists(f"/proc/{pid}") and _alive(pid))


def test_the_server_listens_on_no_tcp_port(env):
    env.reset(seed=0)
    number = int(env.unwrapped.display.name.lstrip(":"))
    with open("/proc/net/tcp") as tcp, open("/proc/net/tcp6") as tcp6:
        listening = {int(line.split()[1].split(":")[1], 16) for line in tcp.readlines()[1:]}
        listening |= {int(line.split()[1].split(":")[-1], 16) for line in tcp6.readlines()[1:]}
    assert 6000 + number not in listening


def test_set_of_marks_tags_the_widgets_a_click_acts_on():
    env = gym.make("turngym/gui.notes-create-v0", set_of_marks=True)
    try:
        obs, info = env.reset(seed=0)
        marks = env.unwrapped.marks
        widgets = info["widgets"]
        assert set(marks) == {w["index"] for w in widgets if w["role"] != "label"}
        assert any(w["role"] == "label" for w in widgets)  # left bare: they take no click
        for w in widgets:
            if w["index"] in marks:
                tag = marks[w["index"]][0]
                x1, y1 = w["x"] + w["w"], w["y"] + w["h"]
                assert not (tag[0] < x1 and w["x"] < tag[2] and tag[1] < y1 and w["y"] < tag[3])
                patch = obs["screenshot"][tag[1] : tag[3], tag[0] : tag[2]].reshape(-1, 3)
                assert (patch == (255, 0, 64)).all(axis=1).mean() > 0.4
        title = _widget(env, "entry", "Title")
        assert title["index"] in marks
        env.step(f"click({title['index']})")  # the marked id clicks the field
        env.step('type("marked")')
        assert env.unwrapped.app_state["notes"]["title"] == "marked"
    finally:
        env.close()


def test_rgb_array_render_and_text_only_mode():
    made = DesktopEnv("notes-delete", screenshot=False, render_mode="rgb_array")
    try:
        obs, _ = made.reset(seed=0)
        assert isinstance(obs, str) and made.observation_space.contains(obs)
        frame = made.render()
        assert frame.shape == (800, 1280, 3) and frame.any()
    finally:
        made.close()


def test_constructor_rejects_bad_arguments():
    with pytest.raises(ValueError, match="unknown GUI task 'nope'; known tasks: "):
        DesktopEnv("nope")
    with pytest.raises(ValueError, match="size must be"):
        DesktopEnv(size=(10, 10))
    with pytest.raises(ValueError, match="input_backend"):
        DesktopEnv(input_backend="magic")
    with pytest.raises(ValueError, match="wait_seconds"):
        DesktopEnv(wait_seconds=-1)
    with pytest.raises(ValueError, match="terminal_limits must be a TerminalLimits"):
        DesktopEnv(terminal_limits={"wall_s": 5})
    with pytest.raises(ValueError, match=r"TerminalLimits\.wall_s must be a number > 0"):
        TerminalLimits(wall_s=0)


@system_deps.needs(shutil.which("twm"), "twm", "apt-get install twm")
def test_a_display_can_run_a_window_manager_and_stops_it():
    from turngym.envs.gui.display import Display, DisplayError

    display = Display((640, 480), window_manager="twm")
    pids = display.pids
    assert len(pids) == 2 and display.alive
    display.close()
    assert display.pids == [] and not any(_alive(p) for p in pids if os.path.exists(f"/proc/{p}"))
    with pytest.raises(DisplayError, match="window manager 'no-such-wm' is not installed"):
        Display(window_manager="no-such-wm")


@pytest.mark.parametrize(
    ("missing", "task", "message"),
    [
        ("xvfb_available", "gui.notes-create-v0", "GUI envs need Xvfb.*apt-get install xvfb"),
        ("terminal_available", "gui.terminal-file-v0", "apt-get install xterm"),
    ],
)
def test_a_missing_program_is_named_when_the_env_is_made(monkeypatch, missing, task, message):
    from turngym.envs.gui import env as gui_env
    from turngym.envs.gui.display import DisplayError

    monkeypatch.setattr(gui_env, missing, lambda: False)
    with pytest.raises(DisplayError, match=message) as caught:
        gym.make(f"turngym/{task}")
    assert "\n" not in str(caught.value)

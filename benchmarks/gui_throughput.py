"""Desktop env speed: click + screenshot steps/s, X server start, memory; ScreenGraph steps/s.

Prints one JSON line per measurement:
- ``xvfb_start``: ``Display()`` until the server reports its display number (median ms);
- ``app_start`` and ``reset``: the Notes app's process until its window is up, and
  ``env.reset`` with the app already running (median ms);
- ``env_click_screenshot``: ``env.step("click(x, y)")`` on the Notes app at 1280x800:
  the XTEST click, the app handling it and redrawing, its widget tree and state over the
  side channel, the screenshot (mss) as an RGB array, the text observation. Clicks
  alternate between the text area and the title field, so every step redraws;
- ``raw_click_screenshot``: the floor under it, an XTEST click plus an mss grab
  converted to RGB, nothing else;
- ``peer_pyautogui``: the same click + screenshot through PyAutoGUI (``pyautogui.click``
  and ``pyautogui.screenshot``, PAUSE=0), what OSWorld's in-VM server runs for each
  action (OSWorld adds a VM and a 2 s sleep a step, left out here). On X11, PyAutoGUI
  takes screenshots with ``scrot`` (Debian package). It runs in ``--peer-python`` (an
  interpreter with pyautogui) and reads ``skipped`` without one;
- ``memory``: proportional set size (PSS) of one env's X server and app processes;
- ``screen_graph``: ``ScreenGraph-v0`` steps/s with valid clicks (no X server).

The summary line checks the issue's targets (>= 300 click + screenshot steps/s at
1280x800, ScreenGraph >= 2,000 steps/s).

    python benchmarks/gui_throughput.py [--steps 600] [--peer-python .venv-peers/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym
import numpy as np

import turngym  # noqa: F401  (registers the ids)
from turngym.envs.gui.apps.client import AppProcess
from turngym.envs.gui.display import Display
from turngym.envs.gui.env import DesktopEnv
from turngym.envs.gui.xtest import ScreenCapture, XTestInput

SIZE = (1280, 800)


def emit(**fields: Any) -> None:
    """Print one JSON measurement line."""
    print(json.dumps({"bench": "gui_throughput", **fields}), flush=True)


def median_ms(samples: list[float]) -> float:
    """The median of seconds, in milliseconds."""
    return round(statistics.median(samples) * 1000, 2)


def start_times(n: int) -> tuple[list[float], list[float]]:
    """Seconds to start Xvfb, and the Notes app on it, ``n`` times each."""
    servers, apps = [], []
    for _ in range(n):
        start = time.perf_counter()
        display = Display(SIZE)
        servers.append(time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as work:
            start = time.perf_counter()
            app = AppProcess(display, "notes", work, "1280x800+0+0")
            apps.append(time.perf_counter() - start)
            app.close()
        display.close()
    return servers, apps


def targets(env: DesktopEnv) -> list[tuple[int, int]]:
    """Two points that redraw when clicked: inside the text area and the title field."""
    body = next(w for w in env.widgets if w["role"] == "text")
    title = next(w for w in env.widgets if w["role"] == "entry")
    return [(body["x"] + 40, body["y"] + 40), (title["x"] + 40, title["y"] + 10)]


def env_steps(steps: int) -> tuple[float, float, dict[str, float]]:
    """Steps/s of ``click(x, y)`` through the env, median reset seconds, memory (MB)."""
    env = DesktopEnv("notes-create", size=SIZE, max_turns=steps + 100)
    try:
        resets = []
        for seed in range(6):
            start = time.perf_counter()
            env.reset(seed=seed)
            resets.append(time.perf_counter() - start)
        points = targets(env)
        for k in range(20):  # warm-up
            env.step("click({}, {})".format(*points[k % 2]))
        start = time.perf_counter()
        for k in range(steps):
            obs, _, terminated, truncated, info = env.step("click({}, {})".format(*points[k % 2]))
            if terminated or truncated or info["invalid_action"]:
                raise SystemExit(f"the benchmark episode ended or failed: {obs['text'][-300:]}")
        rate = steps / (time.perf_counter() - start)
        assert env.display is not None
        memory = {"xvfb_mb": pss_mb(env.display.server.pid)}
        memory["app_mb"] = pss_mb(env._apps["notes"].proc.pid)
        return rate, statistics.median(resets[1:]), memory
    finally:
        env.close()


def raw_steps(steps: int) -> float:
    """Steps/s of an XTEST click plus an mss grab converted to RGB, on the Notes app."""
    display = Display(SIZE)
    with tempfile.TemporaryDirectory() as work:
        app = AppProcess(display, "notes", work, "1280x800+0+0")
        app.request("load", config={})
        cookie = display.xauthority
        device = XTestInput(display.name, xauthority=cookie)
        capture = ScreenCapture(display.name, SIZE, xauthority=cookie)
        try:
            points = [(400, 300), (400, 80)]
            start = time.perf_counter()
            for k in range(steps):
                device.click(*points[k % 2])
                frame = capture.grab()
            assert frame.shape == (SIZE[1], SIZE[0], 3)
            return steps / (time.perf_counter() - start)
        finally:
            device.close()
            capture.close()
            app.close()
            display.close()


PEER = """
import json, sys, time
import numpy as np
import pyautogui
pyautogui.PAUSE = 0
pyautogui.FAILSAFE = False
steps = int(sys.argv[1])
points = [(400, 300), (400, 80)]
start = time.perf_counter()
for k in range(steps):
    pyautogui.click(*points[k % 2])
    frame = np.asarray(pyautogui.screenshot())
assert frame.shape[:2] == (800, 1280), frame.shape
print(json.dumps({"steps_per_s": steps / (time.perf_counter() - start),
                  "version": pyautogui.__version__}))
"""


def peer_steps(python: str | None, steps: int) -> dict[str, Any]:
    """PyAutoGUI's click + screenshot steps/s on the same app, in ``python``."""
    if python is None:
        return {"skipped": "no --peer-python with pyautogui given (see benchmarks/README.md)"}
    display = Display(SIZE)
    with tempfile.TemporaryDirectory() as work:
        app = AppProcess(display, "notes", work, "1280x800+0+0")
        app.request("load", config={})
        try:
            out = subprocess.run(
                [python, "-c", PEER, str(steps)],
                # What an X11 desktop session sets: pyscreeze takes scrot only then.
                # display.env() names the display's cookie file (XAUTHORITY).
                env={**display.env(), "XDG_SESSION_TYPE": "x11"},
                cwd=work,  # pyscreeze writes each screenshot to a file here
                capture_output=True,
                text=True,
                timeout=600,
            )
        finally:
            app.close()
            display.close()
    if out.returncode != 0:
        return {"skipped": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def pss_mb(pid: int) -> float:
    """Proportional set size of a process, MB (``/proc/<pid>/smaps_rollup``)."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def screen_graph_steps(steps: int) -> float:
    """ScreenGraph-v0 steps/s with clicks on its listed widgets (resets included)."""
    env = gym.make("turngym/ScreenGraph-v0")
    rng = np.random.default_rng(0)
    try:
        _, info = env.reset(seed=0)
        done_steps, seed = 0, 0
        start = time.perf_counter()
        while done_steps < steps:
            clicks = [a for a in info["legal_actions"] if a.startswith("click")]
            _, _, terminated, truncated, info = env.step(clicks[int(rng.integers(len(clicks)))])
            done_steps += 1
            if terminated or truncated:
                seed += 1
                _, info = env.reset(seed=seed)
        return steps / (time.perf_counter() - start)
    finally:
        env.close()


def main() -> None:
    """Run every measurement and print the JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=600, help="steps per throughput run")
    parser.add_argument("--starts", type=int, default=10, help="X server / app starts timed")
    parser.add_argument("--peer-python", default=None, help="an interpreter with pyautogui")
    args = parser.parse_args()
    base = {"python": platform.python_version(), "cpus": os.cpu_count(), "size": "1280x800"}

    servers, apps = start_times(args.starts)
    emit(measure="xvfb_start", median_ms=median_ms(servers), n=len(servers), **base)
    emit(measure="app_start", app="notes", median_ms=median_ms(apps), n=len(apps), **base)
    env_rate, reset_s, memory = env_steps(args.steps)
    emit(measure="reset", task="notes-create", median_ms=round(reset_s * 1000, 2), **base)
    emit(measure="env_click_screenshot", steps_per_s=round(env_rate, 1), steps=args.steps, **base)
    raw_rate = raw_steps(args.steps)
    emit(measure="raw_click_screenshot", steps_per_s=round(raw_rate, 1), steps=args.steps, **base)
    peer = peer_steps(args.peer_python, min(args.steps, 200))
    if "steps_per_s" in peer:
        peer["steps_per_s"] = round(peer["steps_per_s"], 1)
    emit(measure="peer_pyautogui", impl="pyautogui", **peer, **base)
    emit(measure="memory", **memory, total_mb=round(sum(memory.values()), 1), **base)
    graph_rate = screen_graph_steps(max(args.steps * 10, 5000))
    emit(measure="screen_graph", steps_per_s=round(graph_rate, 1), size="360x640")
    summary: dict[str, Any] = {
        "env_click_screenshot_ok": env_rate >= 300,
        "screen_graph_ok": graph_rate >= 2000,
    }
    if "steps_per_s" in peer:
        summary["speedup_vs_pyautogui"] = round(env_rate / peer["steps_per_s"], 2)
    emit(measure="summary", **summary)


if __name__ == "__main__":
    main()

"""GUI agents on ScreenGraph-v0 and a desktop task: success rates and a strip of frames.

Plays the scripted expert and a random clicker on ScreenGraph-v0 (drawn screens, no X
server), then, where Xvfb is installed, the oracle on a real desktop task
(``gui.notes-create-v0``). Saves the expert's frames side by side as PNGs in
``runs/gui_demo/`` so you can see what a GUI agent sees.

    python examples/gui_agents.py [--episodes 50]
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import turngym  # noqa: F401  (registers the ids)
from turngym.agents import RandomAgent, make_expert

OUT = Path("runs/gui_demo")


def clicker(seed: int) -> Any:
    """A random agent: one of ``legal_actions`` (a widget click, or done) each turn."""
    return RandomAgent(seed=seed)


def play(env: gym.Env, agent: Any, seed: int, frames: list[np.ndarray] | None = None) -> bool:
    """One episode; returns success. Appends each screenshot to ``frames`` if given."""
    obs, info = env.reset(seed=seed)
    agent.reset(seed)
    while True:
        if frames is not None:
            frames.append(obs["screenshot"])
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            if frames is not None:
                frames.append(obs["screenshot"])
            return bool(info["success"])


def strip(frames: list[np.ndarray], path: Path, height: int = 320) -> None:
    """Save ``frames`` side by side, scaled to ``height`` pixels, as a PNG."""
    from PIL import Image

    images = [Image.fromarray(f) for f in frames]
    scaled = [im.resize((im.width * height // im.height, height)) for im in images]
    sheet = Image.new("RGB", (sum(im.width + 4 for im in scaled), height), "white")
    x = 0
    for im in scaled:
        sheet.paste(im, (x, 0))
        x += im.width + 4
    sheet.save(path)


def main() -> None:
    """Play, print the success rates, save the strips."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=50)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)

    env = gym.make("turngym/ScreenGraph-v0")
    expert = make_expert(env)
    seeds = range(1000, 1000 + args.episodes)  # held out from the seeds tests use
    ok_expert = np.mean([play(env, expert, s) for s in seeds])
    ok_random = np.mean([play(env, clicker(s), s) for s in seeds])
    print(
        f"ScreenGraph-v0  expert success: {ok_expert:.2f}  "
        f"random (a listed action each turn): {ok_random:.2f}"
    )
    frames: list[np.ndarray] = []
    play(env, expert, 7, frames)
    strip(frames, OUT / "screen_graph.png")
    env.close()

    if shutil.which("Xvfb") is None:
        print("gui.notes-create-v0: skipped (install Xvfb: apt-get install xvfb)")
        return
    desk = gym.make("turngym/gui.notes-create-v0")
    try:
        oracle = make_expert(desk)
        wins = [play(desk, oracle, s) for s in range(1000, 1005)]
        print(f"gui.notes-create-v0  oracle success: {np.mean(wins):.2f} on 5 episodes")
        frames = []
        play(desk, oracle, 7, frames)
        strip(frames[-4:], OUT / "notes_create.png", height=400)
    finally:
        desk.close()
    print(f"frames saved in {OUT}/")


if __name__ == "__main__":
    main()

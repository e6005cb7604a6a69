"""ScreenGraph-v0 headroom: how often luck, a map-free explorer and the expert succeed.

Prints one JSON line per setting and agent:
- ``clicks``: a random listed widget each turn (never ``done``), one numpy RNG per
  setting (seed 0) drawn across the episodes in order;
- ``random``: ``RandomAgent(seed=s)`` on seed s, uniform over ``legal_actions`` (the
  widget clicks and ``done``);
- ``explorer``: ``ScreenGraphExplorer``, depth-first from the observations alone;
- ``expert``: ``ScreenGraphExpert``, which reads the app's graph, on held-out seeds
  10,000 and up (``max_clicks``: its longest episode).

Settings: ``default`` (the env's defaults) and ``legacy`` (the defaults before issue 25:
``n_screens=12, max_turns=30, min_depth=2, icons=(2, 6)``). Episodes are bounded by the
env's ``max_turns``, not by time.

    python benchmarks/screen_graph_headroom.py [--episodes 1000]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from turngym.agents import RandomAgent
from turngym.agents.experts.screen_graph import ScreenGraphExpert, ScreenGraphExplorer
from turngym.envs.gui.screen_graph import ScreenGraphEnv

SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    "legacy": {"n_screens": 12, "max_turns": 30, "min_depth": 2, "icons": (2, 6)},
}
"""Setting name -> ``ScreenGraphEnv`` kwargs."""


def play(
    env: ScreenGraphEnv, seed: int, act: Callable[[Any, dict[str, Any]], str]
) -> tuple[bool, int]:
    """One episode: whether it succeeded, and its number of steps."""
    obs, info = env.reset(seed=seed)
    steps = 0
    while True:
        obs, _, terminated, truncated, info = env.step(act(obs, info))
        steps += 1
        if terminated or truncated:
            return bool(info["success"]), steps


def measure(kwargs: dict[str, Any], episodes: int) -> dict[str, dict[str, float]]:
    """Each agent's success rate (and the expert's longest episode) over ``episodes``."""
    env = ScreenGraphEnv(**kwargs)
    rng = np.random.default_rng(0)

    def click(obs: Any, info: dict[str, Any]) -> str:
        clicks = [a for a in info["legal_actions"] if a != "done"]
        return clicks[int(rng.integers(len(clicks)))]

    seeds = range(episodes)
    runs = {
        "clicks": [play(env, s, click) for s in seeds],
        "random": [play(env, s, RandomAgent(seed=s).act) for s in seeds],
        "explorer": [play(env, s, ScreenGraphExplorer().act) for s in seeds],
    }
    expert = ScreenGraphExpert(env)
    runs["expert"] = [play(env, 10_000 + s, expert.act) for s in seeds]
    out = {name: {"success": float(np.mean([ok for ok, _ in r]))} for name, r in runs.items()}
    out["expert"]["max_clicks"] = max(steps for _, steps in runs["expert"])
    return out


def main() -> None:
    """Measure every setting and print the JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=1000)
    args = parser.parse_args()
    for setting, kwargs in SETTINGS.items():
        for agent, figures in measure(kwargs, args.episodes).items():
            line = {"bench": "screen_graph_headroom", "setting": setting, "agent": agent}
            print(json.dumps({**line, **figures, "episodes": args.episodes}), flush=True)


if __name__ == "__main__":
    main()

"""A small demo set of runs and episodes for the viewer's tests, benchmark and screenshots.

``make_demo(folder)`` writes, from real TicTacToe games (``turngym/TicTacToe-v0``
against its random opponent), what the trainers and ``RecordEpisodes`` write: two run
folders with ``metrics.jsonl``, ``config.json`` and ``episodes/eval-step-NNNNNNN.jsonl``
(``EpisodeWriter``, schema v1), plus ``screens/episodes.jsonl``, a real ScreenGraph-v0
episode behind ``ParseAction`` (screenshots, widgets for set-of-marks, full replies),
``screens/transcripts.jsonl``, a ``RecordEpisodes`` line whose screenshot is an
``images/<sha256>.png`` file, and ``swe/episodes.jsonl``, a made-up SWE submit turn
(patch and graded tests as ``SWEEnv`` reports them). No model is trained: the "agent"
picks the opponent-blocking move with a probability that grows with the step.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["make_demo", "tictactoe_episodes"]

PATCH = """diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
"""


def tictactoe_episodes(
    count: int, *, step: int, skill: float, seed: int = 0, invalid_every: int = 0
) -> list[Any]:
    """``count`` real TicTacToe episodes as ``Episode`` records (meta: step, mode, seat).

    Args:
        count: how many episodes (seeds ``seed`` .. ``seed + count - 1``).
        step: the training step they are said to come from.
        skill: the probability the agent plays the expert's move instead of a random one.
        seed: the first seed.
        invalid_every: every this many episodes, the first move is an invalid one (0: never).

    """
    import gymnasium as gym

    from turngym.agents import make_expert
    from turngym.sdk.records import Episode

    env = gym.make("turngym/TicTacToe-v0", opponent="random")
    expert = make_expert(env, "turngym/TicTacToe-v0")
    rng = np.random.default_rng(seed + 7919 * step)
    out = []
    for k in range(count):
        obs, info = env.reset(seed=seed + k)
        expert.reset(seed + k)  # its tie-breaks are seeded too: the same episodes every time

        def choose(obs: Any, info: dict[str, Any], turn: int, k: int = k) -> str:
            legal = info["legal_actions"]
            if invalid_every and k % invalid_every == 0 and turn == 0:
                return "z9"
            if rng.random() < skill:
                return str(expert.act(obs, info))
            return str(legal[int(rng.integers(len(legal)))])

        turns, total, obs, info = _play(env, obs, info, choose)
        out.append(
            Episode(
                "turngym/TicTacToe-v0",
                seed=seed + k,
                turns=turns,
                returns={"agent": total},
                success=bool(info.get("success")),
                final_obs={"agent": obs},
                index=k,
                meta={"step": step, "mode": "greedy", "seat": 0, "opponent": "random"},
            )
        )
    env.close()
    return out


def _play(
    env: Any,
    obs: Any,
    info: dict[str, Any],
    choose: Callable[[Any, dict[str, Any], int], str],
    max_turns: int | None = None,
) -> tuple[list[Any], float, Any, dict[str, Any]]:
    """Step ``env`` from a reset with ``choose(obs, info, turn)`` until it ends.

    Returns the turns, the return, and the last observation and info.
    """
    from turngym.sdk.records import Turn

    turns: list[Turn] = []
    total, done = 0.0, False
    while not done and (max_turns is None or len(turns) < max_turns):
        action = choose(obs, info, len(turns))
        new, reward, terminated, truncated, info = env.step(action)
        turns.append(
            Turn(
                obs=obs,
                action=action,
                reward=float(reward),
                info=dict(info),
                terminated=terminated,
                truncated=truncated,
                agent="agent",
            )
        )
        total += float(reward)
        obs, done = new, terminated or truncated
    return turns, total, obs, info


def _screen(widgets: list[dict[str, Any]], pressed: int | None) -> np.ndarray:
    """A 160x240 RGB 'desktop' with a button drawn where each widget is."""
    image = np.full((160, 240, 3), 236, np.uint8)
    image[:18] = (35, 57, 93)
    for w in widgets:
        colour = (90, 160, 90) if w["index"] == pressed else (200, 210, 230)
        image[w["y"] : w["y"] + w["h"], w["x"] : w["x"] + w["w"]] = colour
    return image


def _screens_episode() -> Any:
    """A real ScreenGraph-v0 episode behind ``ParseAction``: replies with an ``<answer>``.

    The first reply clicks a widget that is not there (an invalid action); then the
    expert's clicks, each wrapped in a short reply the wrapper parses.
    """
    import gymnasium as gym

    from turngym.agents import make_expert
    from turngym.sdk.records import Episode
    from turngym.wrappers import ParseAction

    inner = gym.make("turngym/ScreenGraph-v0")
    expert = make_expert(inner, "turngym/ScreenGraph-v0")
    env = ParseAction(inner)
    obs, info = env.reset(seed=3)

    def reply(obs: Any, info: dict[str, Any], turn: int) -> str:
        action = "click(99)" if turn == 0 else expert.act(obs, info)
        return f"The widget I need is {action}.\n<answer>{action}</answer>"

    turns, total, obs, info = _play(env, obs, info, reply, max_turns=12)
    env.close()
    return Episode(
        "turngym/ScreenGraph-v0",
        seed=3,
        turns=turns,
        returns={"agent": total},
        success=bool(info.get("success")),
        final_obs={"agent": obs},
        meta={"note": "a real ScreenGraph-v0 episode (demo)"},
    )


def _swe_episode() -> Any:
    """A made-up SWE submit turn: the patch and graded tests in info as SWEEnv writes them."""
    from turngym.sdk.records import Episode, Turn

    turns = [
        Turn(
            obs="Task: add() subtracts. Fix calc.py.",
            action='str_replace("calc.py", ...)',
            reward=0.0,
            agent="agent",
            info={"tool": "str_replace", "tool_error": False},
        ),
        Turn(
            obs="Edited calc.py.",
            action="submit()",
            reward=1.0,
            agent="agent",
            terminated=True,
            info={
                "tool": "submit",
                "tool_error": False,
                "resolved": True,
                "tests": {"test_calc.py::test_add": "PASSED", "test_calc.py::test_sub": "PASSED"},
                "patch": PATCH,
                "invalid_action": False,
                "success": True,
            },
        ),
    ]
    return Episode(
        "turngym/SWE-Lite-v0",
        seed=0,
        turns=turns,
        returns={"agent": 1.0},
        success=True,
        meta={"note": "made up for the demo: no sandbox ran"},
    )


def _transcript(folder: Path) -> None:
    """A ``RecordEpisodes`` line whose screenshot is a PNG file beside it."""
    from turngym.sdk.episode_values import png_bytes

    widgets = [{"index": 1, "role": "link", "name": "Next", "x": 30, "y": 30, "w": 80, "h": 30}]
    data = png_bytes(_screen(widgets, None))
    name = f"images/{hashlib.sha256(data).hexdigest()}.png"
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    shot = {"__turngym__": "image", "path": name, "shape": [160, 240, 3]}
    line = {
        "env_id": "turngym/WebShop-v0",
        "seed": 5,
        "options": None,
        "observation": {"text": "Page 1. [1] Next", "screenshot": shot},
        "info": {"widgets": widgets},
        "steps": [
            {
                "action": "click(1)",
                "observation": {"text": "Page 2", "screenshot": shot},
                "reward": 1.0,
                "terminated": True,
                "truncated": False,
                "info": {"success": True, "invalid_action": False, "widgets": widgets},
            }
        ],
        "return": 1.0,
        "length": 1,
    }
    with open(folder / "transcripts.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def make_demo(
    folder: str | Path,
    *,
    runs: tuple[str, ...] = ("grpo-tictactoe", "grpo-tictactoe-lr2"),
    eval_steps: tuple[int, ...] = (0, 20, 40),
    episodes: int = 6,
) -> Path:
    """Write the demo set under ``folder`` (made if missing); returns ``folder / "runs"``."""
    from turngym.sdk.episode_files import EpisodeWriter

    root = Path(folder)
    for r, name in enumerate(runs):
        run = root / "runs" / name
        (run / "episodes").mkdir(parents=True, exist_ok=True)
        config = {
            "trainer": "grpo",
            "env_id": "turngym/TicTacToe-v0",
            "model": "tiny",
            "lr": 1e-4 * (r + 1),
            "steps": max(eval_steps),
        }
        (run / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        last = max(eval_steps)
        with open(run / "metrics.jsonl", "w", encoding="utf-8") as f:
            for step in range(last + 1):
                progress = step / max(last, 1)
                row: dict[str, Any] = {
                    "step": step,
                    "reward": round(-0.4 + (1.1 + 0.2 * r) * progress + 0.1 * math.sin(step), 4),
                    "loss": round(1.0 / (1 + step * (1 + r)), 4),
                }
                if step in eval_steps:
                    row["eval_success"] = round(min(0.2 + (0.6 + 0.2 * r) * progress, 1.0), 4)
                f.write(json.dumps(row) + "\n")
        for step in eval_steps:
            skill = min(0.1 + (0.8 + 0.1 * r) * step / max(last, 1), 1.0)
            eps = tictactoe_episodes(episodes, step=step, skill=skill, invalid_every=4)
            with EpisodeWriter(run / "episodes" / f"eval-step-{step:07d}.jsonl") as writer:
                writer.write(eps)
    screens = root / "screens"
    with EpisodeWriter(screens / "episodes.jsonl") as writer:
        writer.write([_screens_episode()])
    with EpisodeWriter(root / "swe" / "episodes.jsonl") as writer:
        writer.write([_swe_episode()])
    _transcript(screens)
    return root / "runs"

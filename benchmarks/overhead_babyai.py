"""Steps/s of minigrid's BabyAI levels, native next to turngym's ``babyai.<Level>-v0``.

``pairs(quick)`` gives ``(name, native, adapter)`` triples for
``benchmarks/adapter_overhead.py``: each callable plays ``steps`` steps of uniformly
random legal play from ``seed`` (resetting at episode end) and returns the steps done.

- native: ``gym.make("BabyAI-<Level>-v0")``, a random action number out of the 7. minigrid
  has no text rendering of its own (its observation is an encoded 7x7 image and the
  mission string), so the native side renders nothing: the adapter's overhead here is
  the text rendering plus the string handling, against a text-free env.
- adapter: ``gym.make("turngym/babyai.<Level>-v0")``, a random choice among
  ``info["legal_actions"]``.

Run it to print one JSON line per pair (the best of ``--repeat`` interleaved passes),
with a third figure: the adapter with its text rendering switched off, which splits the
overhead into what the text costs and what the rest costs.

    python benchmarks/overhead_babyai.py [--quick] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).parent))  # random_play.py beside it
from random_play import play_legal

_LEVELS = ("GoToRedBall", "GoToLocal", "KeyCorridorS3R3", "BossLevel")


def native(level: str) -> Callable[[int, int], int]:
    """Random play on minigrid's own ``BabyAI-<Level>-v0``."""

    made: list[Any] = []  # the env, made at the first call and kept

    def play(steps: int, seed: int) -> int:
        if not made:
            import minigrid  # noqa: F401  (registers the BabyAI ids)

            from turngym.envs.adapters.babyai_levels import LEVELS, minigrid_id

            version = {name: v for name, v, _ in LEVELS}[level]
            made.append(gym.make(minigrid_id(level, version)))
        env = made[0]
        rng = random.Random(seed)
        episode = 0
        env.reset(seed=seed)
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(rng.randrange(7))
            if terminated or truncated:
                episode += 1
                env.reset(seed=seed + episode)
        return steps

    return play


def adapter(level: str, text: bool = True) -> Callable[[int, int], int]:
    """Random legal play on ``turngym/babyai.<Level>-v0`` (``text=False``: no rendering)."""

    made: list[Any] = []  # the env, made at the first call and kept

    def play(steps: int, seed: int) -> int:
        if not made:
            import turngym  # noqa: F401

            made.append(gym.make(f"turngym/babyai.{level}-v0"))
            if not text:  # measurement only: what the env costs without its sentences
                made[0].unwrapped._describe = lambda obs: []
        return play_legal(made[0], steps, seed, close=False)

    return play


def pairs(quick: bool) -> list[tuple[str, Callable[[int, int], int], Callable[[int, int], int]]]:
    """``(name, native, adapter)`` for a small, a one-room, a maze and the boss level."""
    levels = _LEVELS[:2] if quick else _LEVELS
    return [(f"babyai.{level}", native(level), adapter(level)) for level in levels]


def _best(play: Callable[[int, int], int], steps: int, seed: int) -> float:
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # minigrid's "Sampling rejected" lines
        done = play(steps, seed)
    return done / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    """Print one JSON line per pair: steps/s native, adapter, adapter without text."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two levels, fewer steps")
    parser.add_argument("--steps", type=int, default=0, help="steps per pass (default 20,000)")
    parser.add_argument("--repeat", type=int, default=3, help="passes; the fastest is kept")
    args = parser.parse_args(argv)
    steps = args.steps or (2_000 if args.quick else 20_000)
    for name, play_native, play_adapter in pairs(args.quick):
        level = name.removeprefix("babyai.")
        runs: dict[str, list[float]] = {"native": [], "adapter": [], "no_text": []}
        no_text = adapter(level, text=False)
        for play in (play_native, play_adapter, no_text):  # imports and envs, untimed
            _best(play, 20, 0)
        for _ in range(args.repeat):  # interleaved, so load slows all three alike
            runs["native"].append(_best(play_native, steps, 0))
            runs["adapter"].append(_best(play_adapter, steps, 0))
            runs["no_text"].append(_best(no_text, steps, 0))
        best: dict[str, Any] = {k: max(v) for k, v in runs.items()}
        print(
            json.dumps(
                {
                    "pair": name,
                    "steps": steps,
                    "native_steps_per_s": round(best["native"]),
                    "adapter_steps_per_s": round(best["adapter"]),
                    "adapter_without_text_steps_per_s": round(best["no_text"]),
                    "overhead": round(best["native"] / best["adapter"] - 1, 3),
                    "overhead_without_text": round(best["native"] / best["no_text"] - 1, 3),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()

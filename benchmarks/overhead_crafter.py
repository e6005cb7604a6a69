"""Steps/s of Crafter, native next to turngym's ``crafter-v0``.

``pairs(quick)`` gives ``(name, native, adapter)`` triples for
``benchmarks/adapter_overhead.py``: each callable plays ``steps`` steps of uniformly
random legal play from ``seed`` (resetting at episode end) and returns the steps done.

- native: ``crafter.Env(seed=seed)``, a random action number out of the 17, episode k in
  the world ``crafter.Env(seed=seed + k)`` starts (as the adapter's resets). Crafter has
  no text rendering of its own (its observation is a 64x64 image, which it draws on
  every step), so the adapter's overhead is the text rendering plus the string
  handling, against a text-free env.
- adapter: ``gym.make("turngym/crafter-v0")``, a random choice among
  ``info["legal_actions"]``; each reset reseeds its ``crafter.Env`` (so seeds replay).

A random agent dies after a few hundred steps, and generating a world costs about as
much as a few hundred steps, so resets weigh in both columns: the pairs are the default
64 x 64 world and a 32 x 32 one (``area=(32, 32)``, Crafter's own parameter).

Run it to print one JSON line per pair (the best of ``--repeat`` interleaved passes),
with a third figure: the adapter with its text rendering switched off.

    python benchmarks/overhead_crafter.py [--quick] [--repeat 3]
"""

from __future__ import annotations

import argparse
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

_AREAS = ((64, 64), (32, 32))


def native(area: tuple[int, int]) -> Callable[[int, int], int]:
    """Random play on ``crafter.Env(area=area, seed=seed)``; episode k plays seed + k."""

    made: list[Any] = []  # the env, made at the first call and kept

    def play(steps: int, seed: int) -> int:
        if not made:
            import crafter

            made.append(crafter.Env(area=area, seed=seed))
        env = made[0]
        rng = random.Random(seed)  # the adapter's random.choice of 17 draws the same numbers
        episode = 0
        env._seed, env._episode = seed, 0  # the world crafter.Env(seed=seed) starts
        env.reset()
        for _ in range(steps):
            _, _, done, _ = env.step(rng.randrange(17))
            if done:
                # The world crafter.Env(seed=seed + episode) starts, as the adapter's
                # reset(seed=seed + episode) plays, so both sides play the same worlds
                # (a new Env would reload its textures, which the adapter does not).
                episode += 1
                env._seed, env._episode = seed + episode, 0
                env.reset()
        return steps

    return play


def adapter(area: tuple[int, int], text: bool = True) -> Callable[[int, int], int]:
    """Random legal play on ``turngym/crafter-v0`` (``text=False``: no rendering)."""

    made: list[Any] = []  # the env, made at the first call and kept

    def play(steps: int, seed: int) -> int:
        if not made:
            import turngym  # noqa: F401

            made.append(gym.make("turngym/crafter-v0", area=area))
            if not text:  # measurement only: what the env costs without its sentences
                made[0].unwrapped._describe = lambda: ""
        return play_legal(made[0], steps, seed, close=False)

    return play


def _name(area: tuple[int, int]) -> str:
    return f"crafter-v0 area={area[0]}x{area[1]}"


def pairs(quick: bool) -> list[tuple[str, Callable[[int, int], int], Callable[[int, int], int]]]:
    """``(name, native, adapter)`` for the default world and a small one (quick: small only)."""
    areas = _AREAS[1:] if quick else _AREAS
    return [(_name(area), native(area), adapter(area)) for area in areas]


def _rate(play: Callable[[int, int], int], steps: int, seed: int) -> float:
    start = time.perf_counter()
    done = play(steps, seed)
    return done / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    """Print one JSON line per pair: steps/s native, adapter, adapter without text."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small world, fewer steps")
    parser.add_argument("--steps", type=int, default=0, help="steps per pass (default 5,000)")
    parser.add_argument("--repeat", type=int, default=3, help="passes; the fastest is kept")
    args = parser.parse_args(argv)
    steps = args.steps or (500 if args.quick else 5_000)
    for area in _AREAS[1:] if args.quick else _AREAS:
        runs: dict[str, list[float]] = {"native": [], "adapter": [], "no_text": []}
        sides = {"native": native(area), "adapter": adapter(area), "no_text": adapter(area, False)}
        for play in sides.values():  # imports, envs and texture caches, untimed
            play(20, 0)
        for _ in range(args.repeat):  # interleaved, so load slows all three alike
            for side, play in sides.items():
                runs[side].append(_rate(play, steps, 0))
        best: dict[str, Any] = {k: max(v) for k, v in runs.items()}
        print(
            json.dumps(
                {
                    "pair": _name(area),
                    "steps": steps,
                    "native_steps_per_s": round(best["native"], 1),
                    "adapter_steps_per_s": round(best["adapter"], 1),
                    "adapter_without_text_steps_per_s": round(best["no_text"], 1),
                    "overhead": round(best["native"] / best["adapter"] - 1, 3),
                    "overhead_without_text": round(best["native"] / best["no_text"] - 1, 3),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()

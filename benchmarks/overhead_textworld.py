"""Steps/s of TextWorld itself next to turngym's ``textworld.<kind>-v0`` on the same game.

``pairs(quick)`` gives ``(name, native, adapter)`` for ``benchmarks/adapter_overhead.py``:
each callable plays ``steps`` steps of uniformly random admissible commands (drawn with
``random.Random(seed)``), resetting at the end of an episode or after 100 steps (the
adapter's ``max_episode_steps``), and returns the steps done. Both play game 0 of each
kind's default settings, made (or read from ``$TURNGYM_CACHE``) before timing starts:

- native: ``textworld.start(game, request_infos=EnvInfos(admissible_commands=True))``
  and ``env.step(command)``, the feedback text being what a language agent reads;
- adapter: ``gym.make("turngym/textworld.<kind>-v0", num_games=1)`` (standard wrappers
  included) stepped with a command from ``info["legal_actions"]``.

    python benchmarks/overhead_textworld.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym

import turngym  # noqa: F401  (registers the ids)
from turngym.envs.adapters.textworld_env import KINDS, TextWorldEnv
from turngym.envs.adapters.textworld_games import game_file

EPISODE_STEPS = 100


def _game(kind: str) -> Path:
    import textworld

    env = TextWorldEnv(kind, num_games=1)
    return game_file(kind, env.settings, 0, textworld.__version__)


def _native(kind: str) -> Callable[[int, int], int]:
    path = str(_game(kind))

    def play(steps: int, seed: int) -> int:
        import textworld

        rng = random.Random(seed)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*is not fully supported")
            env = textworld.start(path, request_infos=textworld.EnvInfos(admissible_commands=True))
            state = env.reset()
        done, length = False, 0
        for _ in range(steps):
            if done or length >= EPISODE_STEPS:
                state, done, length = env.reset(), False, 0
            state, _, done = env.step(rng.choice(state.admissible_commands))
            length += 1
        env.close()
        return steps

    return play


def _adapter(kind: str) -> Callable[[int, int], int]:
    _game(kind)

    def play(steps: int, seed: int) -> int:
        rng = random.Random(seed)
        env = gym.make(f"turngym/textworld.{kind}-v0", num_games=1)
        _, info = env.reset(seed=seed)
        for _ in range(steps):
            _, _, terminated, truncated, info = env.step(rng.choice(info["legal_actions"]))
            if terminated or truncated:
                _, info = env.reset()
        env.close()
        return steps

    return play


def pairs(quick: bool) -> list[tuple[str, Callable[[int, int], int], Callable[[int, int], int]]]:
    """``(name, native, adapter)`` per kind (all three kinds; ``quick`` changes nothing)."""
    return [(f"textworld.{kind}", _native(kind), _adapter(kind)) for kind in KINDS]


def main() -> None:
    """Time every pair and print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps")
    parser.add_argument("--steps", type=int, default=None, help="steps per timing")
    parser.add_argument("--rounds", type=int, default=3, help="timings per side (best kept)")
    args = parser.parse_args()
    steps = args.steps or (300 if args.quick else 2000)
    for name, native, adapter in pairs(args.quick):
        rates = {"native": 0.0, "adapter": 0.0}
        for play in (native, adapter):
            play(20, 1)  # warm up: load the game and the interpreter
        for _ in range(args.rounds):  # interleaved, best of each: the host is shared
            for side, play in (("native", native), ("adapter", adapter)):
                start = time.perf_counter()
                done = play(steps, 0)
                rates[side] = max(rates[side], done / (time.perf_counter() - start))
        overhead = rates["native"] / rates["adapter"] - 1
        print(
            json.dumps(
                {
                    "pair": name,
                    "steps": steps,
                    "rounds": args.rounds,
                    "native_steps_per_s": round(rates["native"], 1),
                    "adapter_steps_per_s": round(rates["adapter"], 1),
                    "overhead": round(overhead, 3),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()

"""Steps/s of Reasoning Gym itself next to turngym's ``reasoning_gym.<task>-v0``.

``pairs(quick)`` gives ``(name, native, adapter)`` for ``benchmarks/adapter_overhead.py``:
each callable plays ``steps`` answers, an episode being one question with up to 3
answers, each answer the entry's own or a wrong ``"0"`` drawn with
``random.Random(seed)`` (the legal play of a free-text env: any answer), and returns the
answers given:

- native: ``reasoning_gym.create_dataset(task, seed=..., size=1)[0]`` per question (the
  seed the adapter draws for the same reset seed, so both ask the same questions: some
  cost far more to make than others) and ``dataset.score_answer(answer, entry)``;
- adapter: ``gym.make("turngym/reasoning_gym.<task>-v0")`` (standard wrappers included),
  ``reset`` per question and ``step(answer)`` per answer.

    python benchmarks/overhead_reasoning_gym.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

import gymnasium as gym
from gymnasium.utils import seeding

import turngym  # noqa: F401  (registers the ids)

ATTEMPTS = 3
TASKS = ("basic_arithmetic", "countdown", "spiral_matrix", "word_sorting")
"""A plain scorer, a sympy-parsing one, an eval-ing one (both behind the answer guard),
and a string task."""


def _native(task: str) -> Callable[[int, int], int]:
    def play(steps: int, seed: int) -> int:
        import reasoning_gym

        rng = random.Random(seed)
        done = 0
        while done < steps:
            # the question the adapter asks for this reset seed (question costs vary a lot)
            generator, _ = seeding.np_random(rng.randrange(2**31 - 1))
            entry_seed = int(generator.integers(2**31 - 1))
            data = reasoning_gym.create_dataset(task, seed=entry_seed, size=1)
            entry = data[0]
            for _ in range(ATTEMPTS):
                answer = rng.choice([str(entry["answer"]), "0"])
                done += 1
                if data.score_answer(answer, entry) >= 1.0 or done >= steps:
                    break
        return done

    return play


def _adapter(task: str) -> Callable[[int, int], int]:
    def play(steps: int, seed: int) -> int:
        rng = random.Random(seed)
        env = gym.make(f"turngym/reasoning_gym.{task}-v0", attempts=ATTEMPTS)
        done = 0
        while done < steps:
            env.reset(seed=rng.randrange(2**31 - 1))
            entry = env.unwrapped.entry
            for _ in range(ATTEMPTS):
                answer = rng.choice([str(entry["answer"]), "0"])
                done += 1
                _, _, terminated, truncated, _ = env.step(answer)
                if terminated or truncated or done >= steps:
                    break
        env.close()
        return done

    return play


def pairs(quick: bool) -> list[tuple[str, Callable[[int, int], int], Callable[[int, int], int]]]:
    """``(name, native, adapter)`` per task of ``TASKS`` (two of them when ``quick``)."""
    tasks = TASKS[:2] if quick else TASKS
    return [(f"reasoning_gym.{task}", _native(task), _adapter(task)) for task in tasks]


def main() -> None:
    """Time every pair and print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer tasks and steps")
    parser.add_argument("--steps", type=int, default=None, help="answers per timing")
    parser.add_argument("--rounds", type=int, default=3, help="timings per side (best kept)")
    args = parser.parse_args()
    steps = args.steps or (300 if args.quick else 2000)
    for name, native, adapter in pairs(args.quick):
        rates = {"native": 0.0, "adapter": 0.0}
        for play in (native, adapter):
            play(20, 1)  # warm up: imports and data files
        for _ in range(args.rounds):  # interleaved, best of each: the host is shared
            for side, play in (("native", native), ("adapter", adapter)):
                start = time.perf_counter()
                done = play(steps, 0)
                rates[side] = max(rates[side], done / (time.perf_counter() - start))
        print(
            json.dumps(
                {
                    "pair": name,
                    "steps": steps,
                    "rounds": args.rounds,
                    "native_steps_per_s": round(rates["native"], 1),
                    "adapter_steps_per_s": round(rates["adapter"], 1),
                    "overhead": round(rates["native"] / rates["adapter"] - 1, 3),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()

"""Steps/s of TextWorld and Reasoning Gym themselves next to turngym's adapters over them.

``pairs(quick)`` gives ``(name, native, adapter)`` for ``benchmarks/adapter_overhead.py``
(which reads the suite ``reasoning_gym`` from this module too): each callable plays
``steps`` steps of uniformly random legal play from ``seed`` and returns the steps done.
Pairs of a library that is not installed are left out.

TextWorld, one pair per kind: uniformly random admissible commands (drawn with
``random.Random(seed)``), resetting at the end of an episode or after 100 steps (the
adapter's ``max_episode_steps``). Both play game 0 of each kind's default settings, made
(or read from ``$TURNGYM_CACHE``) before timing starts:

- native: ``textworld.start(game, request_infos=EnvInfos(admissible_commands=True))``
  and ``env.step(command)``, the feedback text being what a language agent reads;
- adapter: ``gym.make("turngym/textworld.<kind>-v0", num_games=1)`` (standard wrappers
  included) stepped with a command from ``info["legal_actions"]``.

Reasoning Gym, one pair per task of ``RG_TASKS``: an episode is one question with up to 3
answers, each the entry's own answer or a wrong ``"0"`` drawn with ``random.Random(seed)``
(the legal play of a free-text env: any answer):

- native: ``reasoning_gym.create_dataset(task, seed=..., size=1)[0]`` per question (the
  seed the adapter draws for the same reset seed, so both ask the same questions: some
  cost far more to make than others) and ``dataset.score_answer(answer, entry)``;
- adapter: ``gym.make("turngym/reasoning_gym.<task>-v0")``, ``reset`` per question and
  ``step(answer)`` per answer.

    python benchmarks/overhead_textworld.py [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium.utils import seeding

import turngym  # noqa: F401  (registers the ids)
from turngym.envs.adapters.textworld_env import KINDS, TextWorldEnv
from turngym.envs.adapters.textworld_games import game_file

sys.path.insert(0, str(Path(__file__).parent))  # random_play.py beside it
from random_play import play_legal

EPISODE_STEPS = 100


def _game(kind: str) -> Path:
    import textworld

    env = TextWorldEnv(kind, num_games=1)
    return game_file(kind, env.settings, 0, textworld.__version__)


def _native(kind: str) -> Callable[[int, int], int]:
    path = str(_game(kind))
    made: list[Any] = []  # the env, started at the first call and kept

    def play(steps: int, seed: int) -> int:
        import textworld

        rng = random.Random(seed)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*is not fully supported")
            if not made:
                infos = textworld.EnvInfos(admissible_commands=True)
                made.append(textworld.start(path, request_infos=infos))
            env = made[0]
            state = env.reset()
        done, length = False, 0
        for _ in range(steps):
            if done or length >= EPISODE_STEPS:
                state, done, length = env.reset(), False, 0
            state, _, done = env.step(rng.choice(state.admissible_commands))
            length += 1
        return steps

    return play


def _adapter(kind: str) -> Callable[[int, int], int]:
    _game(kind)
    made: list[Any] = []  # the env, made at the first call and kept

    def play(steps: int, seed: int) -> int:
        if not made:
            made.append(gym.make(f"turngym/textworld.{kind}-v0", num_games=1))
        return play_legal(made[0], steps, seed, reseed=False, close=False)

    return play


WALL_CLOCK = frozenset(
    {f"textworld.{kind}" for kind in KINDS}
    | {"reasoning_gym.countdown", "reasoning_gym.spiral_matrix"}
)
"""Pairs ``adapter_overhead.py`` times in wall-clock time: TextWorld's interpreter may run
in a process of its own, and the adapter scores these tasks in a worker process."""

ATTEMPTS = 3
RG_TASKS = ("basic_arithmetic", "countdown", "spiral_matrix", "word_sorting")
"""A plain scorer, a sympy-parsing one, an eval-ing one (both behind the answer guard),
and a string task."""


def _rg_native(task: str) -> Callable[[int, int], int]:
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


def _rg_adapter(task: str) -> Callable[[int, int], int]:
    made: list[Any] = []  # the env (and its scorer's worker), made at the first call and kept

    def play(steps: int, seed: int) -> int:
        rng = random.Random(seed)
        if not made:
            made.append(gym.make(f"turngym/reasoning_gym.{task}-v0", attempts=ATTEMPTS))
        env = made[0]
        inner = env.unwrapped  # read once: the benchmark peeks at the answer, agents do not
        done = 0
        while done < steps:
            env.reset(seed=rng.randrange(2**31 - 1))
            entry = inner.entry
            for _ in range(ATTEMPTS):
                answer = rng.choice([str(entry["answer"]), "0"])
                done += 1
                _, _, terminated, truncated, _ = env.step(answer)
                if terminated or truncated or done >= steps:
                    break
        return done

    return play


def pairs(quick: bool) -> list[tuple[str, Callable[[int, int], int], Callable[[int, int], int]]]:
    """``(name, native, adapter)``: TextWorld's kinds, then Reasoning Gym's ``RG_TASKS``.

    ``quick``: one of each (coin_collector, basic_arithmetic).

    Raises:
        ImportError: neither library is installed.

    """
    found: list[tuple[str, Callable[[int, int], int], Callable[[int, int], int]]] = []
    if importlib.util.find_spec("textworld") is not None:
        kinds = ("coin_collector",) if quick else KINDS
        found += [(f"textworld.{k}", _native(k), _adapter(k)) for k in kinds]
    if importlib.util.find_spec("reasoning_gym") is not None:
        tasks = RG_TASKS[:1] if quick else RG_TASKS
        found += [(f"reasoning_gym.{t}", _rg_native(t), _rg_adapter(t)) for t in tasks]
    if not found:
        raise ImportError("neither textworld nor reasoning_gym is installed")
    return found


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

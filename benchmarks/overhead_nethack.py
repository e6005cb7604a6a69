"""NLE/MiniHack against turngym's text adapter: steps/s of random legal play, one JSON line each.

``pairs(quick)`` gives ``(name, native, adapter)`` triples for ``adapter_overhead.py``:
``native(steps, seed)`` plays the library's own env (NLE's ``NetHackScore``, a MiniHack
task) with uniformly random actions from its action set and renders each observation
anew with ``render_text``, the text a language agent needs (NLE's env returns arrays;
its own ``render`` returns the map alone, or prints); ``adapter(steps, seed)`` plays
``gym.make("turngym/...")`` with uniformly random actions from ``info["legal_actions"]``.
Both draw the same action indices and the same NetHack seeds at each reset, so they play
the very same games (the adapter's legal actions are the native action set, in its
order).

``pairs`` ends with NetHack against NLE's bare step (no text), and run alone this file
also times the native env without rendering, so the rendering's cost and the adapter's
own (names, info, wrappers) come apart::

    python benchmarks/overhead_nethack.py [--steps 10000] [--repeats 5] [--quick]
"""

from __future__ import annotations

import argparse
import atexit
import json
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import turngym  # noqa: F401  (registers the ids)
from turngym.envs.adapters.nethack import _KEYS, render_text

Play = Callable[[int, int], int]

_CASES = (
    ("nethack-v0", None),
    ("minihack.Room-5x5-v0", "MiniHack-Room-5x5-v0"),
    ("minihack.Zap-v0", "MiniHack-Zap-v0"),  # 85 actions and an inventory
    ("minihack.MazeWalk-15x15-v0", "MiniHack-MazeWalk-15x15-v0"),
)


def _native_env(minihack_id: str | None) -> Any:
    """The library's env, built as the adapter builds it (same keys, no files kept)."""
    if minihack_id is None:
        from nle import nethack
        from nle.env.tasks import NetHackScore

        return NetHackScore(
            character="@",
            actions=nethack.ACTIONS,
            allow_all_yn_questions=True,
            allow_all_modes=True,
            penalty_step=0.0,
            observation_keys=_KEYS,
            fix_moon_phase=True,
        )
    from gymnasium.envs.registration import load_env_creator

    from turngym.envs.adapters.nethack import _import_minihack

    _import_minihack()
    spec = gym.spec(minihack_id)
    assert isinstance(spec.entry_point, str)
    creator: Any = load_env_creator(spec.entry_point)
    return creator(**spec.kwargs, observation_keys=_KEYS, fix_moon_phase=True)


def _reseed(env: Any, seed: int) -> None:
    """NetHack's seeds for a reset from ``seed``, drawn as the adapter draws them."""
    core, disp = (int(s) for s in np.random.default_rng(seed).integers(0, 2**63 - 1, size=2))
    env.seed(core, disp, reseed=False)


def native(minihack_id: str | None, *, render: bool = True) -> Play:
    """Random play of the library's own env; ``render`` adds the agent's text per step.

    Its games are the adapter's: the same NetHack seeds at each reset (``seed``, then
    ``seed + 1``...) and the same action indices, so both sides play the same steps.
    """

    made: list[Any] = []  # the env, made at the first call and kept

    def play(steps: int, seed: int) -> int:
        if not made:
            made.append(_native_env(minihack_id))
            atexit.register(made[0].close)
        env = made[0]
        rng = np.random.default_rng(seed)
        n_actions = len(env.actions)
        episode = 0
        _reseed(env, seed)
        obs, _ = env.reset()
        text = render_text(obs["tty_chars"], obs["inv_letters"], obs["inv_strs"])
        for _ in range(steps):
            obs, _, done, truncated, _ = env.step(int(rng.integers(n_actions)))
            if render:
                text = render_text(obs["tty_chars"], obs["inv_letters"], obs["inv_strs"])
            if done or truncated:
                episode += 1
                _reseed(env, seed + episode)
                obs, _ = env.reset()
                if render:
                    text = render_text(obs["tty_chars"], obs["inv_letters"], obs["inv_strs"])
        del text
        return steps

    return play


def adapter(env_id: str) -> Play:
    """Random legal play of ``gym.make("turngym/<env_id>")``."""

    made: list[Any] = []  # the env, made at the first call and kept

    def play(steps: int, seed: int) -> int:
        if not made:
            made.append(gym.make(f"turngym/{env_id}"))
            atexit.register(made[0].close)
        env = made[0]
        rng = np.random.default_rng(seed)
        episode = 0
        _, info = env.reset(seed=seed)
        for _ in range(steps):
            legal = info["legal_actions"]
            _, _, terminated, truncated, info = env.step(legal[int(rng.integers(len(legal)))])
            if terminated or truncated:
                episode += 1
                _, info = env.reset(seed=seed + episode)
        return steps

    return play


def pairs(quick: bool) -> list[tuple[str, Play, Play]]:
    """``(name, native, adapter)`` for each case; ``quick`` keeps NetHack and one MiniHack.

    Then NetHack once more against NLE's bare step (no text at all): what the text and
    the adapter cost together over the library's fastest path.
    """
    cases = _CASES[:2] if quick else _CASES
    found = [(name, native(mh), adapter(name)) for name, mh in cases]
    return [*found, ("nethack-v0 vs bare step", native(None, render=False), adapter("nethack-v0"))]


def _rate(play: Play, steps: int, seed: int) -> float:
    start = time.perf_counter()
    done = play(steps, seed)
    return done / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    """Print one JSON line per case: native raw, native + text, adapter steps/s.

    The three take turns, ``--repeats`` times, and each keeps its best rate: on a
    shared machine a burst of load then slows one measurement, not one side.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=10_000, help="steps per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per side")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first measurement")
    parser.add_argument("--quick", action="store_true", help="two cases only")
    args = parser.parse_args(argv)
    cases = _CASES[:2] if args.quick else _CASES
    for name, mh in cases:
        sides = {"raw": native(mh, render=False), "text": native(mh), "adapter": adapter(name)}
        for play in sides.values():  # build the envs, untimed
            play(20, args.seed)
        best = dict.fromkeys(sides, 0.0)
        for k in range(args.repeats):
            for side, play in sides.items():
                best[side] = max(best[side], _rate(play, args.steps, args.seed + k))
        row = {
            "env": f"turngym/{name}",
            "steps": args.steps,
            "repeats": args.repeats,
            "native_raw_steps_per_s": round(best["raw"]),
            "native_text_steps_per_s": round(best["text"]),
            "adapter_steps_per_s": round(best["adapter"]),
            "render_cost_pct": round(100 * (best["raw"] / best["text"] - 1), 1),
            "adapter_overhead_pct": round(100 * (best["text"] / best["adapter"] - 1), 1),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()

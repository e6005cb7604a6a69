"""Random legal play on a turngym text env: the adapter side of the overhead pairs.

``benchmarks/overhead_<suite>.py`` time the library alone against turngym's env over it;
this loop is the turngym side they share: uniform choices from ``info["legal_actions"]``,
a reset at each episode's end.
"""

from __future__ import annotations

import random
from typing import Any


def play_legal(env: Any, steps: int, seed: int, *, reseed: bool = True, close: bool = True) -> int:
    """Play ``steps`` random legal steps of ``env`` from ``seed``; returns ``steps``.

    Episode ``k`` after the first resets with ``seed + k`` (``reseed=False``: no seed,
    the env's own generator goes on). ``close``: close the env at the end.
    """
    rng = random.Random(seed)
    episode = 0
    _, info = env.reset(seed=seed)
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(rng.choice(info["legal_actions"]))
        if terminated or truncated:
            episode += 1
            _, info = env.reset(seed=seed + episode if reseed else None)
    if close:
        env.close()
    return steps

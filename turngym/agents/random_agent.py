"""``RandomAgent``: uniform over ``info["legal_actions"]``, random text otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np

from turngym.agents.base import BaseAgent
from turngym.spaces import Unicode

__all__ = ["RandomAgent"]

# Envs seed `np_random` from SeedSequence(seed); an agent seeded with the same
# integer would replay the env's own stream and mirror its hidden choices. A
# spawn key of our own gives an independent stream for the same seed.
_AGENT_STREAM = (0x7A6E7,)


def _agent_rng(seed: int | None) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=_AGENT_STREAM))


class RandomAgent(BaseAgent):
    """Picks a legal action uniformly at random, with its own seeded RNG.

    When the env lists no legal actions (free-form tasks) it answers with random
    short text, which such envs treat as an (often invalid) attempt.

    Example:
        >>> agent = RandomAgent(seed=0)
        >>> agent.act("...", {"legal_actions": ["left", "right"]}) in ("left", "right")
        True

    """

    def __init__(self, env: Any = None, seed: int | None = None) -> None:
        self._rng = _agent_rng(seed)
        self._text = Unicode(32, min_length=1, seed=int(self._rng.integers(2**31)))

    def reset(self, seed: int | None = None) -> None:
        """Reseed when a seed is given; otherwise keep the running stream."""
        if seed is not None:
            self._rng = _agent_rng(seed)
            self._text.seed(int(self._rng.integers(2**31)))

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """A uniformly random legal action."""
        legal = info.get("legal_actions")
        if legal:
            return str(legal[int(self._rng.integers(len(legal)))])
        return self._text.sample()

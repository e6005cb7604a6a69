"""Expert for ``Bandit-v0``: always pulls the arm with the higher expected reward."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent
from turngym.envs.text.bandit import BanditEnv

__all__ = ["BanditExpert"]


class BanditExpert(BaseAgent):
    """Reads the arms' payout rule from the env and pulls the better arm."""

    def __init__(self, env: gym.Env) -> None:
        inner = env.unwrapped
        if not isinstance(inner, BanditEnv):
            raise TypeError(f"BanditExpert needs a BanditEnv, got {type(inner).__name__}")
        self._env = inner

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The arm with the higher expected reward."""
        return self._env.best_arm

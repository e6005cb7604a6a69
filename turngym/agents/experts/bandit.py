"""Expert for ``Bandit-v0``: always pulls the arm with the higher expected reward."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.bandit import BanditEnv

__all__ = ["BanditExpert"]


class BanditExpert(BaseAgent):
    """Reads the arms' payout rule from the env and pulls the better arm."""

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, BanditEnv, "BanditExpert")
        self._env = inner

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The arm with the higher expected reward."""
        return self._env.best_arm

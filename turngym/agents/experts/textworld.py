"""Expert for ``textworld.<kind>-v0``: plays the game's walkthrough."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.adapters.textworld_env import TextWorldEnv

__all__ = ["TextWorldWalkthrough"]


class TextWorldWalkthrough(BaseAgent):
    """Plays the next command of the game's walkthrough, read from the env's state.

    After a deviation from the walkthrough it follows TextWorld's winning policy.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/textworld.coin_collector-v0", num_games=1)
        >>> obs, info = env.reset(seed=0)
        >>> TextWorldWalkthrough(env).act(obs, info)
        'go west'

    """

    def __init__(self, env: gym.Env) -> None:
        self._env = unwrap(env, TextWorldEnv, "TextWorldWalkthrough")

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next winning command (a legal one when the game has no plan left)."""
        plan = self._env.plan()
        if plan:
            return plan[0]
        legal = info.get("legal_actions") or ["look"]
        return legal[0]

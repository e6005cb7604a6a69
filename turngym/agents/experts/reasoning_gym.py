"""Oracle for ``reasoning_gym.<task>-v0``: answers with the dataset entry's own answer."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.adapters.reasoning_gym import ReasoningGymEnv
from turngym.envs.adapters.reasoning_gym_tasks import NO_ORACLE

__all__ = ["ReasoningGymOracle"]


class ReasoningGymOracle(BaseAgent):
    """Replies with ``entry["answer"]`` of the question being asked (privileged).

    Raises ``ValueError`` for the datasets whose entries carry no answer (``NO_ORACLE``).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/reasoning_gym.basic_arithmetic-v0")
        >>> obs, info = env.reset(seed=0)
        >>> _, reward, terminated, _, info = env.step(ReasoningGymOracle(env).act(obs, info))
        >>> reward, info["success"]
        (1.0, True)

    """

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, ReasoningGymEnv, "ReasoningGymOracle")
        if inner.task in NO_ORACLE:
            raise ValueError(f"{inner.task}'s entries carry no answer: there is no oracle")
        self._env = inner

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The entry's answer."""
        return str(self._env.entry["answer"])

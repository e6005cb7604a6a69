"""Expert for ``TryAgainQA-v0``: answers from the env's privileged question record."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.try_again_qa import TryAgainQAEnv

__all__ = ["TryAgainQAExpert"]


class TryAgainQAExpert(BaseAgent):
    """Replies with the canonical answer of the current question (always right first try).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/TryAgainQA-v0")
        >>> obs, info = env.reset(seed=0, options={"template": "convert"})
        >>> TryAgainQAExpert(env).act(obs, info)
        '27'

    """

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, TryAgainQAEnv, "TryAgainQAExpert")
        self._env = inner

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The answer of the question being asked."""
        return self._env.question.answer

"""Expert for ``babyai.<Level>-v0``: minigrid's own BabyAI bot, asked for one action per turn.

``minigrid.utils.baby_ai_bot.BabyAIBot`` plans from the env's privileged state (the
grid, the instruction object) and keeps a stack of subgoals across turns; this agent
makes a new bot at the start of each episode and maps its action number to BabyAI's
action name. minigrid documents levels the bot cannot solve (``PutNext*Carrying``,
``KeyInBox``); when the bot gives up with an error the agent answers ``done`` (a no-op)
for the rest of the episode instead of raising.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.adapters.babyai import ACTIONS, BabyAIEnv
from turngym.extras import needs_extra

__all__ = ["BabyAIBotExpert"]

_DONE = ACTIONS.index("done")


class BabyAIBotExpert(BaseAgent):
    """minigrid's BabyAI bot as a turngym agent (``BabyAIBotExpert(env)``).

    Attributes:
        gave_up: the bot raised during this episode (the agent then plays ``done``).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/babyai.GoToRedBall-v0")
        >>> obs, info = env.reset(seed=0)
        >>> expert = BabyAIBotExpert(env)
        >>> done = False
        >>> while not done:
        ...     obs, reward, terminated, truncated, info = env.step(expert.act(obs, info))
        ...     done = terminated or truncated
        >>> info["success"]
        True

    """

    def __init__(self, env: gym.Env) -> None:
        self._env = unwrap(env, BabyAIEnv, "BabyAIBotExpert")
        with needs_extra("babyai", "BabyAIBotExpert"):
            from minigrid.utils.baby_ai_bot import BabyAIBot
        self._bot_class = BabyAIBot
        self._bot: Any = None
        self._episode = -1
        self.gave_up = False

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The bot's next action for the env's current state."""
        env = self._env
        if env.episode != self._episode:
            self._episode = env.episode
            self._bot = self._bot_class(env.minigrid)
            self.gave_up = False
        if self.gave_up:
            return ACTIONS[_DONE]
        try:
            action = int(self._bot.replan())
        except (AssertionError, KeyError, IndexError, TypeError, ValueError):
            # The bot's own asserts ("nothing left to explore") on the levels it cannot
            # solve; an expert that raised would end the caller's whole evaluation.
            self.gave_up = True
            return ACTIONS[_DONE]
        return ACTIONS[action]

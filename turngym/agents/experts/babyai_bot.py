"""Expert for ``babyai.<Level>-v0``: minigrid's own BabyAI bot, asked for one action per turn.

On the levels the bot cannot solve that turngym's own planners can
(``babyai_planner.PLANNERS``: ``PutNext*Carrying``, ``KeyInBox``, ``UnlockToUnlock``)
the expert asks the planner instead of the bot.

``minigrid.utils.baby_ai_bot.BabyAIBot`` plans from the env's privileged state (the
grid, the instruction object) and keeps a stack of subgoals across turns; this agent
makes a new bot at the start of each episode and maps its action number to BabyAI's
action name. minigrid documents levels the bot cannot solve (``PutNext*Carrying``,
``KeyInBox``); when the bot gives up with an error the agent answers ``done`` (a no-op)
for the rest of the episode instead of raising. On some seeds (``GoToImpUnlock`` seed 6)
the bot's replanning loops forever between two subgoals; a replan that runs more than
``MAX_SEARCHES`` path searches (a normal one runs at most about 10) counts as giving up.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.agents.experts.babyai_planner import PLANNERS, plan
from turngym.envs.adapters.babyai import ACTIONS, BabyAIEnv
from turngym.extras import needs_extra

__all__ = ["MAX_SEARCHES", "BabyAIBotExpert"]

_DONE = ACTIONS.index("done")

MAX_SEARCHES = 200
"""Path searches one ``replan`` may run before the bot counts as stuck."""


class _Stuck(Exception):
    """The bot's replanning went past ``MAX_SEARCHES`` path searches."""


class BabyAIBotExpert(BaseAgent):
    """minigrid's BabyAI bot as a turngym agent (``BabyAIBotExpert(env)``).

    Args:
        env: a ``babyai.<Level>-v0`` env (wrapped or not).
        planner: on the levels in ``babyai_planner.PLANNERS``, play turngym's planner
            (the default) rather than minigrid's bot; False plays the bot everywhere.

    Attributes:
        gave_up: the bot raised (or the planner found no way on) during this episode;
            the agent then plays ``done``.

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

    def __init__(self, env: gym.Env, planner: bool = True) -> None:
        if not isinstance(planner, bool):
            raise ValueError(f"planner must be True or False, got {planner!r}")
        self._env = unwrap(env, BabyAIEnv, "BabyAIBotExpert")
        self.planner = planner and self._env.level in PLANNERS
        """True where this expert plays turngym's planner instead of minigrid's bot."""
        with needs_extra("babyai", "BabyAIBotExpert"):
            from minigrid.utils.baby_ai_bot import BabyAIBot
        self._bot_class = BabyAIBot
        self._bot: Any = None
        self._episode = -1
        self._searches = 0
        self.gave_up = False

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The bot's next action for the env's current state."""
        env = self._env
        if env.episode != self._episode:
            self._episode = env.episode
            self.gave_up = False
            if not self.planner:
                self._bot = self._bot_class(env.minigrid)
                self._guard(self._bot)
        if self.gave_up:
            return ACTIONS[_DONE]
        if self.planner:
            planned = plan(env.level, env.minigrid)
            self.gave_up = planned is None
            return ACTIONS[_DONE if planned is None else planned]
        self._searches = 0
        try:
            action = int(self._bot.replan())
        except (_Stuck, AssertionError, KeyError, IndexError, TypeError, ValueError):
            # The bot's own asserts ("nothing left to explore") on the levels it cannot
            # solve; an expert that raised (or hung) would end the caller's evaluation.
            self.gave_up = True
            return ACTIONS[_DONE]
        return ACTIONS[action]

    def _guard(self, bot: Any) -> None:
        """Count the bot's path searches; past ``MAX_SEARCHES`` in one replan, stop it."""
        search = bot._breadth_first_search

        def counted(*args: Any, **kwargs: Any) -> Any:
            self._searches += 1
            if self._searches > MAX_SEARCHES:
                raise _Stuck(f"more than {MAX_SEARCHES} path searches in one replan")
            return search(*args, **kwargs)

        bot._breadth_first_search = counted

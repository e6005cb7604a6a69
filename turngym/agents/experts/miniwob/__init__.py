"""The scripted expert of the MiniWoB++ tasks: one small solver per task.

``MiniWoBOracle`` reads the task's utterance and the accessibility tree of each
observation and answers with the action a careful human would take next. Every solver
is a generator that yields actions and reads the newest observation from its
``Episode`` after each one, so a multi-step task reads top to bottom like its plan.

Some facts are not in the accessibility tree: the ``<span>`` links of ``click-link``
have no role and so no id, and canvas or SVG tasks draw their answer. Solvers that need
them read the page privileged-ly through the env's own JavaScript bridge and click by
viewport coordinates (``mouse_click``); each such solver says so in its docstring.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.agents.experts.miniwob import basic, forms, inbox, visual
from turngym.agents.experts.miniwob.episode import Episode, Plan, Solver
from turngym.envs.web.miniwob import MiniWoBEnv

__all__ = ["SOLVERS", "MiniWoBOracle"]

SOLVERS: dict[str, Solver] = {
    **basic.SOLVERS,
    **forms.SOLVERS,
    **inbox.SOLVERS,
    **visual.SOLVERS,
}
"""The solver of each task the oracle knows."""


class MiniWoBOracle(BaseAgent):
    """Plays the current MiniWoB task with its scripted solver (privileged: ``env.task``).

    A task without a solver, or a solver that cannot find what it needs, gets ``noop()``.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/miniwob.click-test-v0")  # doctest: +SKIP
        >>> oracle = MiniWoBOracle(env)  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)  # doctest: +SKIP
        >>> oracle.act(obs, info)  # doctest: +SKIP
        'click(1)'

    """

    def __init__(self, env: gym.Env) -> None:
        self._env = unwrap(env, MiniWoBEnv, "MiniWoBOracle")
        self._episode: Episode | None = None
        self._plan: Plan | None = None

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode's plan (also done on each new episode)."""
        self._episode = self._plan = None

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next action of the task's plan, or ``noop()`` when there is none."""
        goal = str(info.get("instruction", self._env.instruction))
        if self._episode is None or info.get("turn") == 0 or goal != self._episode.goal:
            solver = SOLVERS.get(self._env.task)
            self._episode = Episode(self._env, goal)
            self._plan = solver(self._episode) if solver is not None else None
        self._episode.text = obs["text"] if isinstance(obs, dict) else str(obs)
        if self._plan is None:
            return "noop()"
        try:
            return next(self._plan)
        except Exception:  # the plan is over, or the page is not as the solver expects
            self._plan = None
            return "noop()"

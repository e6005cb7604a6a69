"""``GUIOracle``: the scripted expert of the desktop envs, one solver per task template.

It reads the episode's parameters from the env (privileged, as every oracle does) and
plays the template's solver, which finds widgets in the observation's widget list and
acts with pixel clicks, typing and keys, the way a computer-use agent does.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from turngym.agents.base import BaseAgent, unwrap
from turngym.agents.experts.gui.calculator import SOLVERS as CALCULATOR
from turngym.agents.experts.gui.files import SOLVERS as FILES
from turngym.agents.experts.gui.notes import SOLVERS as NOTES
from turngym.agents.experts.gui.screen import Screen, Solver
from turngym.agents.experts.gui.settings import SOLVERS as SETTINGS
from turngym.agents.experts.gui.terminal import SOLVERS as TERMINAL
from turngym.envs.gui.env import DesktopEnv

__all__ = ["SOLVERS", "GUIOracle"]

SOLVERS: dict[str, Solver] = {**CALCULATOR, **FILES, **NOTES, **SETTINGS, **TERMINAL}
"""Template name -> solver, for every template with an oracle."""


class GUIOracle(BaseAgent):
    """Plays the current task's solver; says ``done()`` when it has nothing left to do.

    Example:
        >>> import gymnasium as gym
        >>> env = gym.make("turngym/gui.notes-delete-v0")  # doctest: +SKIP
        >>> oracle = GUIOracle(env)  # doctest: +SKIP

    """

    def __init__(self, env: Any) -> None:
        self.env = unwrap(env, DesktopEnv, "GUIOracle")
        if self.env.task_name not in SOLVERS:
            raise ValueError(f"GUIOracle has no solver for task {self.env.task_name!r}")
        self._solver = SOLVERS[self.env.task_name]
        self._plan: Generator[str, Screen, None] | None = None

    def reset(self, seed: int | None = None) -> None:
        """Forget the last episode's plan."""
        self._plan = None

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The plan's next action for the screen in ``info["widgets"]``."""
        screen = Screen(info.get("widgets", []))
        try:
            if self._plan is None or info.get("turn", 0) == 0:
                self._plan = self._solver(self.env.params, screen)
                return next(self._plan)
            return self._plan.send(screen)
        except StopIteration:
            return "done()"

"""The scripted expert of the site envs (WebShop, WebForum, WebAdmin): the task's oracle plan.

Every ``tasks.Task`` carries a plan of ``Step``s written from the site's database. The
expert plays it one step per turn, turning each step into an action by finding its target
(role and accessible name) in the current observation with ``axtree.find_id``, so it
acts through the same text interface an agent sees.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.web.axtree import find_id
from turngym.envs.web.env import SiteEnv
from turngym.envs.web.tasks import Step, Task

__all__ = ["SiteOracle", "step_action"]


def step_action(step: Step, page: str) -> str:
    """The action string that plays ``step`` on ``page`` (an observation's text).

    A target that is not on the page gives an ``answer`` that says so, which ends the
    episode unsolved instead of clicking something else.

    >>> step_action(Step.fill("textbox", "Query", "red"), "[4] textbox 'Query'")
    'fill(4, "red")'
    """
    text = json.dumps(step.text)
    if step.action in ("click", "fill", "select"):
        element = find_id(page, step.role, step.name)
        if element is None:
            missing = json.dumps(f"oracle: no {step.role} named {step.name!r} on the page")
            return f"answer({missing})"
        if step.action == "click":
            return f"click({element})"
        return f"{step.action}({element}, {text})"
    if step.action == "back":
        return "back()"
    return f"{step.action}({text})"


class SiteOracle(BaseAgent):
    """Plays the current task's oracle plan (privileged: reads ``env.task``).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/WebShop-v0")  # doctest: +SKIP
        >>> oracle = SiteOracle(env)  # doctest: +SKIP

    """

    def __init__(self, env: gym.Env) -> None:
        self._env = unwrap(env, SiteEnv, "SiteOracle")
        self._task: Task | None = None
        self._next = 0

    def reset(self, seed: int | None = None) -> None:
        """Start the plan over (also done whenever the env's task changes)."""
        self._task = None
        self._next = 0

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next step of the plan as an action."""
        task = self._env.task
        if task is not self._task:
            self._task, self._next = task, 0
        if task is None or self._next >= len(task.oracle):
            return 'answer("")'
        step = task.oracle[self._next]
        self._next += 1
        return step_action(step, obs["text"] if isinstance(obs, dict) else str(obs))

"""Expert for ``TextNav-v0``: knows where everything is and walks shortest routes."""

from __future__ import annotations

from collections import deque
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.text_nav import CARRIED, TextNavEnv

__all__ = ["TextNavExpert"]


class TextNavExpert(BaseAgent):
    """Reads the house (privileged) and does the task in the fewest actions.

    Each turn it re-plans from the current state: if the goal object is not carried,
    head for the room it lies in (a BFS over the door graph, opening closed doors on
    the way), open its container if needed and take it; then head for the target room
    and, for a "put" goal, open the target container if needed and put the object.
    """

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, TextNavEnv, "TextNavExpert")
        self._env = inner

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next action of the plan."""
        env = self._env
        goal = env.goal
        where = env.location[goal.obj]
        if where != CARRIED:
            rec = env.receptacles[where]
            if env.room != rec.room:
                return self._toward(rec.room)
            return f"take {goal.obj}" if env.opened[rec.name] else f"open {rec.name}"
        if goal.kind == "bring":
            return self._toward(goal.target)
        rec = env.receptacles[goal.target]
        if env.room != rec.room:
            return self._toward(rec.room)
        if not env.opened[rec.name]:
            return f"open {rec.name}"
        return f"put {goal.obj} {rec.prep} {rec.name}"

    def _toward(self, room: str) -> str:
        """The first action on a shortest route (in doors) to ``room``."""
        env = self._env
        previous: dict[str, str] = {room: room}
        queue = deque([room])
        while queue:  # BFS from the destination, so ``previous`` points toward it
            here = queue.popleft()
            for nxt in env.neighbours(here):
                if nxt not in previous:
                    previous[nxt] = here
                    queue.append(nxt)
        step = previous[env.room]
        return f"go to {step}" if env.door_open(env.room, step) else f"open door to {step}"

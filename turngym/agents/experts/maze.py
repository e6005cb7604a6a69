"""Expert for ``Maze-v0``: breadth-first search on the (privileged) maze map."""

from __future__ import annotations

from collections import deque
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.maze import ACTIONS, MazeEnv

__all__ = ["MazeExpert"]

Pos = tuple[int, int]


class MazeExpert(BaseAgent):
    """Reads the maze from the env and walks a shortest path to the goal.

    A BFS from the goal gives every open cell's distance; each turn the expert takes
    the move to the neighbour one step closer. It never bumps into a wall, even when
    the env only shows the agent a partial view.
    """

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, MazeEnv, "MazeExpert")
        self._env = inner
        self._planned_for: tuple[tuple[str, ...], Pos] | None = None
        self._dist: dict[Pos, int] = {}

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The move that brings the agent one step closer to the goal."""
        env = self._env
        if (env.grid, env.goal) != self._planned_for:
            self._dist = self._bfs()
            self._planned_for = (env.grid, env.goal)
        here = self._dist.get(env.pos, 0)
        for action in ACTIONS:
            nxt = env.neighbour(env.pos, action)
            if nxt != env.pos and self._dist.get(nxt, here) < here:
                return action
        return ACTIONS[0]  # only reached at the goal, where the episode is already over

    def _bfs(self) -> dict[Pos, int]:
        env = self._env
        dist = {env.goal: 0}
        queue = deque([env.goal])
        while queue:
            pos = queue.popleft()
            for action in ACTIONS:
                nxt = env.neighbour(pos, action)
                if nxt not in dist:
                    dist[nxt] = dist[pos] + 1
                    queue.append(nxt)
        return dist

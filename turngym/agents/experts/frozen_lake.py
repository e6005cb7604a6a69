"""Expert for ``FrozenLake-v0``: BFS shortest path on solid ice, value iteration when slippery.

It walks to ``env.goal_pos``: the map's G, or the drawn goal cell with ``goal="random"``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import gymnasium as gym
import numpy as np

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.frozen_lake import ACTIONS, FrozenLakeEnv

__all__ = ["FrozenLakeExpert"]

Pos = tuple[int, int]

_DEFAULT_HORIZON = 200  # planning horizon when the env has no time limit


class FrozenLakeExpert(BaseAgent):
    """Reads the map from the env and plans on its known transition model.

    Not slippery: a BFS from the goal gives each cell's distance; the expert steps to
    the neighbour closest to the goal (a shortest path, never through a hole).
    Slippery: finite-horizon value iteration on ``env.transitions`` gives, for every
    number of steps left before the time limit, the move that maximises the chance of
    reaching the goal in time. Plans are recomputed whenever the map changes.
    """

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, FrozenLakeEnv, "FrozenLakeExpert")
        self._env = inner
        limit = env.spec.max_episode_steps if env.spec is not None else None
        self._horizon = limit or _DEFAULT_HORIZON
        self._planned_for: tuple[tuple[str, ...], bool, Pos] | None = None
        self._moves: dict[Pos, int] = {}
        self._by_steps_left = np.zeros((0, 0), dtype=np.int64)

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The planned move from the current cell."""
        env = self._env
        key = (env.desc, env.is_slippery, env.goal_pos)
        if key != self._planned_for:
            if env.is_slippery:
                self._by_steps_left = self._value_iteration()
            else:
                self._moves = self._bfs()
            self._planned_for = key
        if not env.is_slippery:
            return ACTIONS[self._moves.get(env.pos, 0)]
        steps_left = min(max(self._horizon - int(info.get("turn", 0)), 1), self._horizon)
        return ACTIONS[int(self._by_steps_left[steps_left, env.pos[0] * env.size + env.pos[1]])]

    def _cells(self) -> list[Pos]:
        n = self._env.size
        return [(r, c) for r in range(n) for c in range(n)]

    def _bfs(self) -> dict[Pos, int]:
        env = self._env
        goal = env.goal_pos
        dist = {goal: 0}
        queue = deque([goal])
        while queue:
            pos = queue.popleft()
            for a in range(len(ACTIONS)):
                # Deterministic moves between two different cells are reversible, so a
                # neighbour reached by a move is one step from ``pos`` the other way.
                prev = env.transitions(pos, a)[0][1]
                if prev not in dist and env.cell(prev) != "H":
                    dist[prev] = dist[pos] + 1
                    queue.append(prev)
        unreachable = len(dist) + 1
        return {
            pos: min(
                range(len(ACTIONS)),
                key=lambda a: dist.get(env.transitions(pos, a)[0][1], unreachable),
            )
            for pos in self._cells()
        }

    def _value_iteration(self) -> np.ndarray:
        """``best[h, s]``: the move maximising P(reach G within h steps) from cell ``s``."""
        env = self._env
        cells = self._cells()
        n_states, n_actions = len(cells), len(ACTIONS)
        # prob[s, a, s'] from the env's own model; G and H end the episode.
        prob = np.zeros((n_states, n_actions, n_states))
        for s, pos in enumerate(cells):
            for a in range(n_actions):
                for p, (r, c) in env.transitions(pos, a):
                    prob[s, a, r * env.size + c] += p
        is_goal = np.array([pos == env.goal_pos for pos in cells])
        live = np.array([env.cell(pos) != "H" for pos in cells]) & ~is_goal
        reach_goal_now = prob[:, :, is_goal].sum(axis=2)
        value = np.zeros(n_states)  # P(reach G in the steps left), 0 steps left: 0
        best = np.zeros((self._horizon + 1, n_states), dtype=np.int64)
        for steps_left in range(1, self._horizon + 1):
            q = reach_goal_now + prob @ np.where(live, value, 0.0)
            best[steps_left] = q.argmax(axis=1)
            value = q.max(axis=1)
        return best

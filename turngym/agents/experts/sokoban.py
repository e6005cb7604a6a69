"""Expert for ``Sokoban-v0``: an A* planner over pushes, replanning when surprised.

The search works on push states ``(player cell, box cells)``: between pushes the
player walks, so one edge is "walk to the cell behind a box (breadth-first search
through free floor), then push", costing the walk length + 1 move. Costs are moves,
and the heuristic (the cheapest assignment of boxes to targets by push distance,
ignoring other boxes) never overestimates and is consistent, so the plan is a
shortest solution in moves. Pruning: dead squares (no target is reachable by
pushing from there) and 2x2 blocks of boxes and walls that hold a box off target.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.sokoban import SokobanEnv
from turngym.envs.text.sokoban_levels import DIRECTIONS, Level, apply_move

__all__ = ["SokobanExpert", "solve"]

_INF = 1 << 30
_MAX_PERMUTED_BOXES = 4  # beyond this the heuristic sums per-box minimums instead


def _push_distances(level: Level, free: list[bool]) -> list[list[int]]:
    """For each target, the pushes a lone box needs from every cell to reach it."""
    steps = [level.offset(d) for d in DIRECTIONS]
    table = []
    for target in sorted(level.targets):
        dist = [_INF] * len(free)
        dist[target] = 0
        queue = deque([target])
        while queue:
            cell = queue.popleft()
            for s in steps:
                # A box at cell - s is pushed to cell by a player standing at cell - 2s.
                prev = cell - s
                if free[prev] and free[prev - s] and dist[prev] == _INF:
                    dist[prev] = dist[cell] + 1
                    queue.append(prev)
        table.append(dist)
    return table


class _Planner:
    """The per-level tables of the search, built once per room."""

    def __init__(self, level: Level) -> None:
        self.level = level
        size = level.rows * level.cols
        self.free = [i not in level.walls for i in range(size)]
        self.steps = [level.offset(d) for d in DIRECTIONS]
        self.names = list(DIRECTIONS)
        self.targets = level.targets
        self.dist = _push_distances(level, self.free)
        self.dead = [all(d[i] == _INF for d in self.dist) for i in range(size)]
        k = len(level.targets)
        self.perms = list(itertools.permutations(range(k))) if k <= _MAX_PERMUTED_BOXES else None

    def heuristic(self, boxes: tuple[int, ...]) -> int:
        """Cheapest box-to-target assignment by lone-box push distance (admissible)."""
        dist = self.dist
        if self.perms is None:
            return sum(min(d[b] for d in dist) for b in boxes)
        best = _INF
        for perm in self.perms:
            total = 0
            for b, t in zip(boxes, perm, strict=True):
                total += dist[t][b]
            best = min(best, total)
        return best

    def _frozen(self, cell: int, boxes: frozenset[int]) -> bool:
        """A 2x2 block of walls/boxes around ``cell`` that holds a box off target."""
        cols = self.level.cols
        free = self.free
        for dr in (-cols, cols):
            for dc in (-1, 1):
                block = (cell, cell + dc, cell + dr, cell + dr + dc)
                if all(not free[c] or c in boxes for c in block) and any(
                    c in boxes and c not in self.targets for c in block
                ):
                    return True
        return False

    def _walk(self, start: int, boxes: frozenset[int]) -> dict[int, int]:
        """Cell -> the previous cell on a shortest walk from ``start`` through free floor."""
        came = {start: start}
        queue = deque([start])
        free, steps = self.free, self.steps
        while queue:
            cell = queue.popleft()
            for s in steps:
                nxt = cell + s
                if free[nxt] and nxt not in came and nxt not in boxes:
                    came[nxt] = cell
                    queue.append(nxt)
        return came

    def _reach(self, start: int, boxes: frozenset[int]) -> dict[int, int]:
        """Cell -> walking distance from ``start`` through free floor."""
        dist = {start: 0}
        queue = deque([start])
        free, steps = self.free, self.steps
        while queue:
            cell = queue.popleft()
            here = dist[cell] + 1
            for s in steps:
                nxt = cell + s
                if free[nxt] and nxt not in dist and nxt not in boxes:
                    dist[nxt] = here
                    queue.append(nxt)
        return dist

    def search(self, max_expansions: int) -> list[str] | None:
        """A shortest move sequence that solves the level, or None."""
        start = (self.level.player, tuple(sorted(self.level.boxes)))
        if frozenset(start[1]) == self.targets:
            return []
        h0 = self.heuristic(start[1])
        if h0 >= _INF:
            return None
        best_g = {start: 0}
        parent: dict[tuple[int, tuple[int, ...]], tuple[tuple[int, tuple[int, ...]], int, int]]
        parent = {}
        tie = itertools.count()
        heap = [(h0, 0, next(tie), start)]
        expansions = 0
        free, dead, steps = self.free, self.dead, self.steps
        while heap:
            _, neg_g, _, state = heapq.heappop(heap)
            g = -neg_g
            if g > best_g[state]:
                continue
            player, box_tuple = state
            boxes = frozenset(box_tuple)
            if boxes == self.targets:
                return self._moves(state, parent)
            expansions += 1
            if expansions > max_expansions:
                return None
            reach = self._reach(player, boxes)
            for b in box_tuple:
                for s in steps:
                    behind, ahead = b - s, b + s
                    if behind not in reach or not free[ahead] or dead[ahead] or ahead in boxes:
                        continue
                    new_boxes = (boxes - {b}) | {ahead}
                    if self._frozen(ahead, new_boxes):
                        continue
                    child_boxes = tuple(sorted(new_boxes))
                    h = self.heuristic(child_boxes)
                    if h >= _INF:
                        continue
                    child = (b, child_boxes)
                    g2 = g + reach[behind] + 1
                    if g2 < best_g.get(child, _INF):
                        best_g[child] = g2
                        parent[child] = (state, behind, s)
                        # Ties on f go to the deeper state: it is nearer a solution.
                        heapq.heappush(heap, (g2 + h, -g2, next(tie), child))
        return None

    def _moves(
        self,
        goal: tuple[int, tuple[int, ...]],
        parent: dict[tuple[int, tuple[int, ...]], tuple[tuple[int, tuple[int, ...]], int, int]],
    ) -> list[str]:
        """Turn the chain of pushes into single moves (walks included)."""
        name_of = dict(zip(self.steps, self.names, strict=True))
        pushes = []
        state = goal
        while state in parent:
            prev, behind, s = parent[state]
            pushes.append((prev, behind, s))
            state = prev
        moves: list[str] = []
        for (player, box_tuple), behind, s in reversed(pushes):
            came = self._walk(player, frozenset(box_tuple))
            path = []
            cell = behind
            while cell != player:
                path.append(name_of[cell - came[cell]])
                cell = came[cell]
            moves.extend(reversed(path))
            moves.append(name_of[s])
        return moves


def solve(level: Level, max_expansions: int = 200_000) -> list[str] | None:
    r"""A shortest solution of ``level`` in moves, or None (unsolvable or too big).

    >>> solve(Level.from_text("######\n#P_XO#\n######"))
    ['right', 'right']

    """
    return _Planner(level).search(max_expansions)


class SokobanExpert(BaseAgent):
    """Plans a shortest solution with A* and follows it, replanning on any surprise.

    It plans on its first ``act`` and whenever the env's position is not the one its
    plan expects (a new episode, or someone else moved). If no solution exists (a box
    was pushed into a corner) it still answers with a legal move.

    Args:
        env: a ``SokobanEnv`` (wrapped or not); the expert reads its level.
        max_expansions: search budget per plan, in expanded push states.

    """

    def __init__(self, env: gym.Env, max_expansions: int = 200_000) -> None:
        inner = unwrap(env, SokobanEnv, "SokobanExpert")
        self._env = inner
        self.max_expansions = max_expansions
        self._plan: list[str] = []
        self._expected: list[Level] = []
        self._index = 0
        # (room, boxes) the search gave up on: walking alone cannot make it solvable
        # again often enough to be worth a full search on every move.
        self._hopeless: tuple[frozenset[int], frozenset[int], frozenset[int]] | None = None

    def reset(self, seed: int | None = None) -> None:
        """Drop the current plan."""
        self._plan, self._expected, self._index = [], [], 0
        self._hopeless = None

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next move of a shortest solution from the current position."""
        level = self._env.level
        on_plan = self._index < len(self._plan) and self._expected[self._index] == level
        if not on_plan and (level.walls, level.targets, level.boxes) != self._hopeless:
            self._replan(level)
        if not self._plan:
            return next(iter(DIRECTIONS))
        move = self._plan[self._index]
        self._index += 1
        return move

    def _replan(self, level: Level) -> None:
        plan = solve(level, self.max_expansions)
        self._hopeless = None if plan is not None else (level.walls, level.targets, level.boxes)
        self._plan = plan or []
        self._expected = []
        current = level
        for move in self._plan:
            self._expected.append(current)
            current = apply_move(current, move).level
        self._index = 0

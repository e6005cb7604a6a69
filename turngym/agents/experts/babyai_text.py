"""Expert for ``BabyAIText-v0``: subgoals planned by BFS over (cell, facing) on the true map.

Each step the expert re-reads the env and picks a subgoal: if a locked door keeps it
from a mission object, first fetch that door's key and open it (dropping whatever it
carries); then pick up / carry / drop / toggle as the mission asks. Moving to a subgoal
is a breadth-first search over (cell, direction) states with the three moves; closed
doors count as passable (the expert toggles them open when it faces one on its path).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.babyai_text import DIR_VECTORS, BabyAITextEnv, Pos, Thing

__all__ = ["BabyAITextExpert"]

State = tuple[Pos, int]


class BabyAITextExpert(BaseAgent):
    """Plans on the privileged map of a ``BabyAITextEnv``; never plays an invalid action."""

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, BabyAITextEnv, "BabyAITextExpert")
        self._env = inner

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next action towards the mission."""
        env = self._env
        door = self._blocking_door()
        if door is not None:
            return self._open(door)
        kind, targets = env.mission_kind, env.targets
        if kind == "goto":
            return self._face(env.find(targets[0]), final="turn left")
        if kind == "pickup":
            return self._pick(targets[0])
        if kind == "open":
            pos = env.find(targets[0])
            assert pos is not None
            return self._open(pos)
        if env.carrying is None or env.carrying.name != targets[0]:
            return self._pick(targets[0])
        other = env.find(targets[1])
        assert other is not None
        near = [(other[0] + dx, other[1] + dy) for dx, dy in DIR_VECTORS]
        spots = {p for p in near if self._droppable(p)}
        if not spots:  # only cells beside a doorway are free: use them after all
            spots = {p for p in near if self._droppable(p, near_doors=True)}
        return self._go(lambda s: self._ahead(s) in spots, "drop")

    # -- subgoals ---------------------------------------------------------------------------

    def _blocking_door(self) -> Pos | None:
        """A locked door that must open before the mission's objects can be reached."""
        env = self._env
        locked = [p for p, d in env.doors.items() if d.state == "locked"]
        if not locked:
            return None
        reach = self._reachable()
        for name in env.targets:
            pos = env.find(name)
            if pos is None:  # carried
                continue
            near = {(pos[0] + dx, pos[1] + dy) for dx, dy in DIR_VECTORS}
            if not near & reach:
                return min(locked, key=lambda p: abs(p[0] - pos[0]) + abs(p[1] - pos[1]))
        return None

    def _open(self, door_pos: Pos) -> str:
        env = self._env
        door = env.doors[door_pos]
        key = Thing("key", door.color)
        if door.state == "locked" and env.carrying != key:
            return self._pick(key.name)
        if door.state == "open":  # done already; toggling would close it
            return "turn left"
        return self._face(door_pos, final="toggle")

    def _pick(self, name: str) -> str:
        env = self._env
        if env.carrying is not None and env.carrying.name == name:
            return "turn left"
        if env.carrying is not None:
            return self._go(lambda s: self._droppable(self._ahead(s)), "drop")
        return self._face(env.find(name), final="pick up")

    def _face(self, pos: Pos | None, final: str) -> str:
        """Walk until facing ``pos``, then play ``final``."""
        assert pos is not None
        return self._go(lambda s: self._ahead(s) == pos, final)

    # -- search -----------------------------------------------------------------------------

    def _ahead(self, state: State) -> Pos:
        (x, y), d = state
        dx, dy = DIR_VECTORS[d]
        return x + dx, y + dy

    def _droppable(self, pos: Pos, near_doors: bool = False) -> bool:
        """Empty floor, by default away from doorways (so a drop never blocks one)."""
        env = self._env
        if env.is_wall(pos) or pos in env.objects or pos in env.doors:
            return False
        return near_doors or not any(
            (pos[0] + dx, pos[1] + dy) in env.doors for dx, dy in DIR_VECTORS
        )

    def _walkable(self, pos: Pos) -> bool:
        env = self._env
        if env.is_wall(pos) or pos in env.objects:
            return False
        door = env.doors.get(pos)
        if door is None or door.state != "locked":
            return True
        return env.carrying == Thing("key", door.color)

    def _reachable(self) -> set[Pos]:
        """Cells the agent can walk to while every locked door stays shut."""
        env = self._env
        seen = {env.agent_pos}
        queue = deque([env.agent_pos])
        while queue:
            x, y = queue.popleft()
            for dx, dy in DIR_VECTORS:
                nxt = (x + dx, y + dy)
                door = env.doors.get(nxt)
                shut = door is not None and door.state == "locked"
                if nxt not in seen and not shut and self._walkable(nxt):
                    seen.add(nxt)
                    queue.append(nxt)
        return seen

    def _go(self, done: Callable[[State], bool], final: str) -> str:
        """``final`` if ``done`` holds now, else the first move of a shortest path there."""
        env = self._env
        start: State = (env.agent_pos, env.agent_dir)
        if done(start):
            return final
        first: dict[State, str] = {start: ""}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            pos, d = state
            moves = [("turn left", (pos, (d + 3) % 4)), ("turn right", (pos, (d + 1) % 4))]
            ahead = self._ahead(state)
            if self._walkable(ahead):
                moves.append(("go forward", (ahead, d)))
            for action, nxt in moves:
                if nxt in first:
                    continue
                first[nxt] = first[state] or action
                if done(nxt):
                    return self._step(first[nxt])
                queue.append(nxt)
        return "turn left"  # nothing reachable: wait (rare; the map is checked at reset)

    def _step(self, action: str) -> str:
        """Open a closed door instead of bumping into it."""
        env = self._env
        door = env.doors.get(env.front())
        if action == "go forward" and door is not None and door.state != "open":
            return "toggle"
        return action

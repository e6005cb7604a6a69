"""``BabyAIText-v0``: a goal-conditioned grid world told in text (BabyAI-Text / GLAM style).

Our own small implementation (no minigrid): one room (or two joined by a door) holds
balls, boxes and keys of six colours, plus doors; a locked door opens only for the key
of its colour. Each reset draws a layout and a mission from ``self.np_random``:

- ``goto``: "go to the red ball": end an action facing the object;
- ``pickup``: "pick up the blue key";
- ``open``: "open the yellow door";
- ``putnext``: "put the green ball next to the purple box": drop it on a cell that
  shares a side with the other object.

The agent sees a 7x7 egocentric window (itself at the bottom middle, 6 rows ahead, 3
columns each side) through walls, and hears it as GLAM-style sentences such as
"You see a red ball 1 step left and 3 steps forward." Six actions, always legal: an
action that cannot do anything (walking into a wall) is a valid no-op that says why.

Success ends the episode with the BabyAI reward ``1 - 0.9 * steps / max_steps``.
For hindsight relabelling every step reports ``info["goal"]`` (the mission) and
``info["achieved_goal"]`` (the mission the last action fulfilled, "" if none);
``compute_reward(achieved_goal, goal)`` says whether one fulfils the other.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, match_action

__all__ = [
    "ACTIONS",
    "COLORS",
    "MISSIONS",
    "OBJECT_KINDS",
    "BabyAITextEnv",
    "Door",
    "Thing",
]

Pos = tuple[int, int]

ACTIONS = ("turn left", "turn right", "go forward", "pick up", "drop", "toggle")
COLORS = ("red", "green", "blue", "purple", "yellow", "grey")
OBJECT_KINDS = ("ball", "box", "key")
MISSIONS = ("goto", "pickup", "open", "putnext")
FAMILIES = (*MISSIONS, "mixed")

# Directions in minigrid order: 0 east, 1 south, 2 west, 3 north (y grows downwards).
DIR_VECTORS: tuple[Pos, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
DIR_NAMES = ("east", "south", "west", "north")
VIEW_AHEAD = 6
VIEW_SIDE = 3

_ALIASES = {
    "left": "turn left",
    "right": "turn right",
    "forward": "go forward",
    "move forward": "go forward",
    "pickup": "pick up",
    "pick": "pick up",
    "open": "toggle",
}
_ACTION_TABLE = {a: a for a in ACTIONS} | _ALIASES
_KIND_LETTER = {"ball": "B", "box": "X", "key": "K"}
_DOOR_LETTER = {"locked": "L", "closed": "D", "open": "_"}
_COLOR_LETTER = dict(zip(COLORS, "rgbpye", strict=True))


@dataclass(frozen=True)
class Thing:
    """An object that can be carried: a ``kind`` (ball, box, key) of a ``color``."""

    kind: str
    color: str

    @property
    def name(self) -> str:
        """``"red ball"``."""
        return f"{self.color} {self.kind}"


@dataclass
class Door:
    """A door in a wall; ``state`` is ``"locked"``, ``"closed"`` or ``"open"``."""

    color: str
    state: str

    @property
    def name(self) -> str:
        """``"red door"``."""
        return f"{self.color} door"


def _check_choice(name: str, value: Any, allowed: tuple[Any, ...]) -> Any:
    if value not in allowed or isinstance(value, bool):
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def _check_int(name: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an int in {lo}..{hi}, got {value!r}")
    return value


def _steps(n: int, word: str) -> str:
    return f"{n} step{'s' if n != 1 else ''} {word}"


class BabyAITextEnv(TextEnv[str]):
    """A BabyAI-like grid world in text with goto / pickup / open / putnext missions.

    Args:
        mission: mission family: ``"goto"``, ``"pickup"``, ``"open"``, ``"putnext"`` or
            ``"mixed"`` (a family drawn per episode).
        room_size: interior side of each room, 5..8.
        num_rooms: 1 (doors in the outer walls) or 2 (side by side, joined by a door
            that is locked half of the time; its key lies in the agent's room).
        num_objects: balls, boxes and keys per episode besides keys of locked doors,
            2..6.
        max_steps: the step budget of the BabyAI reward ``1 - 0.9 * steps / max_steps``;
            the episode is truncated there.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> from turngym.envs.text.babyai_text import BabyAITextEnv
        >>> env = BabyAITextEnv(mission="pickup")
        >>> obs, info = env.reset(seed=3)
        >>> info["goal"]
        'pick up the yellow box'
        >>> info["legal_actions"]
        ['turn left', 'turn right', 'go forward', 'pick up', 'drop', 'toggle']
        >>> env.compute_reward("pick up the yellow box", info["goal"])
        1.0

    """

    def __init__(
        self,
        mission: str = "mixed",
        room_size: int = 6,
        num_rooms: int = 1,
        num_objects: int = 4,
        max_steps: int = 64,
        **kwargs: Any,
    ) -> None:
        self.mission_family = _check_choice("mission", mission, FAMILIES)
        self.room_size = _check_int("room_size", room_size, 5, 8)
        self.num_rooms = _check_choice("num_rooms", num_rooms, (1, 2))
        self.num_objects = _check_int("num_objects", num_objects, 2, 6)
        self.max_steps = _check_int("max_steps", max_steps, 1, 10_000)
        super().__init__(**kwargs)
        self.width = self.room_size + 2 if num_rooms == 1 else 2 * self.room_size + 3
        self.height = self.room_size + 2
        self.walls: set[Pos] = set()
        self.objects: dict[Pos, Thing] = {}
        self.doors: dict[Pos, Door] = {}
        self.agent_pos: Pos = (1, 1)
        self.agent_dir = 0
        self.carrying: Thing | None = None
        self.mission = ""
        """The mission string (also ``info["goal"]``)."""
        self.mission_kind = "goto"
        self.targets: tuple[str, ...] = ()
        """Names of the mission's objects: ``("red ball",)``, ``("green key", "red box")``."""
        self._achieved = ""
        self._achieved_turn = -1

    # -- goals ------------------------------------------------------------------------

    @staticmethod
    def compute_reward(achieved_goal: str | None, goal: str, info: Any = None) -> float:
        """1.0 if ``achieved_goal`` fulfils ``goal`` (same mission text), else 0.0.

        The comparison ignores case and surrounding whitespace; an empty or None
        ``achieved_goal`` fulfils nothing. ``info`` is accepted for the Gymnasium-Robotics
        ``GoalEnv`` signature and ignored. Unlike the env reward it has no step discount.

        >>> BabyAITextEnv.compute_reward("Go to the red ball ", "go to the red ball")
        1.0
        >>> BabyAITextEnv.compute_reward("", "go to the red ball")
        0.0
        """
        if not achieved_goal:
            return 0.0
        same = achieved_goal.strip().lower() == goal.strip().lower()
        return 1.0 if same else 0.0

    # -- the map ------------------------------------------------------------------------

    def front(self) -> Pos:
        """The cell the agent faces."""
        dx, dy = DIR_VECTORS[self.agent_dir]
        return self.agent_pos[0] + dx, self.agent_pos[1] + dy

    def is_wall(self, pos: Pos) -> bool:
        """Walls, and anything outside the grid."""
        x, y = pos
        return not (0 <= x < self.width and 0 <= y < self.height) or pos in self.walls

    def passable(self, pos: Pos) -> bool:
        """The agent can step onto ``pos``: floor without object, or an open door."""
        if self.is_wall(pos) or pos in self.objects:
            return False
        door = self.doors.get(pos)
        return door is None or door.state == "open"

    def find(self, name: str) -> Pos | None:
        """Where the object or door called ``name`` ("red ball", "blue door") is."""
        for pos, thing in self.objects.items():
            if thing.name == name:
                return pos
        for pos, door in self.doors.items():
            if door.name == name:
                return pos
        return None

    def room_of(self, pos: Pos) -> int:
        """0 for the left room, 1 for the right one (and the wall between)."""
        return 0 if pos[0] <= self.room_size else 1

    # -- generation ---------------------------------------------------------------------

    def _build(self) -> None:
        rng = self.np_random
        n, w, h = self.room_size, self.width, self.height
        self.walls = {
            (x, y) for x in range(w) for y in range(h) if x in (0, w - 1) or y in (0, h - 1)
        }
        self.objects, self.doors, self.carrying = {}, {}, None
        colors = [COLORS[i] for i in rng.permutation(len(COLORS))]
        if self.num_rooms == 2:
            mid = n + 1
            self.walls |= {(mid, y) for y in range(h)}
            door_pos: list[Pos] = [(mid, int(rng.integers(1, n + 1)))]
        else:
            sides = rng.permutation(4)[: int(rng.integers(1, 3))]
            door_pos = []
            for side in sides:
                k = int(rng.integers(1, n + 1))
                door_pos.append(((k, 0), (w - 1, k), (k, h - 1), (0, k))[int(side)])
        locked: list[str] = []
        for pos in door_pos:
            color = colors.pop()
            lock = rng.random() < (0.5 if self.num_rooms == 2 else 0.3)
            self.walls.discard(pos)
            self.doors[pos] = Door(color, "locked" if lock else "closed")
            if lock:
                locked.append(color)
        # Cells beside a door stay empty so that no object blocks a doorway.
        near_door = {(x + dx, y + dy) for x, y in door_pos for dx, dy in DIR_VECTORS}
        free = [
            (x, y)
            for y in range(1, h - 1)
            for x in range(1, w - 1)
            if (x, y) not in self.walls and (x, y) not in near_door
        ]
        left = [p for p in free if self.room_of(p) == 0]
        things = [Thing("key", c) for c in locked]
        kinds = [(k, c) for k in OBJECT_KINDS for c in COLORS]
        order = rng.permutation(len(kinds))
        for i in order:
            if len(things) >= len(locked) + self.num_objects:
                break
            thing = Thing(*kinds[int(i)])
            if thing not in things:
                things.append(thing)
        for k, thing in enumerate(things):
            # Keys of locked doors lie in the agent's room, so every episode is solvable.
            pool = left if k < len(locked) else free
            pool = [p for p in pool if p not in self.objects]
            self.objects[pool[int(rng.integers(len(pool)))]] = thing
        spots = [p for p in left if p not in self.objects]
        self.agent_pos = spots[int(rng.integers(len(spots)))]
        self.agent_dir = int(rng.integers(4))

    def _approachable(self) -> bool:
        """Every object and door has a free neighbour the agent can walk to (doors open)."""
        seen = {self.agent_pos}
        queue = deque([self.agent_pos])
        while queue:
            x, y = queue.popleft()
            for dx, dy in DIR_VECTORS:
                nxt = (x + dx, y + dy)
                ok = not self.is_wall(nxt) and nxt not in self.objects
                if ok and nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return all(
            any((x + dx, y + dy) in seen for dx, dy in DIR_VECTORS)
            for x, y in [*self.objects, *self.doors]
        )

    def _draw_mission(self) -> None:
        rng = self.np_random
        family = self.mission_family
        if family == "mixed":
            family = MISSIONS[int(rng.integers(len(MISSIONS)))]
        names = [t.name for t in self.objects.values()]
        self.mission_kind = family
        if family == "open":
            doors = [d.name for d in self.doors.values()]
            self.targets = (doors[int(rng.integers(len(doors)))],)
            self.mission = f"open the {self.targets[0]}"
        elif family == "putnext":
            i, j = (int(v) for v in rng.choice(len(names), size=2, replace=False))
            self.targets = (names[i], names[j])
            self.mission = f"put the {names[i]} next to the {names[j]}"
        else:
            self.targets = (names[int(rng.integers(len(names)))],)
            verb = "go to" if family == "goto" else "pick up"
            self.mission = f"{verb} the {self.targets[0]}"

    def _reset(self, options: dict[str, Any]) -> str:
        for _ in range(100):
            self._build()
            if self._approachable():
                break
        self._draw_mission()
        self._achieved, self._achieved_turn = "", -1
        rooms = "a room" if self.num_rooms == 1 else "two rooms joined by a door"
        self.instruction = (
            f"You are in a grid world of {rooms} with balls, boxes, keys and doors. "
            f"Your mission: {self.mission}. "
            "A locked door opens (toggle) only while you carry the key of its colour; "
            "you can carry one object at a time; to put an object next to another, drop it "
            "on a cell that shares a side with it. "
            f"Actions: {', '.join(ACTIONS)}."
        )
        return f"{self.instruction}\n\n{self._describe()}"

    # -- the rules ------------------------------------------------------------------------

    def _parse(self, action: str) -> str | Invalid:
        move = match_action(action, _ACTION_TABLE)
        if move is None:
            return Invalid(f"answer with one of: {', '.join(ACTIONS)}")
        return move

    def _apply(self, action: str) -> Outcome:
        message, achieved = self._act(action)
        self._achieved, self._achieved_turn = achieved, self._turn
        success = self.compute_reward(achieved, self.mission) == 1.0
        reward = 1.0 - 0.9 * self._turn / self.max_steps if success else 0.0
        truncated = not success and self._turn >= self.max_steps
        text = f"{message}\n{self._describe()}"
        if success:
            text += f"\nMission accomplished: {self.mission}."
        elif truncated:
            text += f"\nOut of steps ({self.max_steps}); the mission failed."
        return Outcome(text, reward, terminated=success, truncated=truncated, success=success)

    def _act(self, action: str) -> tuple[str, str]:
        """Play ``action``; return (what happened, the mission it achieved or "")."""
        front = self.front()
        if action in ("turn left", "turn right"):
            self.agent_dir = (self.agent_dir + (3 if action == "turn left" else 1)) % 4
            return f"You turn {action[5:]}.", self._facing_goal()
        if action == "go forward":
            if self.passable(front):
                self.agent_pos = front
                return "You go forward.", self._facing_goal()
            return f"You cannot go forward: {self._what(front)} is in the way.", ""
        if action == "pick up":
            thing = self.objects.get(front)
            if thing is None:
                return "There is nothing to pick up in front of you.", ""
            if self.carrying is not None:
                return f"You already carry the {self.carrying.name}; drop it first.", ""
            self.carrying = self.objects.pop(front)
            return f"You pick up the {thing.name}.", f"pick up the {thing.name}"
        if action == "drop":
            if self.carrying is None:
                return "You carry nothing to drop.", ""
            if self.is_wall(front) or front in self.objects or front in self.doors:
                return f"You cannot drop here: {self._what(front)} is in front of you.", ""
            thing, self.carrying = self.carrying, None
            self.objects[front] = thing
            return f"You drop the {thing.name}.", self._put_goal(front, thing)
        door = self.doors.get(front)
        if door is None:
            return "There is no door in front of you to toggle.", ""
        if door.state == "open":
            door.state = "closed"
            return f"You close the {door.name}.", ""
        if door.state == "locked":
            if self.carrying != Thing("key", door.color):
                return f"The {door.name} is locked; you need the {door.color} key.", ""
            door.state = "open"
            return f"You unlock and open the {door.name}.", f"open the {door.name}"
        door.state = "open"
        return f"You open the {door.name}.", f"open the {door.name}"

    def _facing_goal(self) -> str:
        front = self.front()
        if front in self.objects:
            return f"go to the {self.objects[front].name}"
        if front in self.doors:
            return f"go to the {self.doors[front].name}"
        return ""

    def _put_goal(self, pos: Pos, thing: Thing) -> str:
        """The put-next mission fulfilled by dropping ``thing`` at ``pos``.

        When several neighbours qualify it is the mission's own one, else the first.
        """
        x, y = pos
        near = [
            self.objects[(x + dx, y + dy)].name
            for dx, dy in DIR_VECTORS
            if (x + dx, y + dy) in self.objects
        ]
        if not near:
            return ""
        options = [f"put the {thing.name} next to the {other}" for other in near]
        return self.mission if self.mission in options else options[0]

    def _what(self, pos: Pos) -> str:
        if pos in self.objects:
            return f"the {self.objects[pos].name}"
        if pos in self.doors:
            door = self.doors[pos]
            return f"the {door.state} {door.name}"
        return "a wall"

    # -- observations -------------------------------------------------------------------

    def _describe(self) -> str:
        """GLAM-style sentences for the 7x7 window ahead, plus what the agent carries."""
        (fx, fy), (ax, ay) = DIR_VECTORS[self.agent_dir], self.agent_pos
        rx, ry = -fy, fx  # the agent's right hand
        seen: list[tuple[int, str]] = []
        for ahead in range(VIEW_AHEAD + 1):
            for side in range(-VIEW_SIDE, VIEW_SIDE + 1):
                if ahead == 0 and side == 0:
                    continue
                pos = (ax + ahead * fx + side * rx, ay + ahead * fy + side * ry)
                if pos in self.objects:
                    label = f"a {self.objects[pos].name}"
                elif pos in self.doors:
                    door = self.doors[pos]
                    label = f"{'an' if door.state == 'open' else 'a'} {door.state} {door.name}"
                else:
                    continue
                where = []
                if side:
                    where.append(_steps(abs(side), "left" if side < 0 else "right"))
                if ahead:
                    where.append(_steps(ahead, "forward"))
                seen.append((ahead + abs(side), f"{label} {' and '.join(where)}"))
        lines = [f"You see {text}." for _, text in sorted(seen, key=lambda s: s[0])]
        for word, (dx, dy) in (("forward", (fx, fy)), ("left", (-rx, -ry)), ("right", (rx, ry))):
            for k in range(1, (VIEW_AHEAD if word == "forward" else VIEW_SIDE) + 1):
                pos = (ax + k * dx, ay + k * dy)
                if self.is_wall(pos):
                    lines.append(f"You see a wall {_steps(k, word)}.")
                    break
        held = f"the {self.carrying.name}" if self.carrying else "nothing"
        lines.append(f"You carry {held}.")
        return "\n".join(lines)

    def _legal_actions(self) -> list[str]:
        return list(ACTIONS)

    def _render(self) -> str:
        """The grid, two characters a cell.

        ``##`` wall, ``..`` floor, ``>>`` the agent (arrow = facing), object = kind (``B``
        ball, ``X`` box, ``K`` key) + colour letter (``r g b p y e``: red, green, blue,
        purple, yellow, grey), door = state (``L`` locked, ``D`` closed, ``_`` open) +
        colour letter.
        """
        rows = []
        arrows = ">v<^"
        for y in range(self.height):
            cells = []
            for x in range(self.width):
                pos = (x, y)
                if pos == self.agent_pos:
                    cells.append(arrows[self.agent_dir] * 2)
                elif pos in self.objects:
                    t = self.objects[pos]
                    cells.append(_KIND_LETTER[t.kind] + _COLOR_LETTER[t.color])
                elif pos in self.doors:
                    d = self.doors[pos]
                    cells.append(
                        {"locked": "L", "closed": "D", "open": "_"}[d.state]
                        + _COLOR_LETTER[d.color]
                    )
                else:
                    cells.append("##" if pos in self.walls else "..")
            rows.append(" ".join(cells))
        held = self.carrying.name if self.carrying else "nothing"
        return "\n".join(rows) + f"\nmission: {self.mission}; carrying: {held}"

    def _state_key(self) -> str:
        things = ";".join(f"{x},{y}:{t.name}" for (x, y), t in sorted(self.objects.items()))
        doors = ";".join(f"{x},{y}:{d.state}" for (x, y), d in sorted(self.doors.items()))
        held = self.carrying.name if self.carrying else "-"
        x, y = self.agent_pos
        return f"{x},{y},{self.agent_dir}|{held}|{things}|{doors}"

    def _extra_info(self) -> dict[str, Any]:
        achieved = self._achieved if self._achieved_turn == self._turn else ""
        return {"goal": self.mission, "achieved_goal": achieved}

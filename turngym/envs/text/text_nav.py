"""``TextNav-v0``: find an object in a house of rooms and move it (LMRL-Gym's text nav).

Every reset builds a new house from the seed: a few rooms joined by doors into a
connected graph (a random tree plus, sometimes, one extra door that closes a loop),
some doors closed, furniture from ``text_nav_data`` (containers that may be closed,
surfaces), and objects placed on or in the furniture. The goal is either "put the
<object> in/on the <receptacle>" or "bring the <object> to the <room>". The agent is
told where the target is, not where the object is: it has to search. Actions come
from a small grammar and the legal ones are listed every turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, normalize_action
from turngym.envs.text.text_nav_data import OBJECTS, ROOMS

__all__ = ["CARRIED", "Goal", "Receptacle", "TextNavEnv"]

CARRIED = "inventory"
"""``TextNavEnv.location`` value of an object the agent is carrying."""

_ARTICLES = re.compile(r"\b(the|a|an)\b ?")


@dataclass(frozen=True)
class Receptacle:
    """A piece of furniture: where it stands, ``"in"`` (container) or ``"on"`` (surface)."""

    name: str
    room: str
    prep: str
    can_close: bool


@dataclass(frozen=True)
class Goal:
    """``kind`` is ``"put"`` (``target`` a receptacle) or ``"bring"`` (``target`` a room)."""

    kind: str
    obj: str
    target: str


def _a(name: str) -> str:
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _listing(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" and {items[-1]}"


class TextNavEnv(TextEnv[str]):
    r"""Search a house for an object and put it somewhere or bring it to a room.

    Reward 1 when the goal is met (the episode ends with success), otherwise
    ``-step_cost`` per turn (0 by default). Actions, all listed in
    ``info["legal_actions"]``: ``look``, ``inventory``, ``go to <room>`` (a
    neighbouring room behind an open door), ``open door to <room>``, ``open
    <container>``, ``take <object>`` (seen here) and ``put <object> in|on
    <receptacle>`` (one you carry, furniture here). Articles ("the", "a") are ignored.

    Args:
        num_rooms: rooms in the house, 3 to 10.
        num_objects: objects placed in the house, 1 to 10.
        closed_door_prob: chance that a door starts closed, in [0, 1].
        step_cost: subtracted every turn the goal is not met, in [0, 1].
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/TextNav-v0")
        >>> obs, info = env.reset(seed=0)
        >>> print(env.unwrapped.instruction.split(". ")[-1])
        Goal: bring the apple to the bathroom.
        >>> import textwrap
        >>> print(textwrap.fill(obs.split("\n\n")[1], 80))
        You are in the hallway. Doors: to the study (open). You see a shoe rack (a
        banana and a hammer on it) and a coat closet (nothing in it). You are carrying
        nothing.
        >>> info["legal_actions"]
        ['look', 'inventory', 'go to study', 'take banana', 'take hammer']
        >>> obs, reward, terminated, truncated, info = env.step("Go to the study")
        >>> print(obs.splitlines()[0])
        You go to the study.
        >>> info["legal_actions"][2:]
        ['go to hallway', 'go to bedroom', 'go to bathroom', 'open filing cabinet']

    """

    def __init__(
        self,
        num_rooms: int = 5,
        num_objects: int = 4,
        closed_door_prob: float = 0.3,
        step_cost: float = 0.0,
        **kwargs: Any,
    ) -> None:
        if isinstance(num_rooms, bool) or not isinstance(num_rooms, int):
            raise ValueError(f"num_rooms must be an int from 3 to {len(ROOMS)}, got {num_rooms!r}")
        if not 3 <= num_rooms <= len(ROOMS):
            raise ValueError(f"num_rooms must be an int from 3 to {len(ROOMS)}, got {num_rooms!r}")
        if isinstance(num_objects, bool) or not isinstance(num_objects, int):
            raise ValueError(f"num_objects must be an int from 1 to 10, got {num_objects!r}")
        if not 1 <= num_objects <= 10:
            raise ValueError(f"num_objects must be an int from 1 to 10, got {num_objects!r}")
        if not 0.0 <= closed_door_prob <= 1.0:
            raise ValueError(f"closed_door_prob must be in [0, 1], got {closed_door_prob!r}")
        if not 0.0 <= step_cost <= 1.0:
            raise ValueError(
                f"step_cost must be in [0, 1] (it is subtracted each turn), got {step_cost!r}"
            )
        super().__init__(**kwargs)
        self.num_rooms = num_rooms
        self.num_objects = num_objects
        self.closed_door_prob = float(closed_door_prob)
        self.step_cost = float(step_cost)
        self.rooms: list[str] = []
        self.doors: dict[frozenset[str], bool] = {}
        """door (a pair of rooms) -> whether it is open"""
        self.receptacles: dict[str, Receptacle] = {}
        self.opened: dict[str, bool] = {}
        """receptacle -> whether its contents can be seen and reached"""
        self.location: dict[str, str] = {}
        """object -> receptacle name, or ``CARRIED``"""
        self.room = ""
        self.goal = Goal("bring", "", "")

    # -- the model (also read by the expert) -----------------------------------------

    def neighbours(self, room: str) -> list[str]:
        """Rooms that share a door with ``room``, in house order."""
        return [r for r in self.rooms if frozenset((room, r)) in self.doors]

    def door_open(self, a: str, b: str) -> bool:
        """Whether the door between rooms ``a`` and ``b`` is open."""
        return self.doors[frozenset((a, b))]

    def contents(self, receptacle: str) -> list[str]:
        """Objects in or on ``receptacle`` (sorted by name)."""
        return sorted(o for o, where in self.location.items() if where == receptacle)

    def carried(self) -> list[str]:
        """Objects the agent carries (sorted by name)."""
        return self.contents(CARRIED)

    def goal_met(self) -> bool:
        """Whether the goal holds in the current state."""
        where = self.location.get(self.goal.obj)
        if self.goal.kind == "put":
            return where == self.goal.target
        return where == CARRIED and self.room == self.goal.target

    # -- building a house ------------------------------------------------------------

    def _pick(self, items: list[str]) -> str:
        return items[int(self.np_random.integers(len(items)))]

    def _build_house(self) -> None:
        rng = self.np_random
        names = list(ROOMS)
        self.rooms = [names[i] for i in rng.choice(len(names), size=self.num_rooms, replace=False)]
        pairs = [
            frozenset((room, self._pick(self.rooms[:i]))) for i, room in enumerate(self.rooms) if i
        ]
        if self.num_rooms > 3 and rng.random() < 0.5:
            # One extra door makes a loop, so some rooms can be reached two ways.
            missing = [
                frozenset((a, b))
                for i, a in enumerate(self.rooms)
                for b in self.rooms[i + 1 :]
                if frozenset((a, b)) not in pairs
            ]
            pairs.append(missing[int(rng.integers(len(missing)))])
        self.doors = {pair: bool(rng.random() >= self.closed_door_prob) for pair in pairs}
        self.receptacles = {
            name: Receptacle(name, room, prep, can_close)
            for room in self.rooms
            for name, prep, can_close in ROOMS[room]
        }
        self.opened = {
            n: not r.can_close or bool(rng.random() < 0.5) for n, r in self.receptacles.items()
        }
        objects = [
            OBJECTS[i] for i in rng.choice(len(OBJECTS), size=self.num_objects, replace=False)
        ]
        spots = list(self.receptacles)
        self.location = {obj: self._pick(spots) for obj in objects}
        self.room = self._pick(self.rooms)

    def _draw_goal(self) -> Goal:
        obj = self._pick(sorted(self.location))
        here = self.receptacles[self.location[obj]]
        if self.np_random.random() < 0.5:
            spots = [n for n in self.receptacles if n != here.name]
            return Goal("put", obj, self._pick(spots))
        return Goal("bring", obj, self._pick([r for r in self.rooms if r != here.room]))

    # -- the game --------------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        self._build_house()
        self.goal = self._draw_goal()
        goal = self.goal
        if goal.kind == "put":
            target = self.receptacles[goal.target]
            task = f"put the {goal.obj} {target.prep} the {target.name} (in the {target.room})"
        else:
            task = f"bring the {goal.obj} to the {goal.target}"
        self.instruction = (
            f"You are in a house with {len(self.rooms)} rooms: {_listing(self.rooms)}. Search "
            "for objects in the rooms: containers may be closed, and so may doors. Actions: "
            "look, inventory, go to <room>, open door to <room>, open <container>, take "
            "<object>, put <object> in/on <receptacle>; the legal ones are listed every "
            f"turn. Meeting the goal gives reward 1 and ends the episode. Goal: {task}."
        )
        return f"{self.instruction}\n\n{self.describe_room()}"

    def _actions(self) -> dict[str, str]:
        """Normalized spelling (and lenient aliases) -> canonical legal action."""
        legal = self._legal_actions()
        table = {normalize_action(a): a for a in legal}
        for a in legal:
            if a.startswith("go to "):
                table[a.replace("go to ", "go ", 1)] = a
            elif a.startswith("take "):
                table[a.replace("take ", "pick up ", 1)] = a
            elif a.startswith("put "):
                other = " on " if " in " in a else " in "
                table[a.replace(" in ", other).replace(" on ", other)] = a
        table["i"] = "inventory"
        return table

    def _parse(self, action: str) -> str | Invalid:
        text = _ARTICLES.sub("", normalize_action(action)).strip()
        canonical = self._actions().get(text)
        if canonical is None:
            return Invalid(self._why_not(text))
        return canonical

    def _why_not(self, text: str) -> str:
        """A reason that helps, for an action that is not legal now."""
        exits = ", ".join(self.neighbours(self.room))
        if text.startswith(("go to ", "open door to ")):
            room = text.rsplit(" to ", 1)[1]
            if room not in self.rooms:
                return f"there is no room called {room!r}; doors here lead to: {exits}"
            if room == self.room:
                return f"you are already in the {room}"
            if room not in self.neighbours(self.room):
                return f"no door leads from the {self.room} to the {room}; doors lead to: {exits}"
            if text.startswith("go to "):
                return f"the door to the {room} is closed; open it first: 'open door to {room}'"
            return f"the door to the {room} is already open"
        if text.startswith("open "):
            name = text.removeprefix("open ")
            rec = self.receptacles.get(name)
            if rec is None or rec.room != self.room:
                return f"there is no {name!r} here that you can open"
            return f"the {name} is already open" if rec.can_close else f"the {name} has no lid"
        if text.startswith("take "):
            obj = text.removeprefix("take ")
            if self.location.get(obj) == CARRIED:
                return f"you already carry the {obj}"
            return f"you see no {obj!r} here (closed containers hide what is inside)"
        if text.startswith("put "):
            return (
                "you can only put an object you carry in or on furniture in this room, "
                "and containers must be open"
            )
        return "unknown command; use one of the listed legal actions"

    def _apply(self, action: str) -> Outcome:
        text = self._do(action)
        if self.goal_met():
            return Outcome(f"{text} Goal complete!", 1.0, True, success=True)
        return Outcome(
            f"{text}\n{self.describe_room()}", -self.step_cost if self.step_cost else 0.0
        )

    def _do(self, action: str) -> str:
        if action == "look":
            return "You look around."
        if action == "inventory":
            held = self.carried()
            return f"You are carrying {_listing([_a(o) for o in held]) if held else 'nothing'}."
        if action.startswith("go to "):
            self.room = action.removeprefix("go to ")
            return f"You go to the {self.room}."
        if action.startswith("open door to "):
            room = action.removeprefix("open door to ")
            self.doors[frozenset((self.room, room))] = True
            return f"You open the door to the {room}."
        if action.startswith("open "):
            name = action.removeprefix("open ")
            self.opened[name] = True
            inside = [_a(o) for o in self.contents(name)]
            return f"You open the {name}. Inside you see {_listing(inside) or 'nothing'}."
        if action.startswith("take "):
            obj = action.removeprefix("take ")
            source = self.receptacles[self.location[obj]]
            self.location[obj] = CARRIED
            where = "out of" if source.prep == "in" else "from"
            return f"You take the {obj} {where} the {source.name}."
        obj, _, rest = action.removeprefix("put ").partition(" in ")
        if not rest:
            obj, _, rest = action.removeprefix("put ").partition(" on ")
        self.location[obj] = rest
        return f"You put the {obj} {self.receptacles[rest].prep} the {rest}."

    def _legal_actions(self) -> list[str]:
        here = [r for r in self.receptacles.values() if r.room == self.room]
        near = self.neighbours(self.room)
        actions = ["look", "inventory"]
        actions += [f"go to {r}" for r in near if self.door_open(self.room, r)]
        actions += [f"open door to {r}" for r in near if not self.door_open(self.room, r)]
        actions += [f"open {r.name}" for r in here if not self.opened[r.name]]
        actions += [f"take {o}" for r in here if self.opened[r.name] for o in self.contents(r.name)]
        actions += [
            f"put {o} {r.prep} {r.name}"
            for o in self.carried()
            for r in here
            if self.opened[r.name]
        ]
        return actions

    def describe_room(self) -> str:
        """What the agent sees: the room, its doors, furniture and contents, inventory."""
        doors = [
            f"to the {r} ({'open' if self.door_open(self.room, r) else 'closed'})"
            for r in self.neighbours(self.room)
        ]
        furniture = []
        for rec in self.receptacles.values():
            if rec.room != self.room:
                continue
            if not self.opened[rec.name]:
                furniture.append(f"{_a(rec.name)} (closed)")
                continue
            things = _listing([_a(o) for o in self.contents(rec.name)]) or "nothing"
            furniture.append(f"{_a(rec.name)} ({things} {rec.prep} it)")
        held = self.carried()
        carrying = _listing([_a(o) for o in held]) if held else "nothing"
        return (
            f"You are in the {self.room}. Doors: {', '.join(doors)}. You see "
            f"{_listing(furniture)}. You are carrying {carrying}."
        )

    def _render(self) -> str:
        lines = []
        for room in self.rooms:
            mark = " (you are here)" if room == self.room else ""
            doors = ", ".join(
                f"{r}{'' if self.door_open(room, r) else ' [closed]'}"
                for r in self.neighbours(room)
            )
            lines.append(f"{room}{mark}: doors to {doors}")
            for rec in self.receptacles.values():
                if rec.room == room:
                    state = "" if self.opened[rec.name] else " [closed]"
                    things = ", ".join(self.contents(rec.name)) or "-"
                    lines.append(f"  {rec.name}{state}: {things}")
        lines.append(f"carrying: {', '.join(self.carried()) or '-'}")
        return "\n".join(lines)

    def _state_key(self) -> str:
        doors = "".join("1" if self.doors[p] else "0" for p in self.doors)
        opened = "".join("1" if v else "0" for v in self.opened.values())
        where = ",".join(f"{o}@{w}" for o, w in sorted(self.location.items()))
        return f"{self.room}|{doors}|{opened}|{where}"

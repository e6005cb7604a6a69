"""``FrozenLake-v0``: cross a frozen lake from S to G without falling into a hole.

A native text version of the classic gridworld: the board is drawn with a legend,
actions are ``left``, ``down``, ``right``, ``up``. Maps are the classic fixed 4x4 and
8x8 ones or, with ``map="random"``, a new solvable map drawn from the env's RNG on
every reset. On slippery ice a move goes the intended way with probability 1/3 and
to each side with 1/3, as in Gymnasium's ``FrozenLake-v1``.

With ``goal="random"`` the lake is goal-conditioned: each reset draws the goal cell
among the frozen cells reachable from S, every observation says it in text ("Your
goal: reach row 3, column 2."), and every step reports ``info["goal"]`` and
``info["achieved_goal"]`` (the cell the agent stands on, when a goal could be drawn
there: "" on S and in a hole) for hindsight relabelling; ``compute_reward(achieved_goal,
goal)`` says whether one is the other.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, normalize_action

__all__ = [
    "ACTIONS",
    "FIXED_MAPS",
    "GOALS",
    "FrozenLakeEnv",
    "goal_text",
    "reachable",
    "reachable_cells",
]

ACTIONS: tuple[str, ...] = ("left", "down", "right", "up")
"""Canonical actions, in Gymnasium's order (so ``(a +- 1) % 4`` are the sideways moves)."""
_MOVES: tuple[tuple[int, int], ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))

FIXED_MAPS: dict[int, tuple[str, ...]] = {
    4: ("SFFF", "FHFH", "FFFH", "HFFG"),
    8: (
        "SFFFFFFF",
        "FFFFFFFF",
        "FFFHFFFF",
        "FFFFFHFF",
        "FFFHFFFF",
        "FHHFFFHF",
        "FHFFHFHF",
        "FFFHFFFG",
    ),
}
"""The classic maps of Gymnasium's ``FrozenLake-v1`` (``map_name="4x4"`` / ``"8x8"``)."""

GOALS = ("fixed", "random")
"""``FrozenLakeEnv(goal=...)``: the map's G, or a goal cell drawn on every reset."""

_MAX_HOLE_PROB = 0.5
_SLIPPERY = (
    " The ice is slippery: a move goes the way you chose only 1/3 of the time; "
    "otherwise you slide to one side of it (1/3 each)."
)


def reachable_cells(desc: tuple[str, ...]) -> list[tuple[int, int]]:
    """The cells S reaches by moves that avoid holes (S included), in BFS order.

    >>> reachable_cells(("SH", "FG"))
    [(0, 0), (1, 0), (1, 1)]
    """
    size = len(desc)
    start = next((r, c) for r in range(size) for c in range(size) if desc[r][c] == "S")
    seen = [start]
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for dr, dc in _MOVES:
            nr, nc = r + dr, c + dc
            inside = 0 <= nr < size and 0 <= nc < size
            if inside and desc[nr][nc] != "H" and (nr, nc) not in seen:
                seen.append((nr, nc))
                queue.append((nr, nc))
    return seen


def reachable(desc: tuple[str, ...]) -> bool:
    """Whether G can be reached from S by moves that avoid holes.

    >>> reachable(("SH", "HG"))
    False
    >>> reachable(FIXED_MAPS[4])
    True
    """
    return any(desc[r][c] == "G" for r, c in reachable_cells(desc))


def goal_text(pos: tuple[int, int]) -> str:
    """How goal mode names a cell, in ``info["goal"]`` and ``info["achieved_goal"]``.

    The phrase never appears elsewhere in an observation ("You are at row 3, column 2"
    lacks "reach"), so hindsight relabelling can swap one goal for another in the text.

    >>> goal_text((3, 2))
    'reach row 3, column 2'
    """
    return f"reach row {pos[0]}, column {pos[1]}"


class FrozenLakeEnv(TextEnv[int]):
    """Walk from the start S to the goal G across ice without stepping into a hole H.

    Reward 1 on reaching G (the episode ends, success); stepping into a hole ends the
    episode with reward 0 and no success. Walking into the edge leaves you in place.

    Args:
        size: the board is ``size`` x ``size``; 4 or 8.
        map: ``"fixed"`` (the classic map of that size) or ``"random"`` (a new map each
            reset, always with a hole-free path from S to G).
        is_slippery: a move goes the intended way with probability 1/3 and to each
            perpendicular side with 1/3.
        hole_prob: chance that a cell of a random map is a hole, in [0, 0.5].
        goal: ``"fixed"`` (walk to the map's G) or ``"random"`` (goal-conditioned: each
            reset draws the goal among the frozen cells reachable from S, S excluded;
            the board then shows no G and the text names the goal cell).
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/FrozenLake-v0")
        >>> obs, info = env.reset(seed=0)
        >>> print(obs.splitlines()[-5])
        P F F F
        >>> obs, reward, terminated, truncated, info = env.step("right")
        >>> print(obs.splitlines()[0])
        You moved right.
        >>> obs, reward, terminated, truncated, info = env.step("down")
        >>> terminated, info["success"]
        (True, False)
        >>> env = gym.make("turngym/FrozenLake-v0", goal="random")
        >>> obs, info = env.reset(seed=0)
        >>> info["goal"], info["achieved_goal"]  # S is never a goal: it achieves none
        ('reach row 3, column 2', '')
        >>> info = env.step("down")[-1]
        >>> info["achieved_goal"]
        'reach row 1, column 0'
        >>> env.unwrapped.compute_reward("reach row 3, column 2", info["goal"])
        1.0

    """

    def __init__(
        self,
        size: int = 4,
        map: str = "fixed",
        is_slippery: bool = False,
        hole_prob: float = 0.2,
        goal: str = "fixed",
        **kwargs: Any,
    ) -> None:
        if size not in FIXED_MAPS or isinstance(size, bool):
            raise ValueError(f"size must be 4 or 8, got {size!r}")
        if map not in ("fixed", "random"):
            raise ValueError(f"map must be 'fixed' or 'random', got {map!r}")
        if goal not in GOALS:
            raise ValueError(f"goal must be 'fixed' or 'random', got {goal!r}")
        if not isinstance(is_slippery, bool):
            raise ValueError(f"is_slippery must be True or False, got {is_slippery!r}")
        if not 0.0 <= hole_prob <= _MAX_HOLE_PROB:
            raise ValueError(
                f"hole_prob must be in [0, {_MAX_HOLE_PROB}] (more holes rarely leave a "
                f"path to the goal), got {hole_prob!r}"
            )
        super().__init__(**kwargs)
        self.size = int(size)
        self.map_kind = map
        self.is_slippery = is_slippery
        self.hole_prob = float(hole_prob)
        self.goal_kind = goal
        self.desc: tuple[str, ...] = FIXED_MAPS[self.size]
        self.pos = (0, 0)
        self.goal_pos = (self.size - 1, self.size - 1)
        """The cell that ends the episode with success (the map's G when ``goal="fixed"``)."""
        self._lookup = {name: i for i, name in enumerate(ACTIONS)}

    # -- the model (also read by the expert) -----------------------------------------

    def directions(self, action: int) -> list[int]:
        """The directions ``action`` may actually go, each equally likely."""
        return [(action - 1) % 4, action, (action + 1) % 4] if self.is_slippery else [action]

    def transitions(self, pos: tuple[int, int], action: int) -> list[tuple[float, tuple[int, int]]]:
        """The ``(probability, next position)`` outcomes of ``action`` from ``pos``."""
        directions = self.directions(action)
        return [(1.0 / len(directions), self._move(pos, d)) for d in directions]

    def _move(self, pos: tuple[int, int], direction: int) -> tuple[int, int]:
        dr, dc = _MOVES[direction]
        r = min(max(pos[0] + dr, 0), self.size - 1)
        c = min(max(pos[1] + dc, 0), self.size - 1)
        return r, c

    def cell(self, pos: tuple[int, int]) -> str:
        """The map letter at ``pos``: S, F, H or G (no G in goal mode)."""
        return self.desc[pos[0]][pos[1]]

    # -- goals ------------------------------------------------------------------------

    @property
    def goal(self) -> str:
        """The goal cell as text (``info["goal"]`` in goal mode)."""
        return goal_text(self.goal_pos)

    @staticmethod
    def compute_reward(achieved_goal: str | None, goal: str, info: Any = None) -> float:
        """1.0 if ``achieved_goal`` names the cell ``goal`` names, else 0.0.

        Case and surrounding whitespace are ignored; an empty or None ``achieved_goal``
        names no cell. ``info`` is accepted for the Gymnasium-Robotics ``GoalEnv``
        signature and ignored.

        >>> FrozenLakeEnv.compute_reward("Reach row 1, column 2 ", "reach row 1, column 2")
        1.0
        >>> FrozenLakeEnv.compute_reward("reach row 2, column 1", "reach row 1, column 2")
        0.0
        """
        if not achieved_goal:
            return 0.0
        return 1.0 if achieved_goal.strip().lower() == goal.strip().lower() else 0.0

    # -- the game --------------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        self.desc = self._random_map() if self.map_kind == "random" else FIXED_MAPS[self.size]
        self.pos = (0, 0)
        n = self.size
        if self.goal_kind == "random":
            return self._reset_goal()
        self.goal_pos = (n - 1, n - 1)
        slip = _SLIPPERY if self.is_slippery else ""
        self.instruction = (
            f"You are on a frozen lake ({n}x{n} grid). Walk from the start S (top left) to "
            "the goal G (bottom right) without stepping into a hole H. Legend: S start, "
            "F frozen (safe), H hole, G goal, P you. Rows count from 0 at the top, columns "
            "from 0 at the left. Actions: left, down, right, up. Walking into the edge "
            f"leaves you in place. Reaching G gives reward 1; a hole ends the game.{slip}"
        )
        return f"{self.instruction}\n\n{self._render()}"

    def _reset_goal(self) -> str:
        # Any frozen cell S reaches can be the goal; the map's G is plain ice here, so
        # the board shows no goal letter that could contradict the text.
        cells = [p for p in reachable_cells(self.desc) if self.cell(p) != "S"]
        self.goal_pos = cells[int(self.np_random.integers(len(cells)))]
        self.desc = tuple(row.replace("G", "F") for row in self.desc)
        n = self.size
        slip = _SLIPPERY if self.is_slippery else ""
        self.instruction = (
            f"You are on a frozen lake ({n}x{n} grid). Walk from the start S (top left) to "
            "your goal cell without stepping into a hole H. Legend: S start, F frozen "
            "(safe), H hole, P you. Rows count from 0 at the top, columns from 0 at the "
            "left. Actions: left, down, right, up. Walking into the edge leaves you in "
            f"place. Reaching the goal cell gives reward 1; a hole ends the game.{slip}"
        )
        return f"{self.instruction}\n\n{self._render()}"

    def _random_map(self) -> tuple[str, ...]:
        n = self.size
        # Rejection sampling; with hole_prob <= 0.5 a solvable map turns up quickly.
        while True:
            holes = self.np_random.random((n, n)) < self.hole_prob
            rows = ["".join("H" if holes[r, c] else "F" for c in range(n)) for r in range(n)]
            rows[0] = "S" + rows[0][1:]
            rows[-1] = rows[-1][:-1] + "G"
            desc = tuple(rows)
            if reachable(desc):
                return desc

    def _parse(self, action: str) -> int | Invalid:
        index = self._lookup.get(normalize_action(action).removeprefix("move "))
        if index is None:
            return Invalid("unknown move; answer with one of: left, down, right, up")
        return index

    def _apply(self, action: int) -> Outcome:
        directions = self.directions(action)
        direction = directions[int(self.np_random.integers(len(directions)))]
        before = self.pos
        self.pos = self._move(before, direction)
        if direction != action:
            text = f"You tried to move {ACTIONS[action]} but slipped {ACTIONS[direction]}"
        else:
            text = f"You moved {ACTIONS[action]}"
        if self.pos == before:
            text += " into the edge and stayed where you were"
        text += "."
        here = self.cell(self.pos)
        if self.pos == self.goal_pos:
            return Outcome(
                f"{text} You reached the goal!\n{self._render()}", 1.0, True, success=True
            )
        if here == "H":
            return Outcome(f"{text} You fell into a hole. Game over.\n{self._render()}", 0.0, True)
        return Outcome(f"{text}\n{self._render()}")

    def _legal_actions(self) -> list[str]:
        return list(ACTIONS)

    def _render(self) -> str:
        lines = [
            " ".join("P" if (r, c) == self.pos else ch for c, ch in enumerate(row))
            for r, row in enumerate(self.desc)
        ]
        r, c = self.pos
        text = "\n".join(lines) + f"\nYou are at row {r}, column {c} ({self.cell(self.pos)})."
        if self.goal_kind == "random":
            # Every observation restates the goal: it is drawn per episode, and the
            # first observation alone would leave later turns without it.
            text += f" Your goal: {self.goal}."
        return text

    def _state_key(self) -> str:
        key = f"{'/'.join(self.desc)}@{self.pos[0]},{self.pos[1]}"
        if self.goal_kind == "random":
            key += f">{self.goal_pos[0]},{self.goal_pos[1]}"
        return key

    def _extra_info(self) -> dict[str, Any]:
        if self.goal_kind != "random":
            return {}
        # S and holes are never drawn as goals: relabelling with them would teach the
        # agent goals it never gets (and that falling into a hole can pay).
        here = self.cell(self.pos)
        achieved = "" if here in ("S", "H") else goal_text(self.pos)
        return {"goal": self.goal, "achieved_goal": achieved}

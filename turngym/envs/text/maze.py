"""``Maze-v0``: walk through a random maze to the goal (LMRL-Gym's maze task).

Every reset carves a new perfect maze (exactly one path between any two cells) with
a randomized depth-first search (the "recursive backtracker") on a ``size`` x
``size`` grid whose border and even rows/columns start as walls. The agent starts on
one random room cell and the goal is another. With ``observability="full"`` each
observation draws the whole maze; with ``"partial"`` the agent only learns its
position and which of its four neighbours are walls, as in LMRL-Gym's partially
observed maze. Rewards follow LMRL-Gym: -1 for every move that does not reach the
goal, 0 for the move that does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, normalize_action

__all__ = ["ACTIONS", "MOVES", "MazeEnv", "carve_maze"]

ACTIONS: tuple[str, ...] = ("up", "down", "left", "right")
"""Canonical actions."""
MOVES: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}
"""(row, column) offset of each action; rows count down from the top."""
_COMPASS = {"up": "north", "down": "south", "left": "west", "right": "east"}
_ALIASES = {compass: action for action, compass in _COMPASS.items()} | {
    "n": "up",
    "s": "down",
    "w": "left",
    "e": "right",
}
_MIN_SIZE, _MAX_SIZE = 5, 21

Pos = tuple[int, int]


def carve_maze(size: int, choose: Callable[[int], int]) -> tuple[str, ...]:
    r"""A perfect maze as rows of ``#`` (wall) and ``.`` (open), ``size`` x ``size``.

    Room cells sit at odd (row, column); a depth-first search from (1, 1) knocks down
    the wall between the current room and a random unvisited neighbour, backing up
    when none is left. ``choose(n)`` returns a random index in ``range(n)``.

    >>> print("\n".join(carve_maze(5, lambda n: 0)))
    #####
    #.#.#
    #.#.#
    #...#
    #####
    """
    grid = [["#"] * size for _ in range(size)]
    grid[1][1] = "."
    stack: list[Pos] = [(1, 1)]
    while stack:
        r, c = stack[-1]
        options = [
            (r + 2 * dr, c + 2 * dc)
            for dr, dc in MOVES.values()
            if 0 < r + 2 * dr < size
            and 0 < c + 2 * dc < size
            and grid[r + 2 * dr][c + 2 * dc] == "#"
        ]
        if not options:
            stack.pop()
            continue
        nr, nc = options[choose(len(options))]
        grid[(r + nr) // 2][(c + nc) // 2] = "."
        grid[nr][nc] = "."
        stack.append((nr, nc))
    return tuple("".join(row) for row in grid)


class MazeEnv(TextEnv[str]):
    """Find the way from your start cell to the goal in a random maze.

    Each move costs -1; the move onto the goal gives 0 and ends the episode with
    success (so the return is minus the number of extra moves, LMRL-Gym style).
    Walking into a wall is a legal move that leaves you in place (and still costs -1).

    Args:
        size: side of the square grid, walls included; odd, from 5 to 21. A grid of
            side ``n`` holds ``((n - 1) / 2) ** 2`` rooms. Shortest paths in the
            largest mazes can exceed the registered 100-step limit: raise it with
            ``gym.make(..., max_episode_steps=...)``.
        observability: ``"full"`` (the whole maze is drawn every turn) or
            ``"partial"`` (your coordinates and the four cells around you only).
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/Maze-v0", size=5)
        >>> obs, info = env.reset(seed=0)
        >>> print(env.unwrapped.render_maze())
        # # # # #
        # . . G #
        # # # . #
        # A . . #
        # # # # #
        >>> obs, reward, terminated, truncated, info = env.step("up")
        >>> print(obs.splitlines()[0], reward)
        You walked into a wall to the north and stayed at row 3, column 1. -1.0
        >>> for move in ["right", "right", "up"]:
        ...     obs, reward, terminated, truncated, info = env.step(move)
        >>> obs, reward, terminated, truncated, info = env.step("up")
        >>> reward, terminated, info["success"]
        (0.0, True, True)

    """

    def __init__(self, size: int = 9, observability: str = "full", **kwargs: Any) -> None:
        if (
            not isinstance(size, int)
            or isinstance(size, bool)
            or not _MIN_SIZE <= size <= _MAX_SIZE
            or size % 2 == 0
        ):
            raise ValueError(
                f"size must be an odd int from {_MIN_SIZE} to {_MAX_SIZE} (the grid side, "
                f"walls included), got {size!r}"
            )
        if observability not in ("full", "partial"):
            raise ValueError(f"observability must be 'full' or 'partial', got {observability!r}")
        super().__init__(**kwargs)
        self.size = size
        self.observability = observability
        self.grid: tuple[str, ...] = ()
        self.pos: Pos = (1, 1)
        self.goal: Pos = (1, 1)

    # -- the model (also read by the expert) -----------------------------------------

    def is_open(self, pos: Pos) -> bool:
        """Whether ``pos`` is inside the grid and not a wall."""
        r, c = pos
        return 0 <= r < self.size and 0 <= c < self.size and self.grid[r][c] == "."

    def neighbour(self, pos: Pos, action: str) -> Pos:
        """Where ``action`` leads from ``pos`` (``pos`` itself when a wall is in the way)."""
        dr, dc = MOVES[action]
        nxt = (pos[0] + dr, pos[1] + dc)
        return nxt if self.is_open(nxt) else pos

    # -- the game --------------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        self.grid = carve_maze(self.size, lambda n: int(self.np_random.integers(n)))
        rooms = [(r, c) for r in range(1, self.size, 2) for c in range(1, self.size, 2)]
        start, goal = self.np_random.choice(len(rooms), size=2, replace=False)
        self.pos, self.goal = rooms[int(start)], rooms[int(goal)]
        gr, gc = self.goal
        view = (
            "You see the whole maze every turn. Legend: # wall, . open floor, A you, G goal."
            if self.observability == "full"
            else "You cannot see the maze: each turn you learn your position and whether "
            "there is a wall or open floor to the north, south, west and east of you."
        )
        self.instruction = (
            f"You are in a {self.size}x{self.size} maze (rows count from 0 at the top, "
            f"columns from 0 at the left). Reach the goal at row {gr}, column {gc}. "
            f"{view} Actions: up (north), down (south), left (west), right (east). "
            "Walking into a wall leaves you in place. Every move costs -1; the move that "
            "reaches the goal gives 0 and ends the episode."
        )
        return f"{self.instruction}\n\n{self._view()}"

    def _parse(self, action: str) -> str | Invalid:
        text = normalize_action(action).removeprefix("move ").removeprefix("go ")
        text = _ALIASES.get(text, text)
        if text not in MOVES:
            return Invalid("unknown move; answer with one of: up, down, left, right")
        return text

    def _apply(self, action: str) -> Outcome:
        before = self.pos
        self.pos = self.neighbour(before, action)
        r, c = self.pos
        if self.pos == before:
            side = _COMPASS[action]
            text = f"You walked into a wall to the {side} and stayed at row {r}, column {c}."
        else:
            text = f"You moved {action} to row {r}, column {c}."
        if self.pos == self.goal:
            return Outcome(f"{text} You reached the goal!", 0.0, True, success=True)
        return Outcome(f"{text}\n{self._view()}", -1.0)

    def _legal_actions(self) -> list[str]:
        return list(ACTIONS)

    def _view(self) -> str:
        return self.render_maze() if self.observability == "full" else self.describe_surroundings()

    def render_maze(self) -> str:
        """The whole maze: ``#`` wall, ``.`` floor, ``A`` the agent, ``G`` the goal."""
        marks = {self.goal: "G", self.pos: "A"}
        return "\n".join(
            " ".join(marks.get((r, c), ch) for c, ch in enumerate(row))
            for r, row in enumerate(self.grid)
        )

    def describe_surroundings(self) -> str:
        """Your position and what lies in each compass direction (the partial view)."""
        r, c = self.pos
        sides = []
        for action in ACTIONS:
            dr, dc = MOVES[action]
            cell = (r + dr, c + dc)
            what = "the goal" if cell == self.goal else "open" if self.is_open(cell) else "wall"
            sides.append(f"{_COMPASS[action]}: {what}")
        return f"You are at row {r}, column {c}. " + ", ".join(sides).capitalize() + "."

    def _render(self) -> str:
        return f"{self.render_maze()}\n{self.describe_surroundings()}"

    def _state_key(self) -> str:
        return f"{self.pos[0]},{self.pos[1]}"

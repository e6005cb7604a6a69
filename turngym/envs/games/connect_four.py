"""``ConnectFour-v0``: Connect Four for two players on a 6-row, 7-column board.

Columns are numbered ``1``-``7`` from left to right; a disc dropped into a column
falls to its lowest empty row. ``player_0`` plays X and moves first. Four discs in a
row (horizontal, vertical or diagonal) win: +1 to the winner, -1 to the loser; a full
board without four in a row is a draw (0 each).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from turngym.core import Invalid, normalize_action, read_int
from turngym.envs.games.base import TextGame

__all__ = ["COLS", "COLUMNS", "ROWS", "ConnectFour", "four_in_a_row"]

ROWS = 6
COLS = 7
COLUMNS: tuple[str, ...] = tuple(str(c + 1) for c in range(COLS))
"""Action names: the column numbers ``1``..``7``, left to right."""
_MARKS = (".", "X", "O")
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def _rays(cell: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """For each direction, the cells (up to 3) on either side of ``cell``, nearest first."""
    r0, c0 = divmod(cell, COLS)
    out = []
    for dr, dc in _DIRECTIONS:
        sides = []
        for sign in (1, -1):
            ray = []
            for step in range(1, 4):
                r, c = r0 + sign * step * dr, c0 + sign * step * dc
                if not (0 <= r < ROWS and 0 <= c < COLS):
                    break
                ray.append(r * COLS + c)
            sides.append(tuple(ray))
        out.append((sides[0], sides[1]))
    return tuple(out)


_RAYS = tuple(_rays(cell) for cell in range(ROWS * COLS))
"""Board cells are ``row * 7 + column`` with row 0 at the top."""
_LEGAL = tuple([COLUMNS[c] for c in range(COLS) if not full >> c & 1] for full in range(1 << COLS))
"""The legal columns for each bitmask of full columns."""
_HEADER = " " + " ".join(COLUMNS)
_EMPTY_ROW = " ." * COLS
_STRIP = re.compile(r"[\s\[\](){}.,!:#'\"]+")
_COLUMN = re.compile(r"(?:(?:drop|play|move)(?:in|into)?)?(?:the)?(?:column|col|c)?([0-9]+)")


def _line_through(board: list[int], cell: int) -> bool:
    """Whether the disc at ``cell`` is part of four (or more) in a row."""
    mark = board[cell]
    for forward, backward in _RAYS[cell]:
        count = 1
        for k in forward:
            if board[k] != mark:
                break
            count += 1
        for k in backward:
            if board[k] != mark:
                break
            count += 1
        if count >= 4:
            return True
    return False


def four_in_a_row(board: list[int] | tuple[int, ...]) -> int:
    """1 (X) or 2 (O) when that mark has four in a row anywhere, else 0.

    >>> board = [0] * 42
    >>> for cell in (38, 39, 40, 41):  # the bottom row, columns 4-7
    ...     board[cell] = 2
    >>> four_in_a_row(board)
    2
    """
    cells = list(board)
    for cell, mark in enumerate(cells):
        if mark and _line_through(cells, cell):
            return mark
    return 0


class ConnectFour(TextGame[int]):
    r"""Connect Four: X (``player_0``) and O drop discs into columns; four in a row wins.

    Actions: a column number ``1``..``7`` (left to right); ``column 3``, ``col 3`` and
    ``drop 3`` are accepted too, in any case and spacing.

    Example:
        >>> game = ConnectFour()
        >>> game.reset(seed=0)
        >>> for column in ["4", "3", "4", "3", "4", "3"]:
        ...     game.step(column)
        >>> game.step("column 4")  # X: four in column 4
        >>> print("\n".join(game.observe("player_1")["text"].splitlines()[-7:]))
         1 2 3 4 5 6 7
         . . . . . . .
         . . . . . . .
         . . . X . . .
         . . O X . . .
         . . O X . . .
         . . O X . . .
        >>> game.returns, game.terminations["player_0"]
        ([1.0, -1.0], True)

    """

    metadata: ClassVar[dict[str, Any]] = {**TextGame.metadata, "name": "connect_four_v0"}
    action_names = COLUMNS

    def __init__(
        self,
        *,
        num_players: int = 2,
        invalid_action_penalty: float = 0.0,
        max_invalid_actions: int | None = 3,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            num_players=num_players,
            invalid_action_penalty=invalid_action_penalty,
            max_invalid_actions=max_invalid_actions,
            render_mode=render_mode,
        )

    def _start(self, options: dict[str, Any]) -> str:
        self.board = [0] * (ROWS * COLS)
        self.heights = [0] * COLS
        self._full = 0  # bitmask of full columns
        self._rows = [_EMPTY_ROW] * ROWS  # the board's text, kept up to date move by move
        self._grid_text: str | None = None
        self.current = 0
        return (
            "Connect Four. Two players take turns dropping a disc into one of 7 columns, "
            "numbered 1 to 7 from left to right; the disc falls to the lowest empty row of "
            "the column (the board has 6 rows). X (player_0) moves first, then O (player_1). "
            "Four of your discs in a row (horizontally, vertically or diagonally) wins (+1; "
            "the loser gets -1); a full board without four in a row is a draw (0). A full "
            "column takes no more discs. Answer with a column number: 4 is the centre "
            "column ('column 4' works too)."
        )

    def _legal(self) -> list[str]:
        return _LEGAL[self._full]

    def _parse(self, action: str) -> int | Invalid:
        c = self._exact.get(action)
        if c is None:
            match = _COLUMN.fullmatch(_STRIP.sub("", normalize_action(action)))
            if match is None:
                return Invalid(
                    f"no column {action.strip()[:20]!r}; answer with a column number 1-7"
                )
            number = read_int(match.group(1))
            if number is None or not 1 <= number <= COLS:
                return Invalid(f"there is no column {match.group(1)[:12]}; the columns are 1-7")
            c = number - 1
        if self._full >> c & 1:
            return Invalid(f"column {c + 1} is full; legal: {', '.join(self._legal())}")
        return c

    def _apply(self, c: int) -> None:
        i = self.current
        mark = i + 1
        height = self.heights[c]
        cell = (ROWS - 1 - height) * COLS + c
        board = self.board
        board[cell] = mark
        self.heights[c] = height + 1
        if height + 1 == ROWS:
            self._full |= 1 << c
        row = self._rows[ROWS - 1 - height]
        self._rows[ROWS - 1 - height] = f"{row[: 2 * c + 1]}{_MARKS[mark]}{row[2 * c + 2 :]}"
        self._grid_text = None
        name = self.possible_agents[i]
        self.announce(f"{name} ({_MARKS[mark]}) dropped a disc in column {c + 1}.")
        if _line_through(board, cell):
            self.pay(i, 1.0)
            self.pay(1 - i, -1.0)
            self.finish(f"{_MARKS[mark]} has four in a row: {name} wins.")
        elif self._full == (1 << COLS) - 1:
            self.finish("The board is full: a draw.")
        else:
            self.current = 1 - i

    def _view(self, i: int) -> str:
        return f"You are {_MARKS[i + 1]} ({self.possible_agents[i]}).\n{self.grid()}"

    def grid(self) -> str:
        """The board as text: column numbers on top, then the rows from the top down."""
        text = self._grid_text
        if text is None:
            text = self._grid_text = "\n".join((_HEADER, *self._rows))
        return text

    def _render(self) -> str:
        to_move = "game over" if self.over else f"{_MARKS[self.current + 1]} to move"
        return f"{self.grid()}\n{to_move}"

    def check_invariants(self) -> str | None:
        """What breaks the rules: floating discs, text that disagrees, a wrong disc count."""
        board = self.board
        for c in range(COLS):
            column = [board[r * COLS + c] for r in range(ROWS - 1, -1, -1)]  # bottom up
            height = self.heights[c]
            if not all(column[:height]):
                return f"column {c + 1} has holes below height {height}"
            if any(column[height:]):
                return f"column {c + 1} has a disc above height {height}"
            if bool(self._full >> c & 1) != (height == ROWS):
                return f"column {c + 1}: full flag disagrees with height {height}"
        drawn = [
            " " + " ".join(_MARKS[board[r * COLS + c]] for c in range(COLS)) for r in range(ROWS)
        ]
        if drawn != self._rows:
            return "the board's text disagrees with the board"
        x, o = board.count(1), board.count(2)
        if x - o not in (0, 1):
            return f"X has {x} discs and O {o}"
        if not self.over and self.current != x - o:
            return f"player_{self.current} to move with X={x}, O={o}"
        return None

"""``TicTacToe-v0``: noughts and crosses for two players.

Cells are named like a spreadsheet: a column letter ``a``-``c`` and a row number
``1``-``3`` counted from the top (``b2`` is the centre). ``player_0`` plays X and
moves first. A win pays +1 to the winner and -1 to the loser; a draw pays 0.
"""

from __future__ import annotations

import functools
import re
from typing import Any, ClassVar

from turngym.core import Invalid, normalize_action
from turngym.envs.games.base import TextGame

__all__ = ["CELLS", "LINES", "TicTacToe", "winner"]

CELLS: tuple[str, ...] = tuple(f"{c}{r}" for r in "123" for c in "abc")
"""Cell names in reading order: a1 b1 c1 / a2 b2 c2 / a3 b3 c3."""
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)  # fmt: skip
"""The eight winning lines, as cell indices."""
_PAIRS = tuple(
    tuple(tuple(c for c in line if c != cell) for line in LINES if cell in line)
    for cell in range(9)
)
"""For each cell, the other two cells of every line through it."""
_MARKS = (".", "X", "O")
_ALIASES = {f"{r}{c}": f"{c}{r}" for r in "123" for c in "abc"} | {
    str(k + 1): name for k, name in enumerate(CELLS)
}
_PUNCTUATION = re.compile(r"[\s,()\[\]]+")
_NEWS = tuple(
    tuple(f"player_{i} ({_MARKS[i + 1]}) marked {cell}." for cell in CELLS) for i in range(2)
)


def winner(board: list[int] | tuple[int, ...]) -> int:
    """1 (X) or 2 (O) when that mark has three in a line, else 0.

    >>> winner([1, 1, 1, 0, 2, 2, 0, 0, 0])
    1
    """
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return 0


@functools.lru_cache(maxsize=20_000)  # 3**9 boards at most
def _grid(board: tuple[int, ...]) -> str:
    rows = [" ".join(_MARKS[board[3 * r + c]] for c in range(3)) for r in range(3)]
    return "   a b c\n" + "\n".join(f"{r + 1}  {row}" for r, row in enumerate(rows))


@functools.lru_cache(maxsize=40_000)
def _view(board: tuple[int, ...], i: int) -> str:
    return f"You are {_MARKS[i + 1]} (player_{i}).\n{_grid(board)}"


def _wins(board: list[int], k: int, mark: int) -> bool:
    """Whether ``mark``, just put on cell ``k``, completes a line."""
    for a, b in _PAIRS[k]:  # noqa: SIM110 - a plain loop beats any() on this hot path
        if board[a] == mark and board[b] == mark:
            return True
    return False


class TicTacToe(TextGame[int]):
    """Tic-tac-toe: X (``player_0``) and O take turns marking cells; three in a line wins.

    Actions: a cell name, ``a1`` .. ``c3`` (column letter, row number from the top);
    ``B2``, ``2b`` and keypad numbers ``1``-``9`` in reading order are accepted too.

    Example:
        >>> game = TicTacToe()
        >>> game.reset(seed=0)
        >>> for cell in ["b2", "a1", "c1", "a3", "a2", "c3", "b1", "b3"]:
        ...     game.step(cell)
        >>> print(game.observe("player_1")["text"].splitlines()[-4:])
        ['   a b c', '1  O X X', '2  X X .', '3  O O O']
        >>> game.returns, game.terminations["player_0"]
        ([-1.0, 1.0], True)

    """

    metadata: ClassVar[dict[str, Any]] = {**TextGame.metadata, "name": "tictactoe_v0"}
    action_names = CELLS

    def _start(self, options: dict[str, Any]) -> str:
        self.board = [0] * 9
        self.current = 0
        return (
            "Tic-tac-toe. Two players take turns marking an empty cell, X (player_0) first, "
            "then O (player_1). Three of your marks in a row, column or diagonal wins (+1; "
            "the loser gets -1); a full board without a line is a draw (0). Name a cell by "
            "column letter and row number from the top: a1 is the top-left corner, b2 the "
            "centre, c3 the bottom-right."
        )

    def _legal_state(self) -> tuple[int, ...]:
        return tuple(self.board)

    def _legal(self) -> list[str]:
        board = self.board
        return [CELLS[k] for k in range(9) if not board[k]]

    def _parse(self, action: str) -> int | Invalid:
        k = self._exact.get(action)
        if k is None:
            key = _PUNCTUATION.sub("", normalize_action(action))
            k = self._index.get(_ALIASES.get(key, key))
        if k is None:
            return Invalid(f"no cell {action.strip()[:20]!r}; name one like b2 (column, row)")
        if self.board[k]:
            return Invalid(f"{CELLS[k]} is taken by {_MARKS[self.board[k]]}")
        return k

    def _apply(self, k: int) -> None:
        i = self.current
        mark = i + 1
        board = self.board
        board[k] = mark
        news = _NEWS[i][k]
        for pending in self._pending:
            pending.append(news)
        if _wins(board, k, mark):
            self.pay(i, 1.0)
            self.pay(1 - i, -1.0)
            self.finish(f"{_MARKS[mark]} has three in a line: {self.possible_agents[i]} wins.")
        elif self.turn == 8:  # the ninth mark fills the board
            self.finish("The board is full: a draw.")
        else:
            self.current = 1 - i

    def _view(self, i: int) -> str:
        return _view(tuple(self.board), i)

    def _grid(self) -> str:
        return _grid(tuple(self.board))

    def _render(self) -> str:
        to_move = "game over" if self.over else f"{_MARKS[self.current + 1]} to move"
        return f"{self._grid()}\n{to_move}"

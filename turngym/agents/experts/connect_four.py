"""Expert for ``ConnectFour-v0``: depth-limited negamax with alpha-beta on bitboards.

The board is two Python ints (the Pascal Pons layout: column ``c`` holds bits
``7c .. 7c+5`` from the bottom up, bit ``7c+6`` is a guard), so a move, a win test
and the threat count are a handful of shifts and ``&``s. The search:

- wins at once when it can, and never plays a move that hands the opponent an
  immediate win (a forced block when there is one threat; a lost position when two);
- otherwise searches ``depth`` plies (default 5) with alpha-beta, centre columns
  first, and scores the leaves by threats (empty cells that would complete four)
  and the number of four-cell windows through each disc (the centre counts most);
- breaks ties between equally scored root moves with its own seeded RNG.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from turngym.agents.base import BaseAgent, game_of
from turngym.envs.games.connect_four import COLS, COLUMNS, ROWS, ConnectFour

__all__ = ["ConnectFourExpert", "move_scores"]

_EXPERT_STREAM = (0xC4C4,)
_H = ROWS + 1  # bits per column, with the guard bit
_BOTTOM = sum(1 << (c * _H) for c in range(COLS))
_BOARD = _BOTTOM * ((1 << ROWS) - 1)
_COLUMN = tuple(((1 << ROWS) - 1) << (c * _H) for c in range(COLS))
_ORDER = (3, 2, 4, 1, 5, 0, 6)  # centre first: better moves first prune more
_WIN = 1_000_000
_WEIGHTS = (
    (3, 4, 5, 7, 5, 4, 3),
    (4, 6, 8, 10, 8, 6, 4),
    (5, 8, 11, 13, 11, 8, 5),
    (5, 8, 11, 13, 11, 8, 5),
    (4, 6, 8, 10, 8, 6, 4),
    (3, 4, 5, 7, 5, 4, 3),
)
"""The number of four-cell windows through each cell (rows top down)."""
_WEIGHT_MASKS = tuple(
    (
        w,
        sum(
            1 << (c * _H + ROWS - 1 - r)
            for r in range(ROWS)
            for c in range(COLS)
            if _WEIGHTS[r][c] == w
        ),
    )
    for w in sorted({w for row in _WEIGHTS for w in row})
)
_THREAT = 16  # one open three is worth more than any placement difference per disc


def _winning_cells(pos: int, mask: int) -> int:
    """The empty cells that would give ``pos`` four in a row (playable or not)."""
    r = (pos << 1) & (pos << 2) & (pos << 3)  # vertical: only upward
    for shift in (_H, _H - 1, _H + 1):  # horizontal and the two diagonals
        p = (pos << shift) & (pos << 2 * shift)
        r |= p & (pos << 3 * shift)
        r |= p & (pos >> shift)
        p = (pos >> shift) & (pos >> 2 * shift)
        r |= p & (pos << shift)
        r |= p & (pos >> 3 * shift)
    return r & (_BOARD ^ mask)


def _evaluate(pos: int, mask: int, own_wins: int, opp_wins: int) -> int:
    """A heuristic score for the side to move (``pos``): threats, then central discs."""
    opp = pos ^ mask
    score = _THREAT * (own_wins.bit_count() - opp_wins.bit_count())
    for weight, cells in _WEIGHT_MASKS:
        score += weight * ((pos & cells).bit_count() - (opp & cells).bit_count())
    return score


def _negamax(pos: int, mask: int, moves: int, depth: int, alpha: int, beta: int) -> int:
    """The score for the side to move (``pos``) searching ``depth`` more plies.

    A win scores ``_WIN - moves`` (sooner is better), a loss the negative.
    """
    possible = (mask + _BOTTOM) & _BOARD
    own_wins = _winning_cells(pos, mask)
    if own_wins & possible:
        return _WIN - moves - 1
    if moves >= ROWS * COLS - 1:  # the last disc cannot win (checked above): a draw
        return 0
    opp = pos ^ mask
    opp_wins = _winning_cells(opp, mask)
    forced = possible & opp_wins
    if forced:
        if forced & (forced - 1):  # two threats: only one can be blocked
            return -(_WIN - moves - 2)
        possible = forced
    possible &= ~(opp_wins >> 1)  # never fill the cell below an opponent's win
    if not possible:
        return -(_WIN - moves - 2)
    if depth == 0:
        return _evaluate(pos, mask, own_wins, opp_wins)
    children = [possible & _COLUMN[c] for c in _ORDER]
    if depth >= 2:  # moves that make the most threats first (stable: centre breaks ties)
        children.sort(key=lambda m: -_winning_cells(pos | m, mask | m).bit_count())
    best = -_WIN - 1
    for move in children:
        if not move:
            continue
        score = -_negamax(opp, mask | move, moves + 1, depth - 1, -beta, -alpha)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best


def _bitboards(board: list[int], mark: int) -> tuple[int, int, int]:
    """(stones of ``mark``, all stones, disc count) of a ``ConnectFour.board``."""
    pos = mask = 0
    for cell, value in enumerate(board):
        if value:
            r, c = divmod(cell, COLS)
            bit = 1 << (c * _H + ROWS - 1 - r)
            mask |= bit
            if value == mark:
                pos |= bit
    return pos, mask, mask.bit_count()


def move_scores(board: list[int], mark: int, depth: int = 5) -> dict[int, int]:
    """Each legal column's (0-based) negamax score for ``mark`` (1 = X, 2 = O) to move.

    Scores near +-1,000,000 are forced wins/losses; the rest are heuristic. Columns
    tied with the best get the exact best score; worse ones may get an upper bound.

    >>> board = [0] * 42
    >>> for cell in (35, 36, 37):  # X on the bottom row, columns 1-3
    ...     board[cell] = 1
    >>> scores = move_scores(board, 1, depth=2)
    >>> max(scores, key=scores.get)  # column 4 (index 3) wins at once
    3
    """
    pos, mask, moves = _bitboards(board, mark)
    possible = (mask + _BOTTOM) & _BOARD
    scores: dict[int, int] = {}
    best = -_WIN - 1
    for c in _ORDER:
        move = possible & _COLUMN[c]
        if not move:
            continue
        if _winning_cells(pos, mask) & move:
            score = _WIN - moves - 1
        else:  # a window just below the best so far still finds every tie exactly
            score = -_negamax(pos ^ mask, mask | move, moves + 1, depth - 1, -_WIN - 1, 1 - best)
        scores[c] = score
        best = max(best, score)
    return scores


class ConnectFourExpert(BaseAgent):
    """Negamax to ``depth`` plies with alpha-beta; wins and blocks at once when it must.

    Args:
        env: the ``ConnectFour`` game, wrapped or not, or a ``GameView`` of it.
        seed: seeds the tie-breaking RNG (``reset`` reseeds it).
        depth: plies to search (>= 1); 5 takes a few milliseconds a move in CPython.

    Example:
        >>> from turngym.envs.games.connect_four import ConnectFour
        >>> game = ConnectFour()
        >>> game.reset(seed=0)
        >>> for column in ["1", "4", "1", "4", "2", "4"]:
        ...     game.step(column)
        >>> ConnectFourExpert(game, seed=0).act(None, game.infos["player_0"])  # block O
        '4'

    """

    def __init__(self, env: Any, seed: int | None = None, depth: int = 5) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be an int >= 1, got {depth!r}")
        self.game = game_of(env, ConnectFour, "ConnectFourExpert")
        self.depth = depth
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the tie-breaking RNG."""
        self._rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=_EXPERT_STREAM))

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """A best column for the player to move."""
        game = self.game
        scores = move_scores(game.board, game.current + 1, self.depth)
        best = max(scores.values())
        choices = sorted(c for c, s in scores.items() if s == best)
        return COLUMNS[choices[int(self._rng.integers(len(choices)))]]

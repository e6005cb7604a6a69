"""Expert for ``TicTacToe-v0``: perfect play by minimax over the whole game tree."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from turngym.agents.base import BaseAgent, game_of
from turngym.envs.games.tictactoe import CELLS, TicTacToe, winner

__all__ = ["TicTacToeExpert", "move_values"]

_EXPERT_STREAM = (0x7770,)


@functools.cache
def _value(board: tuple[int, ...], mark: int) -> int:
    """The value for ``mark`` (to move) under perfect play: +(10 - moves) win, 0 draw."""
    won = winner(board)
    if won:
        return -(10 - sum(1 for c in board if c))  # the previous mover won
    empty = [k for k in range(9) if not board[k]]
    if not empty:
        return 0
    other = 3 - mark
    return max(-_value(_play(board, k, mark), other) for k in empty)


def _play(board: tuple[int, ...], k: int, mark: int) -> tuple[int, ...]:
    return (*board[:k], mark, *board[k + 1 :])


def move_values(board: tuple[int, ...], mark: int) -> dict[int, int]:
    """Each empty cell's minimax value for ``mark`` to move (higher is better).

    >>> values = move_values((1, 1, 0, 2, 2, 0, 0, 0, 0), 1)  # X to move: c1 wins now
    >>> max(values, key=values.get)
    2
    """
    other = 3 - mark
    return {k: -_value(_play(board, k, mark), other) for k in range(9) if not board[k]}


class TicTacToeExpert(BaseAgent):
    """Plays a best move for whoever is to move: never loses, wins as fast as it can.

    Ties between equally good moves are broken at random (its own seeded RNG), so
    self-play games differ.
    """

    def __init__(self, env: Any, seed: int | None = None) -> None:
        self.game = game_of(env, TicTacToe, "TicTacToeExpert")
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the tie-breaking RNG."""
        self._rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=_EXPERT_STREAM))

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """A best cell for the player to move."""
        game = self.game
        values = move_values(tuple(game.board), game.current + 1)
        best = max(values.values())
        choices = [k for k, v in values.items() if v == best]
        return CELLS[choices[int(self._rng.integers(len(choices)))]]

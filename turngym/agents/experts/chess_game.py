"""Expert for ``Chess-v0`` and ``ChessEndgame-v0``: Stockfish at full strength, searched deep.

It plays Stockfish's best move at a fixed depth (deterministic, like the opponent's
searches). Where Stockfish is missing it falls back to turngym's Python engine, which
is too weak to be called an expert; the chess tests need Stockfish.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.chess_engine import Engine, StockfishEngine, find_stockfish
from turngym.envs.text.chess_fallback import PythonEngine
from turngym.envs.text.chess_game import ChessEnv

__all__ = ["ChessExpert"]


class ChessExpert(BaseAgent):
    """Plays Stockfish's best move, searched to ``depth`` plies.

    Args:
        env: a ``ChessEnv`` (or a wrapper around one).
        depth: search depth; the default (8, or 12 with 7 pieces or fewer on the board)
            beats the default opponents and mates the endgames well within the
            50-move rule.

    """

    def __init__(self, env: gym.Env, depth: int | None = None) -> None:
        self._env = unwrap(env, ChessEnv, "ChessExpert")
        self.depth = depth
        path = find_stockfish()
        self.engine: Engine = StockfishEngine(path) if path else PythonEngine()

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The engine's best move, spelled in the env's notation."""
        board = self._env.board
        depth = self.depth or (14 if len(board.piece_map()) <= 6 else 8)
        best = self.engine.analyse(board, depth, 1)[0].move
        return board.san(best) if self._env.notation == "san" else best.uci()

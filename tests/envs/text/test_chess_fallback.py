from __future__ import annotations

import numpy as np
import pytest

chess = pytest.importorskip("chess", reason="python-chess missing: pip install 'turngym[chess]'")

from turngym.envs.text.chess_engine import MATE_SCORE  # noqa: E402
from turngym.envs.text.chess_fallback import PythonEngine, evaluate  # noqa: E402
from turngym.envs.text.chess_game import ENDGAMES, game_result, random_endgame  # noqa: E402


def _random_positions(n: int, seed: int = 0) -> list[chess.Board]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        board = chess.Board()
        for _ in range(int(rng.integers(4, 60))):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(moves[int(rng.integers(len(moves)))])
        out.append(board)
    return out


def test_evaluation_is_colour_symmetric():
    for board in _random_positions(60):
        assert evaluate(board) == evaluate(board.mirror()), board.fen()


def test_evaluation_counts_material():
    assert evaluate(chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) > 800
    assert evaluate(chess.Board("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")) < -800


def test_wins_a_hanging_queen_and_keeps_its_own():
    engine = PythonEngine()
    board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    assert engine.analyse(board, depth=1, multipv=1)[0].move == chess.Move.from_uci("d1d5")
    # Black to move with its queen attacked by a pawn: it moves the queen away
    board = chess.Board("4k3/8/8/3q4/4P3/8/8/4K3 b - - 0 1")
    best = engine.analyse(board, depth=2, multipv=1)[0].move
    assert best.from_square == chess.D5 and not board.is_attacked_by(chess.WHITE, best.to_square)


def test_multipv_gives_distinct_legal_moves_best_first():
    engine = PythonEngine()
    for board in _random_positions(10, seed=1):
        if game_result(board) is not None:
            continue
        scored = engine.analyse(board, depth=1, multipv=4)
        moves = [s.move for s in scored]
        assert len(moves) == min(4, board.legal_moves.count())
        assert len(set(moves)) == len(moves) and all(m in board.legal_moves for m in moves)
        assert [s.score for s in scored] == sorted((s.score for s in scored), reverse=True)


def test_mate_scores_count_plies():
    engine = PythonEngine()
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    assert engine.analyse(board, depth=2, multipv=1)[0].score == MATE_SCORE - 1
    assert engine.analyse(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), 2, 1) == []  # stalemate


@pytest.mark.parametrize("name", ["KQvK", "KRvK"])
def test_mop_up_mates_a_bare_king_against_itself(name):
    engine = PythonEngine()
    for seed in range(4):
        rng = np.random.default_rng(seed)
        board = random_endgame(ENDGAMES[name], chess.WHITE, rng.integers)
        while game_result(board) is None:
            board.push(engine.analyse(board, depth=2, multipv=1)[0].move)
        assert game_result(board) == (chess.WHITE, "checkmate"), board.fen()


def test_max_depth_is_checked():
    with pytest.raises(ValueError, match=r"max_depth must be 1\.\.4"):
        PythonEngine(max_depth=9)

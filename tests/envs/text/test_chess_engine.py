from __future__ import annotations

import numpy as np
import pytest

chess = pytest.importorskip("chess", reason="python-chess missing: pip install 'turngym[chess]'")

from tests import system_deps  # noqa: E402
from turngym.envs.text.chess_engine import (  # noqa: E402
    _POOL,
    MATE_SCORE,
    ScoredMove,
    StockfishEngine,
    find_stockfish,
    pick_move,
    skill_profile,
)

STOCKFISH = find_stockfish()
needs_stockfish = system_deps.stockfish()


# -- skill -------------------------------------------------------------------------------


def test_skill_profiles_get_stronger_with_the_level():
    profiles = [skill_profile(level) for level in range(21)]
    depths = [p.depth for p in profiles]
    temperatures = [p.temperature for p in profiles]
    assert depths == sorted(depths) and depths[0] == 1 and depths[-1] == 12
    assert temperatures == sorted(temperatures, reverse=True) and temperatures[-1] == 0
    assert [p.multipv for p in profiles][::6] == [5, 4, 3, 2]
    assert profiles[20].multipv == 1


@pytest.mark.parametrize("level", [-1, 21, 2.0, "3", True, None])
def test_skill_profile_rejects_bad_levels(level):
    with pytest.raises(ValueError, match="skill must be an int from 0 to 20"):
        skill_profile(level)


def _moves(*scores: int) -> list[ScoredMove]:
    ucis = ["e2e4", "d2d4", "g1f3", "c2c4", "b1c3"]
    return [ScoredMove(chess.Move.from_uci(u), s) for u, s in zip(ucis, scores, strict=False)]


def test_pick_move_at_temperature_zero_is_the_best_and_uses_one_draw():
    rng, twin = np.random.default_rng(1), np.random.default_rng(1)
    assert pick_move(_moves(30, 20, 10), 0.0, rng) == chess.Move.from_uci("e2e4")
    twin.random()
    assert rng.random() == twin.random()  # one draw per pick, whatever the temperature


def test_pick_move_follows_the_softmax():
    rng = np.random.default_rng(0)
    scored = _moves(0, -100, -900)
    counts = {m.move.uci(): 0 for m in scored}
    for _ in range(4000):
        counts[pick_move(scored, 100.0, rng).uci()] += 1
    # exp(0), exp(-1), exp(-9): 73.1%, 26.9%, 0.01%
    assert abs(counts["e2e4"] / 4000 - 0.731) < 0.03
    assert abs(counts["d2d4"] / 4000 - 0.269) < 0.03
    assert counts["g1f3"] <= 3


def test_pick_move_needs_candidates():
    with pytest.raises(ValueError, match="no candidate moves"):
        pick_move([], 1.0, np.random.default_rng(0))


# -- finding and running Stockfish ---------------------------------------------------------


def test_find_stockfish_order(monkeypatch, tmp_path):
    fake = tmp_path / "my-stockfish"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("TURNGYM_STOCKFISH", str(fake))
    assert find_stockfish() == str(fake)
    assert find_stockfish("true") is not None  # an explicit path wins over the variable
    monkeypatch.setenv("TURNGYM_STOCKFISH", str(tmp_path / "missing"))
    assert find_stockfish() is None  # a variable that points nowhere is not second-guessed
    monkeypatch.delenv("TURNGYM_STOCKFISH")
    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "stockfish").write_text("#!/bin/sh\n")
    (tmp_path / "stockfish").chmod(0o755)
    assert find_stockfish() == str(tmp_path / "stockfish")


@needs_stockfish
def test_analyse_scores_and_orders_the_best_moves():
    engine = StockfishEngine(STOCKFISH)
    assert engine.name.startswith("Stockfish")
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    best = engine.analyse(board, depth=6, multipv=3)
    assert len(best) == 3 and len({b.move for b in best}) == 3
    assert best[0].move == chess.Move.from_uci("a1a8") and best[0].score == MATE_SCORE - 1
    assert best[0].score > best[1].score >= best[2].score
    assert all(b.move in board.legal_moves for b in best)
    # scores are for the side to move: Black, a rook down here, sees a negative score
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 1")
    assert engine.analyse(board, depth=6, multipv=1)[0].score < -300


@needs_stockfish
def test_searches_are_pure_functions_of_the_position():
    engine = StockfishEngine(STOCKFISH)
    board = chess.Board()
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5"]:
        board.push_san(san)
    first = engine.analyse(board, depth=8, multipv=4)
    engine.analyse(chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1"), depth=10, multipv=2)
    assert engine.analyse(board, depth=8, multipv=4) == first


@needs_stockfish
def test_engines_share_one_process_and_survive_its_death():
    a, b = StockfishEngine(STOCKFISH), StockfishEngine(STOCKFISH)
    assert a._process() is b._process()
    assert StockfishEngine(STOCKFISH, elo=1400)._process() is not a._process()
    process = a._process()
    process._proc.kill()
    process._proc.wait()
    assert a.analyse(chess.Board(), depth=3, multipv=1)  # restarted once, transparently
    assert process._proc.poll() is None
    assert any(p is process for p in _POOL.values())


@needs_stockfish
def test_elo_range_and_play():
    engine = StockfishEngine(STOCKFISH, elo=1350)
    lo, hi = engine.elo_range()
    assert lo <= 1350 < hi
    board = chess.Board()
    assert engine.play(board, depth=5) in board.legal_moves

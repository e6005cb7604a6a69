"""Smoke test of benchmarks/games_throughput.py: every stdout line is a well-formed result."""

from __future__ import annotations

from tests.benchmarks.scripts import run_benchmark


def test_turngym_rows_measure_every_game():
    lines = run_benchmark("games_throughput.py", "--episodes", "20", "--repeat", "1", "--no-peers")
    assert [line["game"] for line in lines] == ["TicTacToe", "KuhnPoker", "LeducHoldem"]
    for line in lines:
        assert line["bench"] == "games_throughput" and line["impl"] == "turngym"
        assert "error" not in line, line
        if "skipped" in line:  # a game that has not landed yet
            assert "unknown turngym env" in line["skipped"]
            continue
        assert line["episodes"] == 20 and line["moves"] >= 20
        assert line["episodes_per_s"] > 0 and line["moves_per_s"] > 0
        assert line["ratio_vs"] == {}  # no peers measured
    tictactoe = lines[0]
    assert 5 <= tictactoe["mean_moves"] <= 9


def test_peers_are_measured_or_skipped_cleanly_and_ratios_match():
    lines = run_benchmark(
        "games_throughput.py", "--episodes", "10", "--repeat", "1", "--games", "TicTacToe"
    )
    ours, *peers = lines
    assert {p["impl"] for p in peers} == {"textarena", "pettingzoo"}
    for peer in peers:
        assert "error" not in peer, peer
        if "skipped" in peer:
            continue
        key = f"{peer['impl']}/{peer['id']}"
        expected = ours["episodes_per_s"] / peer["episodes_per_s"]
        assert abs(ours["ratio_vs"][key] - expected) <= 0.01 * expected + 0.01

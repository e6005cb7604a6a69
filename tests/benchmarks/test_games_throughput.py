"""Smoke test of benchmarks/games_throughput.py: every stdout line is a well-formed result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "games_throughput.py"


def _run(*args: str) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the checkout's turngym
    out = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_turngym_rows_measure_every_game():
    lines = _run("--episodes", "20", "--repeat", "1", "--no-peers")
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
    lines = _run("--episodes", "10", "--repeat", "1", "--games", "TicTacToe")
    ours, *peers = lines
    assert {p["impl"] for p in peers} == {"textarena", "pettingzoo"}
    for peer in peers:
        assert "error" not in peer, peer
        if "skipped" in peer:
            continue
        key = f"{peer['impl']}/{peer['id']}"
        expected = ours["episodes_per_s"] / peer["episodes_per_s"]
        assert abs(ours["ratio_vs"][key] - expected) <= 0.01 * expected + 0.01

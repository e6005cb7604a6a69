"""Smoke test of benchmarks/view_episodes.py: every measurement, with the peer beside."""

from __future__ import annotations

import pytest

from tests.benchmarks.scripts import run_benchmark

pytest.importorskip("fastapi")


def test_cold_warm_and_peer_lines() -> None:
    lines = run_benchmark("view_episodes.py", "--episodes", "30", "--repeat", "1")
    whats = [line["what"] for line in lines]
    assert whats == [
        "write_episodes",
        "episodes_cold",
        "episodes_warm",
        "episodes_last_page",
        "episodes_filtered",
        "episode_page",
        "load_all",
    ]
    assert all(line["episodes"] == 30 and line["seconds"] >= 0 for line in lines)
    assert lines[-1]["impl"] == "episode_files.load_episodes"
    assert lines[0]["turns"] >= 30 * 3  # TicTacToe takes at least 3 moves to win

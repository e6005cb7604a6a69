"""Smoke test of benchmarks/headroom.py: three agents per env, and the markdown tables."""

from __future__ import annotations

import json

from tests.benchmarks.scripts import run_benchmark


def test_expert_random_and_heuristic_lines_then_tables(tmp_path):
    lines = run_benchmark(
        "headroom.py", "--family", "text", "--envs", "FrozenLake-v0", "--episodes", "6"
    )
    assert [line["agent"] for line in lines] == ["expert", "random", "heuristic"]
    expert, random, heuristic = lines
    assert expert["success_rate"] == 1.0 and expert["episodes"] == 6
    assert random["success_rate"] < 1.0  # the fixed 4x4 lake: random walks fall in
    assert heuristic["rule"] == "first legal action"
    assert 0 <= heuristic["success_ci95"][0] <= heuristic["success_rate"] <= 1
    jsonl = tmp_path / "text.jsonl"
    jsonl.write_text("\n".join(json.dumps(line) for line in lines))
    table = tmp_path / "headroom.md"
    assert run_benchmark("headroom.py", "--from-jsonl", str(jsonl), "--markdown", str(table)) == []
    text = table.read_text()
    assert text.startswith("### text") and "| `FrozenLake-v0` | 6 | 1.00 (+1.00) |" in text


def test_free_text_envs_get_a_skipped_heuristic_line():
    lines = run_benchmark(
        "headroom.py", "--family", "text", "--envs", "Countdown-v0", "--episodes", "2"
    )
    assert lines[2] == {
        "bench": "headroom",
        "env": "turngym/Countdown-v0",
        "family": "text",
        "agent": "heuristic",
        "skipped": "free-text actions, no simple rule",
    }

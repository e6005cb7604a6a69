"""Smoke test of benchmarks/degenerate_answers.py: JSON lines per id, and the markdown table."""

from __future__ import annotations

import json

import pytest

from tests.benchmarks.scripts import run_benchmark


def test_lines_per_id_then_a_table_from_them(tmp_path):
    table = tmp_path / "table.md"
    lines = run_benchmark(
        "degenerate_answers.py",
        "--ids", "Countdown-v0", "TryAgainQA-v0", "--seeds", "4", "--markdown", str(table),
    )  # fmt: skip
    assert {line["id"] for line in lines} == {"turngym/Countdown-v0", "turngym/TryAgainQA-v0"}
    for env_id in ("turngym/Countdown-v0", "turngym/TryAgainQA-v0"):
        rows = [line for line in lines if line["id"] == env_id]
        assert sum(line["random"] for line in rows) == 1  # the random agent's line
        assert len(rows) >= 2 and all(line["episodes"] == 4 for line in rows)
        assert all(not line["failed"] for line in rows)
    text = table.read_text()
    assert text.startswith("| id | random agent |") and "| `Countdown-v0` | 0/4 |" in text
    assert "pass |" in text and "FAIL" not in text
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text("\n".join(json.dumps(line) for line in lines))
    again = tmp_path / "again.md"
    assert (
        run_benchmark("degenerate_answers.py", "--from-jsonl", str(jsonl), "--markdown", str(again))
        == []
    )
    assert again.read_text() == text


def test_what_a_scorer_prints_stays_off_the_json_lines():
    # tower_of_hanoi's scorer prints "Error validating move ..." from the scorer's worker
    # process, straight to file descriptor 1; run_benchmark reads every stdout line as JSON
    pytest.importorskip("reasoning_gym")
    lines = run_benchmark(
        "degenerate_answers.py", "--ids", "reasoning_gym.tower_of_hanoi-v0", "--seeds", "3"
    )
    assert lines and {line["id"] for line in lines} == {"turngym/reasoning_gym.tower_of_hanoi-v0"}

"""Smoke test of benchmarks/selfplay_kuhn.py: exact exploitability lines, a summary, a plot."""

from __future__ import annotations

import pytest

from tests.benchmarks.scripts import run_benchmark

pytest.importorskip("torch")
pytest.importorskip("matplotlib")


def test_two_steps_measure_the_policy_three_times(tmp_path):
    lines = run_benchmark(
        "selfplay_kuhn.py",
        *("--steps", "2", "--games", "4", "--eval-every", "1", "--threads", "1"),
        *("--entropy-coef", "0.1", "--entropy-final", "0.0", "--output-dir", str(tmp_path)),
    )
    *points, summary = lines
    assert [p["step"] for p in points] == [0, 1, 2]
    for p in points:
        assert 0 < p["exploitability"] == pytest.approx(p["nash_conv"] / 2, abs=1e-5)
        assert len(p["bet_or_call"]) == 12  # Kuhn's information states
        assert all(0 <= v <= 1 for v in p["bet_or_call"].values())
    assert summary["summary"] is True and summary["steps"] == 2
    assert summary["exploitability_initial"] == points[0]["exploitability"]
    assert summary["exploitability_final"] == points[-1]["exploitability"]
    assert summary["entropy_final"] == 0.0
    assert (tmp_path / "exploitability.png").stat().st_size > 0
    assert (tmp_path / "final" / "config.json").is_file()

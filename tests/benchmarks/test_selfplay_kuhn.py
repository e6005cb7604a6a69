"""Smoke test of benchmarks/selfplay_kuhn.py: exact exploitability lines, a summary, a plot."""

from __future__ import annotations

import pytest

from tests.benchmarks.scripts import run_benchmark

pytest.importorskip("torch")
pytest.importorskip("matplotlib")


def test_two_steps_measure_the_policy_and_its_weight_average_three_times(tmp_path):
    lines = run_benchmark(
        "selfplay_kuhn.py",
        *("--steps", "2", "--games", "4", "--eval-every", "1", "--threads", "1"),
        *("--entropy-coef", "0.1", "--entropy-final", "0.0", "--output-dir", str(tmp_path)),
        # A KL penalty towards a Polyak average of the weights (a moving magnet).
        *("--lr", "0.01", "--ema-decay", "0.5", "--beta", "0.1", "--magnet", "ema"),
    )
    *points, summary = lines
    assert [p["step"] for p in points] == [0, 1, 2]
    for p in points:
        for measured in (p, p["ema"]):
            assert (
                0 < measured["exploitability"] == pytest.approx(measured["nash_conv"] / 2, abs=1e-5)
            )
            assert len(measured["bet_or_call"]) == 12  # Kuhn's information states
            assert all(0 <= v <= 1 for v in measured["bet_or_call"].values())
    # Before any step the average is the model; after two steps it lags behind it.
    assert points[0]["ema"]["bet_or_call"] == points[0]["bet_or_call"]
    assert points[2]["ema"]["bet_or_call"] != points[2]["bet_or_call"]
    assert summary["ema_exploitability_final"] == points[-1]["ema"]["exploitability"]
    assert summary["beta"] == 0.1 and summary["magnet"] == "ema"
    assert summary["cpu_minutes"] > 0 and len(summary["load_average_start"]) == 3
    assert summary["summary"] is True and summary["steps"] == 2
    assert summary["exploitability_initial"] == points[0]["exploitability"]
    assert summary["exploitability_final"] == points[-1]["exploitability"]
    assert summary["entropy_final"] == 0.0
    assert (tmp_path / "exploitability.png").stat().st_size > 0
    assert (tmp_path / "final" / "config.json").is_file()

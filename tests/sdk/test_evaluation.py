"""The evaluation summary: Wilson intervals and the JSON-ready summary."""

from __future__ import annotations

import math

import pytest

from turngym.sdk.evaluation import EpisodeStats, EvalResult, wilson_interval


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # Hand-computed: centre (p + z^2/2n) / (1 + z^2/n), half-width z sqrt(...) / (1 + z^2/n)
        (50, 100, 0.40383, 0.59617),
        (0, 20, 0.0, 0.16113),
        (20, 20, 0.83887, 1.0),
        (1, 10, 0.01788, 0.40415),
    ],
)
def test_wilson_interval_known_values(k, n, low, high):
    lo, hi = wilson_interval(k, n)
    assert math.isclose(lo, low, abs_tol=1e-4) and math.isclose(hi, high, abs_tol=1e-4)


def test_wilson_interval_contains_the_rate_and_shrinks_with_n():
    for n in (5, 50, 500):
        lo, hi = wilson_interval(n // 5, n)
        assert lo <= 0.2 <= hi
    assert (wilson_interval(100, 500)[1] - wilson_interval(100, 500)[0]) < (
        wilson_interval(10, 50)[1] - wilson_interval(10, 50)[0]
    )


def test_summary_fields():
    eps = [
        EpisodeStats(s, 1.0 if s % 2 else 0.0, 4, bool(s % 2), s % 3 == 0, False) for s in range(6)
    ]
    summary = EvalResult("turngym/FrozenLake-v0", "random", eps).summary()
    assert summary["episodes"] == 6 and summary["success_rate"] == 0.5
    assert summary["mean_return"] == 0.5 and summary["mean_turns"] == 4.0
    assert summary["invalid_rate"] == pytest.approx(2 / 24)
    low, high = summary["success_ci95"]
    assert low < 0.5 < high

"""The evaluation summary: Wilson intervals and the JSON-ready summary."""

from __future__ import annotations

import json
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


def test_batched_evaluation_matches_the_sequential_one():
    from turngym.sdk.agents import make_agent
    from turngym.sdk.evaluation import evaluate, evaluate_batched

    env_id = "turngym/FrozenLake-v0"
    one = evaluate(env_id, lambda env: make_agent("expert", env, env_id=env_id), episodes=8)
    many = evaluate_batched(env_id, lambda env: make_agent("expert", env, env_id=env_id), 8)
    assert [(e.seed, e.ret, e.steps, e.success) for e in one.episodes] == [
        (e.seed, e.ret, e.steps, e.success) for e in many.episodes
    ]


def test_cli_eval_of_a_saved_model_prints_the_summary(tiny_model_dir, capsys):
    from turngym.cli import main

    agent = f"hf:{tiny_model_dir}"
    assert main(["eval", "turngym/FrozenLake-v0", "--agent", agent, "--episodes", "4"]) == 0
    out = capsys.readouterr().out
    assert "success [95% CI]" in out and agent in out
    args = ["eval", "turngym/FrozenLake-v0", "--agent", agent, "--episodes", "4", "--json"]
    assert main(args) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["agent"] == agent and row["episodes"] == 4
    assert 0.0 <= row["invalid_rate"] <= 1.0 and row["mean_turns"] >= 1


def test_cli_eval_of_a_missing_model_is_one_line(tmp_path, capsys):
    from turngym.cli import main

    missing = tmp_path / "nope"
    assert main(["eval", "turngym/FrozenLake-v0", "--agent", f"hf:{missing}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no model directory" in err and "Traceback" not in err

"""Smoke test of benchmarks/selfplay_kuhn.py: exact exploitability lines, a summary, a plot."""

from __future__ import annotations

import pytest

from tests.benchmarks.scripts import run_benchmark

pytest.importorskip("torch")
pytest.importorskip("matplotlib")


@pytest.mark.slow  # a benchmark's smoke run (tens of seconds): make test runs it
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
    # The average strategy starts as the first policy measured, then mixes the later ones.
    assert points[0]["iterate_average"] == {
        k: v for k, v in points[0].items() if k in points[0]["iterate_average"]
    }
    average = summary["average_strategy_exploitability_final"]
    assert average == points[-1]["iterate_average"]["exploitability"] > 0
    assert summary["beta"] == 0.1 and summary["magnet"] == "ema"
    assert summary["cpu_minutes"] > 0 and len(summary["load_average_start"]) == 3
    assert summary["summary"] is True and summary["steps"] == 2
    assert summary["exploitability_initial"] == points[0]["exploitability"]
    assert summary["exploitability_final"] == points[-1]["exploitability"]
    assert summary["entropy_final"] == 0.0
    assert (tmp_path / "exploitability.png").stat().st_size > 0
    assert (tmp_path / "final" / "config.json").is_file()


def test_the_average_strategy_weights_each_policy_by_its_own_reach():
    import sys

    from tests.benchmarks.scripts import ROOT
    from turngym.sdk.exploitability import info_states

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from selfplay_kuhn import IterateAverage, describe

    def nash(alpha: float, unreached_k_call: float = 1.0) -> dict:
        """Kuhn's equilibria: player_0 bluffs the J with alpha, bets the K with 3 alpha."""
        table = {}
        for s in info_states("KuhnPoker-v0"):
            moves = s.betting[0] if s.betting else ()
            if s.player == 0 and not moves:
                p = {"J": alpha, "Q": 0.0, "K": 3 * alpha}[s.card]
            elif s.player == 0:  # check, bet
                k_call = unreached_k_call if alpha == 1 / 3 else 1.0
                p = {"J": 0.0, "Q": alpha + 1 / 3, "K": k_call}[s.card]
            elif moves == ("bet",):
                p = {"J": 0.0, "Q": 1 / 3, "K": 1.0}[s.card]
            else:  # check
                p = {"J": 1 / 3, "Q": 0.0, "K": 1.0}[s.card]
            names = ("bet", "check") if "bet" in s.legal_actions else ("call", "fold")
            table[s] = {names[0]: p, names[1]: 1 - p}
        return table

    for alpha in (0.0, 1 / 3):
        assert describe(nash(alpha))["exploitability"] == 0
    # alpha = 1/3 always bets the K, so what it would do after 'check bet' never counts:
    # it may fold there and still be an equilibrium.
    folds = nash(1 / 3, unreached_k_call=0.0)
    assert describe(folds)["exploitability"] == 0
    average = IterateAverage(linear=False)
    average.add(nash(0.0))
    average.add(folds)
    assert describe(average.table())["exploitability"] == pytest.approx(0, abs=1e-9)
    # Averaged state by state without the reach, the K would fold half the time there.
    naive = {s: {a: (p + folds[s][a]) / 2 for a, p in row.items()} for s, row in nash(0.0).items()}
    assert describe(naive)["exploitability"] > 0.01

"""Smoke test of benchmarks/env_throughput.py: every stdout line is a well-formed result."""

from __future__ import annotations

import sys

import pytest

from tests.benchmarks.scripts import ROOT, run_benchmark
from turngym.registry import ENVS

SCRIPT = ROOT / "benchmarks" / "env_throughput.py"
RATES = ("episodes_per_s", "steps_per_s", "env_steps_per_s", "mean_episode_len")


@pytest.mark.slow  # plays every family for a while: make test runs it
def test_turngym_rows_are_measured_with_positive_rates() -> None:
    lines = run_benchmark("env_throughput.py", "--episodes", "3", "--no-peers", "--seed", "5")
    # one row stands for the MiniWoB family by default, and one for each adapter group
    groups: dict[str, str] = {}
    for e in ENVS:
        if e.suite not in (None, "textworld"):  # TextWorld only when named
            groups.setdefault(e.name.split(".", 1)[0], e.id)
    expected = [
        e.id
        for e in ENVS
        if e.id == "turngym/miniwob.click-test-v0"
        or (not e.name.startswith("miniwob.") and e.suite is None)
        or e.id in groups.values()
    ]
    assert {"turngym/openspiel.2048-v0", "turngym/nethack-v0"} <= set(expected)
    assert [line["id"] for line in lines] == expected
    for line in lines:
        assert line["bench"] == "env_throughput"
        assert line["impl"] == "turngym"
        if "skipped" in line:  # an optional extra of that env is not installed
            continue
        assert line["episodes"] == 3
        assert line["steps"] >= 3
        assert line["seconds"] > 0
        assert all(line[k] > 0 for k in RATES)
        # env-only time excludes the agent, so it can only be the faster rate
        assert line["env_steps_per_s"] >= line["steps_per_s"]
        assert line["version"] and line["python"]
    bandit = next(line for line in lines if line["id"] == "turngym/Bandit-v0")
    assert bandit["env"] == "Bandit"
    assert bandit["mean_episode_len"] == 1.0


def test_peer_lines_are_measurements_or_clean_skips() -> None:
    lines = run_benchmark("env_throughput.py", "--seconds", "0.2", "--envs", "Taxi,Wordle")
    assert {line["env"] for line in lines} == {"Taxi", "Wordle"}
    taxi = next(line for line in lines if line["impl"] == "gymnasium")
    assert taxi["id"].startswith("Taxi-v")
    assert all(taxi[k] > 0 for k in RATES)
    for line in lines:
        assert "error" not in line
        if "skipped" in line:
            assert line["impl"] in ("textarena", "gem")
            assert line["skipped"]
        else:
            assert all(line[k] > 0 for k in RATES)


def test_every_gymnasium_toy_text_twin_is_measured_next_to_ours():
    # Regression: an edit of the PEERS table once dropped FrozenLake's peers unnoticed.
    import importlib.util

    spec = importlib.util.spec_from_file_location("env_throughput", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # dataclasses look their module up there
    spec.loader.exec_module(bench)
    with_gymnasium = {
        name for name, peers in bench.PEERS.items() if any(p.impl == "gymnasium" for p in peers)
    }
    assert with_gymnasium == {"Blackjack", "CliffWalking", "FrozenLake", "Taxi"}
    assert {"Sokoban", "Wordle", "Countdown"} <= set(bench.PEERS)

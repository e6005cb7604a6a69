"""Smoke test of benchmarks/rollout_overhead.py on a very small model."""

from __future__ import annotations

import pytest

from tests.benchmarks.scripts import run_benchmark

pytest.importorskip("transformers", reason="the benchmark needs transformers (the llm extra)")


@pytest.mark.slow  # a benchmark's smoke run (tens of seconds): make test runs it
def test_prints_a_rollout_line_and_generate_lines_with_the_peer():
    args = ["--envs", "3", "--episodes", "3", "--new-tokens", "4", "--action-tokens", "3"]
    args += ["--hidden", "32", "--layers", "1", "--heads", "2", "--repeat", "1"]
    lines = run_benchmark("rollout_overhead.py", *args, extra_env={"OMP_NUM_THREADS": "1"})
    rollout, *generate = lines
    assert rollout["measure"] == "rollout" and rollout["episodes"] == 3
    assert 0 < rollout["forward_s"] < rollout["wall_s"]
    assert 0 < rollout["outside_forward_share"] < 1 and rollout["forwards"] >= 1
    assert [g["impl"] for g in generate] == [
        "turngym HFPolicy.generate",
        "transformers model.generate",
    ] * 2
    for ours, peer in zip(generate[::2], generate[1::2], strict=True):
        assert ours["tokens"] == peer["tokens"] > 0  # the same greedy tokens, the same work
        ratio = ours["ratio_vs"]["transformers model.generate"]
        assert ratio == pytest.approx(ours["tokens_per_s"] / peer["tokens_per_s"], rel=0.02)

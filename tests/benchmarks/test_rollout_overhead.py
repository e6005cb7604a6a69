"""Smoke test of benchmarks/rollout_overhead.py on a very small model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers", reason="the benchmark needs transformers (the llm extra)")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "rollout_overhead.py"


def test_prints_a_rollout_line_and_generate_lines_with_the_peer():
    args = ["--envs", "3", "--episodes", "3", "--new-tokens", "4", "--action-tokens", "3"]
    args += ["--hidden", "32", "--layers", "1", "--heads", "2", "--repeat", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
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

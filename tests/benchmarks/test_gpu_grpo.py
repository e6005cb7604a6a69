"""Smoke test of benchmarks/gpu_grpo.py: the tiny CPU run measures what the GPU run does,
and without a GPU the default run says so in one JSON line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "gpu_grpo.py"


def _run(*args: str) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_tiny_cpu_run_measures_steps_tokens_and_phases() -> None:
    args = ["--device", "cpu", "--size", "tiny", "--steps", "2", "--groups", "2"]
    lines = _run(*args, "--group-size", "4", "--max-new-tokens", "8", "--rollouts", "hf")
    assert len(lines) == 1
    line = lines[0]
    assert line["bench"] == "gpu_grpo" and line["rollout"] == "hf"
    assert line["steps_per_s"] > 0 and line["gen_tokens_per_s"] > 0
    assert 0 < line["completion_tokens_per_step"] <= 2 * 4 * 8
    assert line["collect_s"] > 0 and line["update_s"] > 0 and line["peak_gpu_gb"] is None


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here: the benchmark runs")
def test_without_a_gpu_it_says_so() -> None:
    assert _run("--steps", "1") == [
        {
            "bench": "gpu_grpo",
            "size": "0.5b",
            "device": "cuda",
            "skipped": "no CUDA GPU here (torch sees none)",
        }
    ]

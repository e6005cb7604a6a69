"""Smoke test of benchmarks/gpu_grpo.py: the tiny CPU run measures what the GPU run does,
and without a GPU the default run says so in one JSON line."""

from __future__ import annotations

import pytest

from tests.benchmarks.scripts import run_benchmark

torch = pytest.importorskip("torch")


@pytest.mark.slow  # a benchmark's smoke run (tens of seconds): make test runs it
def test_tiny_cpu_run_measures_steps_tokens_and_phases() -> None:
    args = ["--device", "cpu", "--size", "tiny", "--steps", "2", "--groups", "2"]
    lines = run_benchmark(
        "gpu_grpo.py",
        *args,
        "--group-size",
        "4",
        "--max-new-tokens",
        "8",
        "--rollouts",
        "hf",
        "--peer",
        "none",
    )
    assert len(lines) == 1
    line = lines[0]
    assert line["bench"] == "gpu_grpo" and line["rollout"] == "hf"
    assert line["steps_per_s"] > 0 and line["gen_tokens_per_s"] > 0
    assert 0 < line["completion_tokens_per_step"] <= 2 * 4 * 8
    assert line["collect_s"] > 0 and line["update_s"] > 0 and line["peak_gpu_gb"] is None


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here: the benchmark runs")
def test_without_a_gpu_it_says_so() -> None:
    assert run_benchmark("gpu_grpo.py", "--steps", "1") == [
        {
            "bench": "gpu_grpo",
            "size": "0.5b",
            "device": "cuda",
            "skipped": "no CUDA GPU here (torch sees none)",
        }
    ]

"""Smoke test of benchmarks/gpu_decode.py: the tiny CPU run times every decoding path
and the peer, and compares greedy tokens; without a GPU the default run says so."""

from __future__ import annotations

import pytest

from tests.benchmarks.scripts import run_benchmark

torch = pytest.importorskip("torch")


@pytest.mark.slow  # a benchmark's smoke run (tens of seconds): make test runs it
def test_tiny_cpu_run_times_each_path_and_the_peer() -> None:
    args = ["--device", "cpu", "--size", "tiny", "--rows", "4", "--new-tokens", "8"]
    lines = run_benchmark("gpu_decode.py", *args, "--repeat", "1")
    paths = [line["path"] for line in lines if "path" in line]
    assert paths == [
        "static+graphs",
        "static-eager",
        "lean-dynamic",
        "model-forward",
        "hf-generate-dynamic",
    ]
    for line in lines[:-1]:
        assert line["tokens"] > 0 and line["tokens_per_s"] > 0
    assert lines[-1]["greedy_rows_equal"] == "4/4"


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here: the benchmark runs")
def test_without_a_gpu_it_says_so() -> None:
    (line,) = run_benchmark("gpu_decode.py")
    assert line["skipped"] == "no CUDA GPU here (torch sees none)"

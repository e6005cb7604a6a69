"""Smoke test of benchmarks/serve_hostile.py: two attacks, one honest request per phase."""

from __future__ import annotations

import pytest

from tests.benchmarks.scripts import run_benchmark

pytest.importorskip("transformers", reason="the benchmark needs transformers (the llm extra)")
pytest.importorskip("fastapi", reason="the benchmark serves a model: pip install 'turngym[serve]'")


@pytest.mark.slow  # a benchmark's smoke run (tens of seconds): make test runs it
def test_prints_an_alone_and_a_beside_line_per_attack():
    args = ["--attacks", "prompt-2M-chars,abandoned", "--normal", "1"]
    lines = run_benchmark("serve_hostile.py", *args, extra_env={"OMP_NUM_THREADS": "1"})
    assert [(x["attack"], x["phase"]) for x in lines] == [
        ("prompt-2M-chars", "alone"),
        ("prompt-2M-chars", "beside"),
        ("abandoned", "alone"),
        ("abandoned", "beside"),
    ]
    assert all(x["failed"] == 0 and x["median_s"] > 0 for x in lines)
    prompt, abandoned = lines[1], lines[3]
    assert prompt["hostile_status"] == 400 and "context" in prompt["hostile_message"]
    assert abandoned["generated_tokens"] < 8 * (2048 - 8)  # stopped when its client left

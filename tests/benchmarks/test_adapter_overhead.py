"""Smoke test of benchmarks/adapter_overhead.py: a line per pair, clean errors for bad flags."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.benchmarks.scripts import ROOT, run_benchmark

pytest.importorskip("pyspiel", reason="the OpenSpiel pairs need the openspiel extra")


def test_quick_run_times_both_sides_of_every_pair():
    head, *lines = run_benchmark("adapter_overhead.py", "--quick", "--suites", "openspiel")
    assert head["suites"] == ["openspiel"]
    pairs = [line["pair"] for line in lines]
    assert pairs[:2] == ["openspiel.tic_tac_toe", "openspiel.leduc_poker"]
    for line in lines:
        assert line["module"] == "overhead_openspiel" and line["steps"] == 50
        assert line["blocks"] == 2 and line["clock"] == "cpu"  # OpenSpiel runs in-process
        assert line["native_steps_per_s"] > 0 and line["adapter_steps_per_s"] > 0
        # the median over the blocks' overheads lies between their quartiles
        low, high = line["overhead_quartiles"]
        assert low - 1e-4 <= line["overhead"] <= high + 1e-4
        assert line["target_met"] == (line["overhead"] <= 0.25)


@pytest.mark.parametrize("flags", [["--suites", "chess"], ["--steps", "0"]])
def test_bad_flags_are_one_line_errors(flags):
    script = ROOT / "benchmarks" / "adapter_overhead.py"
    out = subprocess.run([sys.executable, str(script), *flags], capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr

"""Smoke test of benchmarks/overhead_crafter.py."""

from __future__ import annotations

import importlib.util

import pytest

from tests.benchmarks.scripts import ROOT, run_benchmark

pytest.importorskip("crafter", reason="the Crafter benchmark needs the crafter extra")


def test_pairs_and_script():
    spec = importlib.util.spec_from_file_location(
        "overhead_crafter", ROOT / "benchmarks/overhead_crafter.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert [name for name, _, _ in module.pairs(quick=False)] == [
        "crafter-v0 area=64x64",
        "crafter-v0 area=32x32",
    ]
    (_, native, adapter) = module.pairs(quick=True)[0]
    assert native(25, 0) == 25 and adapter(25, 0) == 25
    (line,) = run_benchmark("overhead_crafter.py", "--quick", "--steps", "25", "--repeat", "1")
    assert line["pair"] == "crafter-v0 area=32x32" and line["steps"] == 25
    assert line["native_steps_per_s"] > 0 and line["adapter_steps_per_s"] > 0

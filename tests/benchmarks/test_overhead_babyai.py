"""Smoke tests of benchmarks/overhead_babyai.py and benchmarks/babyai_bot.py."""

from __future__ import annotations

import importlib.util

import pytest

from tests.benchmarks.scripts import ROOT, run_benchmark

pytest.importorskip("minigrid", reason="the BabyAI benchmarks need the babyai extra")


def test_pairs_play_the_steps_they_are_asked_for():
    spec = importlib.util.spec_from_file_location(
        "overhead_babyai", ROOT / "benchmarks/overhead_babyai.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pairs = module.pairs(quick=True)
    assert [name for name, _, _ in pairs] == ["babyai.GoToRedBall", "babyai.GoToLocal"]
    assert len(module.pairs(quick=False)) == 4
    for _, native, adapter in pairs:
        assert native(40, 1) == 40 and adapter(40, 1) == 40


def test_overhead_script_prints_one_line_per_pair():
    lines = run_benchmark("overhead_babyai.py", "--quick", "--steps", "30", "--repeat", "1")
    assert [line["pair"] for line in lines] == ["babyai.GoToRedBall", "babyai.GoToLocal"]
    for line in lines:
        assert line["steps"] == 30 and line["native_steps_per_s"] > 0
        assert line["adapter_steps_per_s"] > 0 and line["adapter_without_text_steps_per_s"] > 0


def test_bot_script_reports_a_level():
    (line,) = run_benchmark("babyai_bot.py", "--levels", "GoToRedBall", "--seeds", "3")
    assert line["level"] == "GoToRedBall" and line["episodes"] == 3
    assert line["success_rate"] == 1.0 and line["bot_gave_up"] == 0


def test_bot_script_says_a_left_out_level_is_left_out(capsys):
    spec = importlib.util.spec_from_file_location("babyai_bot", ROOT / "benchmarks/babyai_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SystemExit):
        module.main(["--levels", "OpenDoorsOrderN2Debug", "--seeds", "1"])
    assert "OpenDoorsOrderN2Debug is left out: unwinnable" in capsys.readouterr().err

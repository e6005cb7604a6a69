"""benchmarks/selfplay_tictactoe.py: SFT on expert self-play first, then RAE self-play."""

from __future__ import annotations

from tests.benchmarks.scripts import run_benchmark


def test_sft_warm_start_reports_the_sft_figure_beside_the_rl_one(tmp_path):
    lines = run_benchmark(
        "selfplay_tictactoe.py",
        *("--sft-episodes", "2", "--sft-epochs", "1", "--steps", "1", "--games", "2"),
        *("--eval-episodes", "2", "--threads", "1", "--output-dir", str(tmp_path)),
    )
    sft = [line for line in lines if line.get("phase") == "sft"]
    assert sft and sft[-1]["epoch"] == 1.0
    assert {line["when"] for line in lines if "when" in line} == {"after-sft", "after"}
    summary = lines[-1]
    assert summary["summary"] and summary["before"] == "the SFT model"
    assert summary["sft_episodes"] == 2 and summary["sft_steps"] == sft[-1]["step"]
    assert summary["steps"] == 1 and summary["total_minutes"] >= summary["train_minutes"]
    assert (tmp_path / "sft" / "final" / "config.json").is_file()  # GRPO started from it

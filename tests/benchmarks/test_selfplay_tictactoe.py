"""benchmarks/selfplay_tictactoe.py: SFT on minimax demonstrations and DAgger, then RAE."""

from __future__ import annotations

import argparse
import importlib.util

import pytest

from tests.benchmarks.scripts import ROOT, run_benchmark


def _script():
    spec = importlib.util.spec_from_file_location(
        "selfplay_tictactoe", ROOT / "benchmarks" / "selfplay_tictactoe.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # a benchmark's smoke run (tens of seconds): make test runs it
def test_sft_warm_start_reports_the_sft_figure_beside_the_rl_one(tmp_path):
    lines = run_benchmark(
        "selfplay_tictactoe.py",
        *("--sft-episodes", "2", "--sft-epochs", "1", "--steps", "1", "--games", "2"),
        *("--dagger-rounds", "1", "--dagger-games", "5", "--eval-every", "1"),
        *("--eval-episodes", "2", "--threads", "1", "--output-dir", str(tmp_path)),
    )
    sft = [line for line in lines if line.get("phase") == "sft"]
    assert [line["round"] for line in sft] == [0, 1]  # the SFT pass, then one DAgger round
    assert sft[-1]["epoch"] == 1.0
    assert {line["when"] for line in lines if "when" in line} == {"after-sft", "step-1", "after"}
    summary = lines[-1]
    assert summary["summary"] and summary["before"] == "the SFT model"
    assert summary["sft_episodes"] == 2 and summary["dagger_rounds"] == 1
    assert summary["sft_steps"] == sft[0]["step"] + sft[1]["step"]
    assert summary["steps"] == 1 and summary["total_minutes"] >= summary["train_minutes"]
    assert summary["cpu_minutes"] > 0 and len(summary["load_average"]) == 3
    assert (tmp_path / "sft" / "final" / "config.json").is_file()  # GRPO started from it


def test_demonstrations_hold_only_the_demonstrators_moves_one_per_position():
    script = _script()
    args = argparse.Namespace(
        sft_episodes=12,
        demo_opponents="expert,random,noisy",
        demo_epsilon=0.5,
        tie_break="fixed",
        seed=0,
    )
    episodes = script.demo_episodes(args)
    assert {(ep.meta["demo"]["seat"], ep.meta["demo"]["opponent"]) for ep in episodes} == {
        (seat, opponent)
        for seat in ("player_0", "player_1")
        for opponent in ("expert", "random", "noisy")
    }
    for ep in episodes:
        assert ep.turns and {t.agent for t in ep.turns} == {ep.meta["demo"]["seat"]}
        # Fixed tie-break: each move is the one the relabelling function gives.
        assert [t.action for t in ep.turns] == [
            script.expert_label(t.obs["text"]) for t in ep.turns
        ]
        assert ep.returns[ep.meta["demo"]["seat"]] >= 0  # minimax never loses


def test_expert_label_reads_the_board_and_the_mark_to_play():
    script = _script()
    text = "You are O (player_1).\n   a b c\n1  X X .\n2  . O .\n3  . . .\nYour legal actions: c1."
    assert script.expert_label(text) == "c1"  # block the row
    text = "You are X (player_0).\n   a b c\n1  X X .\n2  O O .\n3  . . .\nYour legal actions: c1."
    assert script.expert_label(text) == "c1"  # win now
    empty = "You are X (player_0).\n   a b c\n1  . . .\n2  . . .\n3  . . .\n"
    assert script.expert_label(empty) == "b2"  # all draws: the centre first

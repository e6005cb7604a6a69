from __future__ import annotations

import json

import pytest

from turngym.cli import main


def test_list_table_and_json(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "turngym/Bandit-v0" in out and "finite actions" in out
    assert main(["list", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"id", "family", "finite_actions", "max_episode_steps"} <= set(rows[0])


def test_play_expert(capsys):
    assert main(["play", "Bandit-v0", "--agent", "expert", "--seed", "1", "--episodes", "3"]) == 0
    out = capsys.readouterr().out
    assert "success in 3/3 episodes" in out


def test_play_human_retries_bad_input(capsys, monkeypatch):
    answers = iter(["?", "not an arm", "Rocket"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", "Bandit-v0", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "legal actions: Anchor, Rocket" in out
    assert "Invalid action 'not an arm'" in out
    assert "You pulled Rocket" in out


def test_play_human_end_of_input_is_clean(capsys, monkeypatch):
    def eof(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", eof)
    assert main(["play", "Bandit-v0"]) == 0
    assert "bye" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "Nope-v0"], "unknown turngym env"),
        (["play", "Bandit-v0", "--set", "pulls=-2"], "pulls must be >= 1"),
        (["play", "Bandit-v0", "--set", "oops"], "--set takes key=value"),
        (
            ["eval", "Bandit-v0", "--agents", "genius"],
            "agents are expert, random, hf:DIR or openai:URL",
        ),
        (["check"], "name at least one env id"),
    ],
)
def test_bad_input_gives_a_message_not_a_traceback(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_check_prints_table(capsys):
    assert main(["check", "Bandit-v0", "--n-fuzz", "100", "--reset-episodes", "5"]) == 0
    out = capsys.readouterr().out
    assert "fuzzed actions" in out and "PASS" in out


def test_eval_table_and_json(capsys):
    assert main(["eval", "Bandit-v0", "--episodes", "40"]) == 0
    out = capsys.readouterr().out
    assert "expert" in out and "random" in out and "1.00" in out
    assert main(["eval", "Bandit-v0", "--episodes", "40", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["agent"] for r in rows} == {"expert", "random"}
    assert rows[0]["success_rate"] == 1.0


def test_eval_agent_option_summary_and_interval(capsys):
    args = ["eval", "turngym/FrozenLake-v0", "--episodes", "20", "--agent", "expert", "--json"]
    assert main(args) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["agent"] == "expert" and row["episodes"] == 20
    assert row["success_rate"] == 1.0
    low, high = row["success_ci95"]
    assert 0.8 < low < 0.85 and high == 1.0  # Wilson, 20/20: [0.839, 1]
    assert row["mean_turns"] > 0 and row["invalid_rate"] == 0.0
    assert main(["eval", "turngym/FrozenLake-v0", "--episodes", "5", "--agent", "random"]) == 0
    assert "success [95% CI]" in capsys.readouterr().out


def test_eval_bad_agent_is_one_line(capsys):
    assert main(["eval", "turngym/FrozenLake-v0", "--agent", "gpt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hf:DIR or openai:URL" in err


def test_closed_stdout_pipe_is_quiet():
    import subprocess
    import sys

    cmd = [
        sys.executable,
        "-m",
        "turngym.cli",
        "play",
        "Bandit-v0",
        "--agent",
        "expert",
        "--episodes",
        "3000",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    _, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err


def test_train_grpo_runs_from_flags_and_a_config_file(tmp_path, capsys):
    pytest.importorskip("torch")
    from turngym.sdk.models import build_tiny_model

    model = build_tiny_model(tmp_path / "model", hidden=32, layers=1, logit_std=0.3)
    config = tmp_path / "run.toml"
    config.write_text('env = "Bandit-v0"\nsteps = 1\ngroups = 2\ngroup_size = 2\n')
    argv = ["train", "grpo", "--config", str(config), "--model", str(model)]
    argv += [
        "--output-dir",
        str(tmp_path / "run"),
        "--eval-episodes",
        "4",
        "--tensorboard",
        "false",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "held-out success:" in out and "turngym eval turngym/Bandit-v0 --agent hf:" in out
    assert (tmp_path / "run" / "final" / "config.json").is_file()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train", "grpo", "--env", "Nope-v0"], "unknown turngym env"),
        (["train", "grpo", "--advantage", "ppo"], "advantage must be one of"),
        (["train", "grpo", "--model", "/no/such/dir"], "'tiny' or a directory"),
    ],
)
def test_train_grpo_bad_input_is_one_line(argv, message, capsys, tmp_path):
    assert main([*argv, "--output-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err

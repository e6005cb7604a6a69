from __future__ import annotations

import argparse
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
    assert not (tmp_path / "run").exists()  # a run that never started leaves no folder


@pytest.mark.parametrize("empty", [False, True], ids=["missing", "empty"])
def test_resume_without_a_checkpoint_is_an_error(empty, capsys, tmp_path):
    pytest.importorskip("torch")
    run = tmp_path / "run"
    if empty:
        run.mkdir()
    # were it to train from scratch, it would be a short run
    small = ["--steps", "1", "--groups", "1", "--group-size", "2", "--eval-episodes", "2"]
    argv = ["train", "grpo", "--env", "Bandit-v0", "--resume", "--output-dir", str(run)]
    assert main([*argv, *small, "--tensorboard", "false"]) == 2
    err = capsys.readouterr().err
    reason = "holds no checkpoint" if empty else "does not exist"
    assert f"resume: {run} {reason}; drop --resume" in err
    assert list(run.iterdir()) == [] if empty else not run.exists()


def test_an_unknown_id_suggests_the_closest(capsys):
    assert main(["play", "Wordel-v0"]) == 2
    assert "unknown turngym env 'Wordel-v0'; did you mean Wordle-v0?" in capsys.readouterr().err
    assert main(["eval", "tictactoe-v0", "--episodes", "1"]) == 2
    assert "did you mean TicTacToe-v0?" in capsys.readouterr().err


def test_a_wrong_env_kwarg_lists_the_valid_ones(capsys):
    assert main(["play", "FrozenLake-v0", "--agent", "expert", "--set", "sise=4"]) == 2
    err = capsys.readouterr().err
    assert "FrozenLake-v0 takes no 'sise'; did you mean size? it takes: " in err
    assert "is_slippery" in err and err.count("\n") == 1


@pytest.mark.parametrize("command", ["play", "eval", "check", "view"])
def test_help_shows_every_flag_with_its_default(command):
    from turngym.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    child = sub.choices[command]
    text = " ".join(child.format_help().split())  # unwrapped
    for action in child._actions:
        if not action.option_strings or action.dest == "help":
            continue
        assert action.option_strings[0] in text
        assert action.help, action.dest
        value = action.default  # a switch or an unset option: its help says what then
        if value is not None and not isinstance(value, bool) and value != []:
            assert f"(default: {action.default})" in text, action.dest


def test_top_level_help_shows_no_markup():
    from turngym.cli import build_parser

    text = build_parser().format_help()
    assert "``" not in text and "{list,play" not in text
    for command in ("list", "play", "check", "eval", "collect", "serve", "train", "view"):
        assert f"    {command} " in text


def test_play_saves_a_visual_envs_screenshots_to_files(capsys, tmp_path):
    pytest.importorskip("PIL", reason="ScreenGraph-v0 draws with Pillow")
    shots = tmp_path / "shots"
    argv = ["play", "ScreenGraph-v0", "--agent", "expert", "--screenshots", str(shots)]
    assert main([*argv, "--set", "n_screens=4", "--set", "min_depth=1"]) == 0
    out = capsys.readouterr().out
    assert "array(" not in out and 'Screen: "Home"' in out
    first = shots / "ScreenGraph-v0-seed0-0.png"
    assert f"[screenshot: {first}]" in out
    assert first.read_bytes().startswith(b"\x89PNG")
    assert len(list(shots.iterdir())) == out.count("[screenshot: ")

"""`turngym eval`: rows stream as envs finish, --family and globs, skipped extras, --jobs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from turngym.cli import main
from turngym.progress import progress

ROOT = Path(__file__).resolve().parents[2]

# Runs the CLI with FrozenLake's evaluation held until the test creates the gate file,
# which it does only after reading Bandit's row: the row must be out (and flushed into
# the pipe) while the second env is still playing. If the gate never opens, exit 3.
_GATED = textwrap.dedent(
    """
    import pathlib, sys, time
    import turngym.sdk.evaluation as evaluation

    gate, real = pathlib.Path(sys.argv[1]), evaluation.evaluate

    def gated(env_id, *args, **kwargs):
        if env_id == "turngym/FrozenLake-v0":
            for _ in range(1200):
                if gate.exists():
                    break
                time.sleep(0.05)
            else:
                sys.exit(3)
        return real(env_id, *args, **kwargs)

    evaluation.evaluate = gated
    from turngym.cli import main
    sys.exit(main(sys.argv[2:]))
    """
)


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "table"])
def test_each_row_is_printed_and_flushed_before_the_next_env_finishes(tmp_path, as_json):
    gate = tmp_path / "gate"
    argv = ["eval", "Bandit-v0", "FrozenLake-v0", "--agents", "expert", "--episodes", "2"]
    argv += ["--json"] if as_json else []
    # stdout into a pipe is block-buffered unless the CLI flushes: no PYTHONUNBUFFERED
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, "-c", _GATED, str(gate), *argv]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    try:
        first = proc.stdout.readline()
        while first and not first.startswith(("{", "turngym/")):  # the table's title, header
            first = proc.stdout.readline()
        gate.touch()
        rest, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "turngym/Bandit-v0" in first and "FrozenLake" not in first
    if as_json:
        assert json.loads(first)["success_rate"] == 1.0
        assert json.loads(rest.splitlines()[0])["env"] == "turngym/FrozenLake-v0"
    else:
        assert rest.startswith("turngym/FrozenLake-v0  expert")


def _json_rows(capsys) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_family_and_globs_choose_the_envs(capsys):
    common = ["--agents", "expert", "--episodes", "1", "--json"]
    assert main(["eval", "--family", "classic", *common]) == 0
    assert {r["env"] for r in _json_rows(capsys)} == {
        "turngym/Taxi-v0",
        "turngym/CliffWalking-v0",
        "turngym/Blackjack-v0",
    }
    assert main(["eval", "turngym/*Poker*", "Leduc*", *common]) == 0
    assert [r["env"] for r in _json_rows(capsys)] == [
        "turngym/KuhnPoker-v0",
        "turngym/LeducHoldem-v0",
    ]
    assert main(["eval", "*Poker*", "--family", "text", *common]) == 2
    assert "no env of family text" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--family", "boardgames"], "family must be one of text, classic, games, web"),
        (["Nope*"], "no turngym env id matches 'Nope*'"),
        ([], "pass --all or --family"),
        (["Bandit-v0", "--jobs", "0"], "--jobs must be >= 1"),
        (["Bandit-v0", "--set", "sise=4"], "Bandit-v0 takes no 'sise'"),
        (["Bandit-v0", "--opponent", "expert"], "no game is among the envs"),
    ],
)
def test_bad_selection_is_one_line(argv, message, capsys):
    assert main(["eval", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_an_env_whose_extra_is_missing_is_skipped_with_the_reason(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "chess", None)  # as if python-chess were not installed
    argv = ["eval", "Chess-v0", "Bandit-v0", "--agents", "expert", "--episodes", "2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "skipped turngym/Chess-v0: " in out and "pip install 'turngym[chess]'" in out
    assert "Traceback" not in out and "turngym/Bandit-v0  expert" in out
    assert main([*argv, "--json"]) == 0
    skipped, row = _json_rows(capsys)
    assert skipped["env"] == "turngym/Chess-v0" and "turngym[chess]" in skipped["skipped"]
    assert row["env"] == "turngym/Bandit-v0" and row["success_rate"] == 1.0


def test_jobs_give_the_results_of_one_process(capsys):
    argv = ["eval", "Bandit-v0", "FrozenLake-v0", "TicTacToe-v0", "--episodes", "4", "--json"]
    assert main([*argv, "--jobs", "1"]) == 0
    alone = _json_rows(capsys)
    assert main([*argv, "--jobs", "2"]) == 0
    pooled = _json_rows(capsys)
    assert len(alone) == 6

    def key(row: dict) -> tuple[str, str]:
        return row["env"], row["agent"]

    assert sorted(pooled, key=key) == sorted(alone, key=key)


def test_an_env_that_raises_is_a_row_and_exit_status_1(capsys, monkeypatch):
    import turngym.sdk.evaluation as evaluation

    real = evaluation.evaluate

    def broken(env_id, *args, **kwargs):
        if env_id == "turngym/Bandit-v0":
            raise RuntimeError("the env fell over\nsecond line")
        return real(env_id, *args, **kwargs)

    monkeypatch.setattr(evaluation, "evaluate", broken)
    argv = ["eval", "Bandit-v0", "FrozenLake-v0", "--agents", "expert", "--episodes", "2"]
    assert main([*argv, "--json"]) == 1
    failed, row = _json_rows(capsys)
    assert failed["error"] == "RuntimeError: the env fell over second line"
    assert row["env"] == "turngym/FrozenLake-v0" and row["success_rate"] == 1.0


def test_plain_progress_lines_off_a_terminal(capsys):
    assert list(progress(range(3), total=3, desc="eval x", plain_every=0)) == [0, 1, 2]
    assert capsys.readouterr().err.splitlines() == ["eval x 1/3", "eval x 2/3", "eval x 3/3 done"]
    assert list(progress(range(3), total=3, desc="quiet")) == [0, 1, 2]
    assert capsys.readouterr().err == ""

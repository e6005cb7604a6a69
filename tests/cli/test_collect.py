from __future__ import annotations

import json

import numpy as np
import pytest

from turngym.cli import main
from turngym.sdk.episode_files import MANIFEST, load_episodes


def test_collect_writes_episodes_a_manifest_and_a_summary(tmp_path, capsys):
    out = tmp_path / "demos"
    argv = ["collect", "FrozenLake-v0", "--agent", "expert", "--episodes", "6", "--seed", "10"]
    assert main([*argv, "--output", str(out), "--set", "is_slippery=False"]) == 0
    summary = capsys.readouterr().out.strip().splitlines()
    assert len(summary) == 1 and str(out / "episodes.jsonl") in summary[0]
    assert "6 episodes" in summary[0] and "success 1.00" in summary[0]
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["env_id"] == "turngym/FrozenLake-v0"
    assert manifest["env_kwargs"] == {"is_slippery": False}
    assert manifest["agents"] == {"agent": "expert"}
    assert manifest["seeds"] == [10, 15] and manifest["episodes"] == 6
    assert manifest["success_rate"] == 1.0 and manifest["files"] == ["episodes.jsonl"]
    episodes = load_episodes(out)
    assert [ep.seed for ep in episodes] == list(range(10, 16))
    assert [ep.index for ep in episodes] == list(range(6))
    assert all(ep.success and ep.meta["agents"] == {"agent": "expert"} for ep in episodes)


def test_collect_is_deterministic(tmp_path, capsys):
    for name in ("a", "b"):
        argv = ["collect", "FrozenLake-v0", "--agent", "random", "--episodes", "40"]
        assert main([*argv, "--output", str(tmp_path / name)]) == 0
    assert (tmp_path / "a" / "episodes.jsonl").read_text() == (
        tmp_path / "b" / "episodes.jsonl"
    ).read_text()


def test_collect_plays_every_seat_of_a_game_and_writes_parquet(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    out = tmp_path / "ttt"
    argv = ["collect", "TicTacToe-v0", "--agent", "expert", "--episodes", "3"]
    assert main([*argv, "--output", str(out), "--format", "parquet"]) == 0
    assert "episodes.parquet" in capsys.readouterr().out
    episodes = load_episodes(out)
    assert len(episodes) == 3
    for ep in episodes:
        assert ep.agents == ["player_0", "player_1"]
        assert ep.meta["agents"] == {"player_0": "expert", "player_1": "expert"}
        assert sum(ep.returns.values()) == 0  # experts draw
        assert ep.turns[0].obs["action_mask"].dtype == np.int8


def test_collect_with_an_opponent_in_a_seat(tmp_path, capsys):
    out = tmp_path / "vs"
    argv = ["collect", "TicTacToe-v0", "--agent", "expert", "--opponent", "random"]
    assert main([*argv, "--seat", "1", "--episodes", "4", "--output", str(out)]) == 0
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["agents"] == {"player_0": "random", "player_1": "expert"}
    episodes = load_episodes(out)
    assert all(ep.returns["player_1"] >= 0 for ep in episodes)  # the expert never loses


def test_collect_refuses_to_overwrite_unless_asked(tmp_path, capsys):
    out = tmp_path / "d"
    argv = ["collect", "Bandit-v0", "--agent", "random", "--output", str(out)]
    assert main([*argv, "--episodes", "3"]) == 0
    assert main([*argv, "--episodes", "2"]) == 2
    assert "not empty" in capsys.readouterr().err and len(load_episodes(out)) == 3
    assert main([*argv, "--episodes", "2", "--overwrite", "--set", "pulls=-2"]) == 2
    assert len(load_episodes(out)) == 3  # a typo does not cost the old dataset
    assert main([*argv, "--episodes", "2", "--overwrite"]) == 0
    assert len(load_episodes(out)) == 2
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    argv = ["collect", "Bandit-v0", "--output", str(mine), "--overwrite"]
    assert main(argv) == 2
    assert "no dataset.json" in capsys.readouterr().err
    assert (mine / "thesis.tex").read_text() == "years of work"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["Nope-v0"], "unknown turngym env"),
        (["Bandit-v0", "--agent", "genius"], "--agent is expert, random, hf:DIR or openai:URL"),
        (["Bandit-v0", "--opponent", "random"], "--opponent and --seat are for games"),
        (["TicTacToe-v0", "--seat", "1"], "--seat needs --opponent"),
        (["TicTacToe-v0", "--opponent", "random", "--seat", "2"], "--seat must be one of 0, 1"),
        (["TicTacToe-v0", "--opponent", "random", "--seat", "x"], "--seat must be one of 0, 1"),
        (["Bandit-v0", "--set", "pulls=-2"], "pulls must be >= 1"),
        (["Bandit-v0", "--agent", "hf:/no/such/dir"], "no model directory"),
        (["Bandit-v0", "--episodes", "0"], "--episodes must be >= 1"),
    ],
)
def test_collect_bad_input_gives_a_message_not_a_traceback(tmp_path, extra, message, capsys):
    assert main(["collect", *extra, "--output", str(tmp_path / "o")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o" / MANIFEST).exists()

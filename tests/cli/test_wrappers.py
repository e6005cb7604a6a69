"""`--wrappers` on `turngym eval` and `collect`, and a trained model's own stack as default."""

from __future__ import annotations

import json

import pytest

from turngym.cli import main
from turngym.sdk.agents import trained_agent_settings, trained_wrappers, write_agent_settings
from turngym.sdk.episode_files import MANIFEST, load_episodes


def test_collect_plays_under_the_wrappers_and_the_manifest_says_which(tmp_path, capsys):
    out = tmp_path / "data"
    argv = ["collect", "FrozenLake-v0", "--agent", "random", "--episodes", "3"]
    assert main([*argv, "--output", str(out), "--wrappers", "chat_history"]) == 0
    assert json.loads((out / MANIFEST).read_text())["wrappers"] == ["chat_history"]
    first = load_episodes(out)[0].turns[0].obs
    assert isinstance(first, list) and first[-1]["role"] == "user"  # chat messages
    plain = tmp_path / "plain"
    assert main([*argv, "--output", str(plain)]) == 0
    assert json.loads((plain / MANIFEST).read_text())["wrappers"] == []
    assert isinstance(load_episodes(plain)[0].turns[0].obs, str)


def test_eval_takes_wrappers_and_refuses_an_unknown_one_in_one_line(capsys):
    common = ["eval", "FrozenLake-v0", "--agents", "random", "--episodes", "2", "--json"]
    # a stack in the wrong order is the env's row error, said in one line (exit 1)
    assert main([*common, "--wrappers", "sliding_window:keep_last=2,chat_history"]) == 1
    assert "is the wrong order" in json.loads(capsys.readouterr().out.splitlines()[-1])["error"]
    assert main([*common, "--wrappers", "chat_history"]) == 0
    row = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert row["env"] == "turngym/FrozenLake-v0" and row["episodes"] == 2
    assert main([*common, "--wrappers", "no_such_wrapper"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown wrapper 'no_such_wrapper'" in err


def test_a_trained_models_settings_keep_its_stack_and_agents_ignore_it(tmp_path):
    write_agent_settings(tmp_path, constrained=True, system_prompt=None, wrappers=["chat_history"])
    assert trained_wrappers(f"hf:{tmp_path}") == ["chat_history"]
    assert trained_agent_settings(tmp_path)["constrained"] is True
    assert trained_wrappers("random") == []
    (tmp_path / "turngym_agent.json").write_text('{"wrappers": "chat_history"}')
    with pytest.raises(ValueError, match="wrappers must be a list of wrapper specs"):
        trained_wrappers(f"hf:{tmp_path}")


def test_eval_plays_a_trained_model_under_the_stack_it_was_trained_under(tmp_path, capsys):
    pytest.importorskip("transformers")
    from turngym.sdk.models import build_tiny_model

    model = tmp_path / "model"
    build_tiny_model(model, seed=0)
    write_agent_settings(model, constrained=True, system_prompt=None, wrappers=["chat_history"])
    argv = ["eval", "Bandit-v0", "--agent", f"hf:{model}", "--episodes", "2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "plays under the wrappers it was trained under: chat_history" in out

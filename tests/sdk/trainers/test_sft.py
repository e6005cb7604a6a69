"""SFTTrainer: demonstrations as the agent's own tokens, masking, resume, CLI, errors, learning."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from turngym.cli import main
from turngym.sdk.episode_files import save_episodes
from turngym.sdk.records import save_jsonl
from turngym.sdk.rollout import collect
from turngym.sdk.trainers.sft import DEMO_FILE, SFTConfig, SFTTrainer


def config(model_dir, tmp_path, **overrides):
    values = dict(
        env="turngym/FrozenLake-v0",
        model=str(model_dir),
        output_dir=str(tmp_path / "run"),
        episodes=2,
        epochs=1,
        batch_size=4,
        max_turns=12,
        eval_episodes=4,
        save_every=0,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    values.update(overrides)
    return SFTConfig(**values)


def action_tokens(seq):
    return [t for t, m in zip(seq.input_ids, seq.loss_mask, strict=True) if m]


def test_demonstrations_are_the_agents_prompts_and_its_parseable_action_tokens(
    rl_model_dir, tmp_path
):
    """Prompt: LLMAgent.render of the observation; loss: the action's tokens + EOS only."""
    from turngym.sdk.agents.llm import default_parse

    trainer = SFTTrainer(config(rl_model_dir, tmp_path, system_prompt="Answer with one move."))
    agent = trainer._agent(0.0)
    tokenizer = trainer.tokenizer
    turns = [t for ep in trainer.demos for t in ep.turns]
    assert len(trainer.sequences) == len(turns) == 12  # one prompt per turn: per-turn view
    for seq, turn in zip(trainer.sequences, turns, strict=True):
        prompt = agent.render([turn.obs])[0]
        start = seq.loss_mask.index(1)
        assert seq.input_ids[:start] == prompt  # no prompt token has loss
        assert not any(seq.loss_mask[:start])
        answer = action_tokens(seq)
        assert seq.input_ids[start:] == answer  # the action closes the sequence
        assert answer == agent.choice_ids([turn.action])[0]  # what guided choice decodes
        assert answer[-1] == tokenizer.eos_token_id
        text = tokenizer.decode(answer[:-1])
        assert default_parse(text, {}) == turn.action
    assert "Answer with one move." in tokenizer.decode(trainer.sequences[0].input_ids)
    assert trainer.demo_stats == {
        "episodes": 2,
        "success": 1.0,
        "kept": 2,
        "only_success": True,
        "sequences": 12,
        "action_tokens": sum(len(action_tokens(s)) for s in trainer.sequences),
    }
    trainer.close()


def test_a_chat_history_conversation_packs_with_every_action_and_only_actions_trained(
    rl_model_dir, tmp_path
):
    trainer = SFTTrainer(config(rl_model_dir, tmp_path, episodes=1, wrappers=["chat_history"]))
    [seq] = trainer.sequences  # the whole append-only conversation in one sequence
    [episode] = trainer.demos
    assert seq.packed
    spans, start = [], None
    for k, m in enumerate([*seq.loss_mask, 0]):
        if m and start is None:
            start = k
        elif not m and start is not None:
            spans.append(trainer.tokenizer.decode(seq.input_ids[start : k - 1]))
            start = None
    assert spans == [t.action for t in episode.turns]
    trainer.close()


def test_game_demonstrations_are_expert_self_play_on_every_seat(rl_model_dir, tmp_path):
    """TicTacToe expert self-play draws: no seat succeeds, and every game is still kept."""
    trainer = SFTTrainer(config(rl_model_dir, tmp_path, env="TicTacToe-v0", episodes=2))
    assert trainer.demo_stats["only_success"] is False and trainer.demo_stats["kept"] == 2
    seats = {t.agent for ep in trainer.demos for t in ep.turns}
    assert seats == {"player_0", "player_1"}
    assert len(trainer.sequences) == sum(ep.length for ep in trainer.demos)
    result = trainer.evaluate(4)
    assert set(result) == {"success", "nonloss"}
    trainer.close()


def test_demos_from_a_file_or_directory_train_on_the_same_sequences_as_live_ones(
    rl_model_dir, tmp_path
):
    episodes = collect("turngym/FrozenLake-v0", "expert", episodes=2, seed=0, max_turns=12)
    (tmp_path / "data").mkdir()
    save_jsonl(episodes, tmp_path / "data" / "episodes.jsonl")
    live = SFTTrainer(config(rl_model_dir, tmp_path / "live"))
    assert (tmp_path / "live" / "run" / DEMO_FILE).is_file()  # what the run imitated
    pytest.importorskip("pyarrow")
    save_episodes(episodes, tmp_path / "episodes.parquet")  # what `collect --format parquet` writes
    where_all = (
        tmp_path / "data" / "episodes.jsonl",
        tmp_path / "data",
        tmp_path / "episodes.parquet",
    )
    for where in where_all:
        saved = SFTTrainer(config(rl_model_dir, tmp_path / "file", demos=str(where)))
        assert saved.sequences == live.sequences
        saved.close()
    live.close()


def test_a_models_demonstrations_are_retokenized_for_the_trained_model(rl_model_dir, tmp_path):
    teacher = tmp_path / "teacher"
    shutil.copytree(rl_model_dir, teacher)
    (teacher / "turngym_agent.json").write_text('{"constrained": true}')
    trainer = SFTTrainer(
        config(rl_model_dir, tmp_path, demos=f"hf:{teacher}", only_success=False, max_turns=3)
    )
    agent = trainer._agent(0.0)
    assert trainer.demo_stats["episodes"] == 2
    turns = [t for ep in trainer.demos for t in ep.turns]
    for seq, turn in zip(trainer.sequences, turns, strict=True):  # guided: every turn legal
        assert action_tokens(seq) == agent.choice_ids([turn.action])[0]
    trainer.close()


def test_sft_learns_frozen_lake_from_expert_episodes(rl_model_dir, tmp_path, measured_training):
    """Held-out success < 0.2 before, >= 0.9 after 60 optimiser steps on 4 expert episodes.

    The default FrozenLake map is the same on every seed: this shows that the imitated
    tokens are the ones the agent then decodes, not generalisation to unseen maps.
    """
    trainer = SFTTrainer(
        config(
            rl_model_dir,
            tmp_path,
            episodes=4,
            epochs=20,
            batch_size=8,
            lr=3e-3,
            lr_schedule="constant",
            eval_episodes=32,
        )
    )
    assert trainer.config.steps == 60  # 24 sequences / 8 per step x 20 epochs
    before, after, _ = measured_training(trainer, "FrozenLake-v0 SFT")
    assert before < 0.2
    assert after >= 0.9


def test_an_interrupted_run_resumes_to_the_same_weights(rl_model_dir, tmp_path):
    """Crash after the step-4 checkpoint; resuming gives the uninterrupted run's weights."""
    import torch
    from transformers import AutoModelForCausalLM

    common = dict(epochs=3, batch_size=4, lr_schedule="linear", save_every=2, eval_episodes=2)
    SFTTrainer(config(rl_model_dir, tmp_path / "a", **common)).train()
    cut = SFTTrainer(config(rl_model_dir, tmp_path / "b", **common))
    assert cut.config.steps == 9  # 12 sequences, 3 steps an epoch
    step = cut.train_step

    def crash(k):
        if k == 5:
            raise KeyboardInterrupt
        return step(k)

    cut.train_step = crash
    with pytest.raises(KeyboardInterrupt):
        cut.train()
    cut.close()

    resumed = SFTTrainer(config(rl_model_dir, tmp_path / "b", **common, resume=True))
    resumed._play_demos = None  # the saved demonstrations are read back, not replayed
    summary = resumed.train()
    assert summary["eval_before"] is None and summary["steps"] == 9

    def trace(run):
        rows = [json.loads(line) for line in (tmp_path / run / "run" / "metrics.jsonl").open()]
        return [(r["step"], r["loss"], r["grad_norm"], r["lr"]) for r in rows if "loss" in r]

    assert [r[0] for r in trace("b")] == list(range(1, 10))
    assert trace("b") == trace("a")
    wa = AutoModelForCausalLM.from_pretrained(tmp_path / "a/run/final").state_dict()
    wb = AutoModelForCausalLM.from_pretrained(tmp_path / "b/run/final").state_dict()
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def test_evaluations_record_episodes_and_zero_turns_it_off(
    rl_model_dir, tmp_path, recorded_evaluations
):
    cfg = config(rl_model_dir, tmp_path, epochs=1, eval_episodes=2, eval_record_episodes=1)
    steps = SFTTrainer(cfg).train()["steps"]
    found = recorded_evaluations(tmp_path / "run")
    assert list(found) == [0, steps]
    assert found[0] == [{"step": 0, "mode": "greedy"}]
    assert json.loads((tmp_path / "run" / "config.json").read_text())["epochs"] == 1
    SFTTrainer(config(rl_model_dir, tmp_path / "off", epochs=1, eval_record_episodes=0)).train()
    assert not (tmp_path / "off" / "run" / "episodes").exists()


def test_resume_refuses_other_demonstrations(rl_model_dir, tmp_path):
    SFTTrainer(config(rl_model_dir, tmp_path, demos="expert")).train()
    episodes = collect("turngym/FrozenLake-v0", "expert", episodes=1, seed=0, max_turns=12)
    save_jsonl(episodes, tmp_path / "one.jsonl")
    other = SFTTrainer(
        config(rl_model_dir, tmp_path, demos=str(tmp_path / "one.jsonl"), resume=True)
    )
    with pytest.raises(ValueError, match="trained on 12 demonstration sequences"):
        other.train()


def test_cli_trains_and_grpo_starts_from_the_final_model(rl_model_dir, tmp_path, capsys):
    from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer
    from turngym.sdk.trainers.learner import resolve_model

    run = tmp_path / "sft"
    argv = ["train", "sft", "--env", "FrozenLake-v0", "--model", str(rl_model_dir)]
    argv += ["--output-dir", str(run), "--demos", "expert", "--episodes", "2", "--epochs", "1"]
    argv += ["--batch-size", "4", "--max-turns", "12", "--eval-episodes", "2"]
    argv += ["--progress", "false", "--tensorboard", "false", "--log-every", "0"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "held-out success:" in out and f"--agent hf:{run / 'final'}" in out
    final = run / "final"
    assert json.loads((final / "turngym_agent.json").read_text()) == {
        "constrained": True,
        "system_prompt": None,
    }
    assert (run / "curve.png").is_file() and (run / "metrics.jsonl").is_file()
    assert resolve_model(str(final), tmp_path) == final  # what sac-glam and archer load
    grpo = GRPOConfig(
        env="turngym/FrozenLake-v0",
        model=str(final),
        output_dir=str(tmp_path / "grpo"),
        steps=1,
        groups=2,
        group_size=2,
        max_turns=4,
        eval_episodes=2,
        save_every=0,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    assert GRPOTrainer(grpo).train()["steps"] == 1


def test_lora_trains_adapters_and_saves_a_merged_final_model(rl_model_dir, tmp_path):
    from transformers import AutoModelForCausalLM

    trainer = SFTTrainer(config(rl_model_dir, tmp_path, episodes=1, lora_rank=4, eval_episodes=1))
    trainable = [n for n, p in trainer.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora" in n for n in trainable)
    trainer.train()
    final = tmp_path / "run" / "final"
    assert not (final / "adapter_config.json").exists()
    AutoModelForCausalLM.from_pretrained(final)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"episodes": 0}, "episodes must be None or an int >= 1"),
        ({"batch_size": 0}, "batch_size must be an int >= 1"),
        ({"lr_schedule": "step"}, "lr_schedule must be constant, linear or cosine"),
        ({"demos": ""}, "demos must be 'expert', 'hf:DIR' or the path"),
        ({"eval_opponent": "minimax"}, "eval_opponent must be random or expert"),
    ],
)
def test_bad_config_is_one_line_value_error(overrides, message):
    with pytest.raises(ValueError, match=message) as info:
        SFTConfig(**overrides)
    assert "\n" not in str(info.value)


def _write(path, text):
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("demos", "message"),
    [
        (lambda tmp: "random", "demos must be 'expert', 'hf:DIR' or an episode file"),
        (lambda tmp: "openai:http://127.0.0.1:9/v1", "demos must be 'expert', 'hf:DIR'"),
        (lambda tmp: f"hf:{tmp / 'nowhere'}", "no model directory"),
        (lambda tmp: str(tmp / "missing.jsonl"), "does not exist"),
        (lambda tmp: _write(tmp / "notes.jsonl", "hello\n"), r"notes.jsonl:1: not valid JSON"),
        (lambda tmp: _write(tmp / "empty.jsonl", ""), "holds no episodes"),
        (lambda tmp: str(tmp), r"no episode files \(\*.jsonl, \*.parquet\)"),
    ],
)
def test_bad_demos_are_one_line_value_errors(rl_model_dir, tmp_path, demos, message):
    with pytest.raises(ValueError, match=message) as info:
        SFTTrainer(config(rl_model_dir, tmp_path / "run-dir", demos=demos(tmp_path)))
    assert "\n" not in str(info.value)


def test_demos_of_another_env_or_without_success_are_refused(rl_model_dir, tmp_path):
    taxi = collect("turngym/Taxi-v0", "expert", episodes=1, seed=0)
    save_jsonl(taxi, tmp_path / "taxi.jsonl")
    with pytest.raises(ValueError, match=r"holds episodes of \['turngym/Taxi-v0'\]"):
        SFTTrainer(config(rl_model_dir, tmp_path, demos=str(tmp_path / "taxi.jsonl")))
    failed = collect("turngym/FrozenLake-v0", "random", episodes=2, seed=0, max_turns=1)
    assert not any(ep.success for ep in failed)
    save_jsonl(failed, tmp_path / "failed.jsonl")
    with pytest.raises(ValueError, match="none of the 2 demonstration episodes succeeded"):
        SFTTrainer(config(rl_model_dir, tmp_path, demos=str(tmp_path / "failed.jsonl")))
    kept = SFTTrainer(
        config(rl_model_dir, tmp_path, demos=str(tmp_path / "failed.jsonl"), only_success=False)
    )
    assert kept.demo_stats["kept"] == 2
    kept.close()


def test_an_env_without_an_expert_is_refused_before_the_model_loads(monkeypatch, tmp_path):
    import turngym.registry

    real = turngym.registry.entry
    monkeypatch.setattr(
        turngym.registry, "entry", lambda env_id: dataclasses.replace(real(env_id), expert=None)
    )
    with pytest.raises(ValueError, match="has no scripted expert; pass demos=hf:DIR"):
        SFTTrainer(config("no-model-needed", tmp_path))


def test_cli_bad_demos_print_one_line(rl_model_dir, tmp_path, capsys):
    argv = ["train", "sft", "--env", "FrozenLake-v0", "--model", str(rl_model_dir)]
    argv += ["--output-dir", str(tmp_path), "--demos", "random", "--progress", "false"]
    argv += ["--episodes", "none"]  # None (every saved episode) passes the --episodes check
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("turngym: demos must be") and err.count("\n") == 1


def test_resume_without_a_run_is_an_error_and_a_failed_run_leaves_no_folder(rl_model_dir, tmp_path):
    with pytest.raises(ValueError, match=r"resume: .* does not exist"):
        SFTTrainer(config(rl_model_dir, tmp_path, resume=True))
    with pytest.raises(ValueError, match="holds no episodes"):
        SFTTrainer(config(rl_model_dir, tmp_path, demos=_write(tmp_path / "e.jsonl", "")))
    assert not (tmp_path / "run").exists()

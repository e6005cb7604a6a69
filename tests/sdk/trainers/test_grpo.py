"""GRPOTrainer mechanics: gradients, guided choice, resume, self-play, LoRA, config, CLI."""

from __future__ import annotations

import dataclasses
import json

import pytest

from turngym.sdk.trainers import sequences
from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer


def config(model_dir, tmp_path, **overrides):
    values = dict(
        env="turngym/Bandit-v0",
        model=str(model_dir),
        output_dir=str(tmp_path / "run"),
        steps=2,
        groups=4,
        group_size=4,
        lr=1e-3,
        eval_every=0,
        eval_episodes=8,
        save_every=0,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    values.update(overrides)
    return GRPOConfig(**values)


def test_only_action_tokens_get_gradient(rl_model_dir, tmp_path, monkeypatch):
    """Prompt/observation positions of the logits get exactly zero gradient."""
    import torch

    trainer = GRPOTrainer(config(rl_model_dir, tmp_path, env="turngym/FrozenLake-v0", max_turns=4))
    episodes = trainer.collect(0)
    seqs = trainer.sequences(episodes, [[1.0] * ep.length for ep in episodes])
    batch = seqs[:4]
    captured = {}

    def keep(module, inputs, output):
        output.retain_grad()
        captured["logits"] = output

    handle = trainer.model.lm_head.register_forward_hook(keep)
    monkeypatch.setattr(sequences, "decoder_and_head", lambda model: None)  # full logits
    logp, mask, _ = trainer._token_logprobs(trainer.model, batch, want_entropy=False)
    handle.remove()
    (logp * mask).sum().backward()
    grad = captured["logits"].grad  # [batch, length, vocab]
    predicts_action = torch.zeros(grad.shape[:2], dtype=torch.bool)
    predicts_action[:, :-1] = mask[:, 1:]  # logits at t predict token t + 1
    assert grad[~predicts_action].abs().max() == 0
    assert grad[predicts_action].abs().sum(-1).min() > 0
    # guided choice: only the allowed tokens' logits get gradient at a decision
    row = grad[predicts_action][0]
    assert (row != 0).sum() == 4  # left, down, right, up


def test_the_head_on_action_positions_only_matches_full_logits(rl_model_dir, tmp_path):
    import torch

    for lora in (0, 4):
        trainer = GRPOTrainer(
            config(rl_model_dir, tmp_path / str(lora), env="turngym/FrozenLake-v0", lora_rank=lora)
        )
        assert sequences.decoder_and_head(trainer.model) is not None
        episodes = trainer.collect(0)
        seqs = trainer.sequences(episodes, [[1.0] * ep.length for ep in episodes])[:6]
        with torch.no_grad():
            fast, mask, _ = trainer._token_logprobs(trainer.model, seqs, want_entropy=True)
            full = sequences.decoder_and_head
            try:
                sequences.decoder_and_head = lambda model: None
                slow, _, _ = trainer._token_logprobs(trainer.model, seqs, want_entropy=True)
            finally:
                sequences.decoder_and_head = full
        assert mask.any()
        torch.testing.assert_close(fast, slow, rtol=1e-5, atol=1e-5)


def test_sequences_are_packed_for_a_chat_and_per_turn_for_a_window(rl_model_dir, tmp_path):
    for wrappers, packed in ((["chat_history"], True), (["sliding_window:keep_last=2"], False)):
        trainer = GRPOTrainer(
            config(
                rl_model_dir,
                tmp_path / wrappers[0],
                env="turngym/FrozenLake-v0",
                max_turns=4,
                wrappers=wrappers,
            )
        )
        episodes = trainer.collect(0)
        seqs = trainer.sequences(episodes, [[1.0] * ep.length for ep in episodes])
        multi = [s for s in seqs if episodes[s.episode].length > 2]
        assert multi and all(s.packed == packed for s in multi), wrappers


def test_a_summarize_spec_counts_tokens_with_the_policys_tokenizer(rl_model_dir, tmp_path):
    """``--wrappers summarize:budget_tokens=300``: no prompt the policy is given passes 300
    of its own tokens (4 characters a token let them reach 711), and the summaries are
    written freely although guided choice picks the moves."""
    from tests.toy_envs import LongWalk

    budget = 300
    trainer = GRPOTrainer(
        config(
            rl_model_dir,
            tmp_path,
            env="LongWalk",
            wrappers=[f"summarize:budget_tokens={budget};max_summaries=20"],
            max_turns=40,
            groups=1,
            group_size=2,
            max_new_tokens=6,
            system_prompt="Say left or right.",
        ),
        env_fn=LongWalk,
    )
    episodes = trainer.collect(0)
    turns = [t for ep in episodes for t in ep.turns]
    assert len(turns) == 80 and any(t.info.get("context_event") == "summary" for t in turns)
    assert max(len(t.prompt_ids) for t in turns) <= budget
    # guided choice picks the moves; the summaries are free text, not a legal action
    summaries = [t for t in turns if t.info.get("context_event") == "summary"]
    assert not any(t.constrained for t in summaries)
    assert all(t.constrained for t in turns if not t.info.get("wrapper_turn"))


def test_an_overlong_episode_trains_nothing_and_stays_out_of_its_groups_baseline(
    rl_model_dir, tmp_path
):
    """SUPO: the whole overlong rollout is masked, earlier turns included."""
    from turngym.sdk.records import Episode, Turn

    def episode(group, rewards, overlong=False):
        turns = [
            Turn(
                prompt_ids=[1, 2 + k],
                action_ids=[5, 6],
                action_logprobs=[-1.0, -1.0],
                reward=r,
                trainable=True,
                info={"overlong": overlong and k == len(rewards) - 1},
            )
            for k, r in enumerate(rewards)
        ]
        return Episode("env", group=group, turns=turns)

    others = [episode(0, [0.0, 1.0]), episode(0, [0.0, 0.0]), episode(1, [2.0]), episode(1, [0.0])]
    batch = [others[0], episode(0, [1.0, -3.0], overlong=True), *others[1:]]
    trainer = GRPOTrainer(config(rl_model_dir, tmp_path, constrained=False))
    for advantage in ("grpo", "reinforce", "gigpo", "turn_level", "per_agent_norm"):
        trainer.config.advantage = advantage
        advantages = trainer.advantages(batch)
        assert advantages[1] == [0.0, 0.0], advantage
        assert [advantages[0], *advantages[2:]] == trainer.advantages(others), advantage
        seqs = trainer.sequences(batch, [[1.0] * ep.length for ep in batch])
        assert seqs and all(s.episode != 1 for s in seqs), advantage


def test_resume_gives_the_same_trace_as_an_uninterrupted_run(rl_model_dir, tmp_path):
    """10 steps, save, resume 10 more == 20 steps in one go (fixed seed)."""
    import torch

    common = dict(steps=20, epochs=2, minibatches=2, eval_episodes=4, save_every=10)
    GRPOTrainer(config(rl_model_dir, tmp_path / "a", **common)).train()
    GRPOTrainer(config(rl_model_dir, tmp_path / "b", **{**common, "steps": 10})).train()
    resumed = GRPOTrainer(config(rl_model_dir, tmp_path / "b", **common, resume=True))
    resumed.train()

    def trace(run):
        rows = [json.loads(line) for line in (tmp_path / run / "run" / "metrics.jsonl").open()]
        return [(r["step"], r["loss"], r["grad_norm"], r["reward"]) for r in rows if "loss" in r]

    full, parts = trace("a"), trace("b")
    assert [r[0] for r in parts] == list(range(1, 21))
    assert parts == full
    a = torch.load(tmp_path / "a/run/checkpoints/step-0000020/trainer_state.pt", weights_only=False)
    b = torch.load(tmp_path / "b/run/checkpoints/step-0000020/trainer_state.pt", weights_only=False)
    assert a["step"] == b["step"] == 20
    from transformers import AutoModelForCausalLM

    wa = AutoModelForCausalLM.from_pretrained(tmp_path / "a/run/final").state_dict()
    wb = AutoModelForCausalLM.from_pretrained(tmp_path / "b/run/final").state_dict()
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def test_each_evaluation_records_episodes_and_the_run_its_config(
    rl_model_dir, tmp_path, recorded_evaluations
):
    """Episodes of every evaluation (step 0 too) land in episodes/; resume goes on."""
    cfg = config(rl_model_dir, tmp_path, eval_every=1, eval_episodes=4, eval_record_episodes=2)
    GRPOTrainer(cfg).train()
    run = tmp_path / "run"
    found = recorded_evaluations(run)
    assert list(found) == [0, 1, 2]
    assert all(m == [{"step": s, "mode": "sampled"}] * 2 for s, m in found.items())
    assert json.loads((run / "config.json").read_text()) == {"trainer": "grpo", **cfg.to_dict()}
    more = dataclasses.replace(cfg, steps=3, resume=True)
    GRPOTrainer(more).train()
    assert list(recorded_evaluations(run)) == [0, 1, 2, 3]
    assert json.loads((run / "config.json").read_text())["steps"] == 3


def test_a_games_evaluation_records_a_few_episodes_per_seat(rl_model_dir, tmp_path):
    from turngym.sdk.episode_files import load_episodes

    cfg = config(rl_model_dir, tmp_path, env="turngym/TicTacToe-v0", eval_record_episodes=1)
    trainer = GRPOTrainer(dataclasses.replace(cfg, eval_greedy=True, eval_opponent="expert"))
    trainer.evaluate(4)
    episodes = load_episodes(tmp_path / "run" / "episodes" / "eval-step-0000000.jsonl")
    keys = ("step", "mode", "seat", "opponent")
    assert [{k: ep.meta[k] for k in keys} for ep in episodes] == [
        {"step": 0, "mode": "greedy", "seat": seat, "opponent": "expert"}
        for seat in ("player_0", "player_1")
    ]
    assert all(ep.turns for ep in episodes)


def test_checkpoints_are_atomic_and_pruned(rl_model_dir, tmp_path):
    trainer = GRPOTrainer(config(rl_model_dir, tmp_path, steps=3, save_every=1, keep_checkpoints=2))
    trainer.train()
    root = tmp_path / "run" / "checkpoints"
    assert sorted(p.name for p in root.iterdir()) == ["LATEST", "step-0000002", "step-0000003"]
    assert (root / "LATEST").read_text().strip() == "step-0000003"
    assert (tmp_path / "run" / "curve.png").stat().st_size > 1000
    final = tmp_path / "run" / "final"
    settings = json.loads((final / "turngym_agent.json").read_text())
    assert settings == {"constrained": True, "system_prompt": None}


def test_the_trained_model_plays_as_an_hf_agent(rl_model_dir, tmp_path):
    import turngym
    from turngym.sdk.agents import make_agent

    summary = GRPOTrainer(
        config(rl_model_dir, tmp_path, env="turngym/FrozenLake-v0", max_turns=3)
    ).train()
    env = turngym.make("turngym/FrozenLake-v0")
    agent = make_agent(f"hf:{summary['final']}", env)
    obs, info = env.reset(seed=0)
    assert agent.act(obs, info) in info["legal_actions"]  # guided choice from the saved settings
    assert agent.last_turns[0].constrained


def test_self_play_with_rae_and_an_opponent_pool(rl_model_dir, tmp_path):
    import torch

    trainer = GRPOTrainer(
        config(
            rl_model_dir,
            tmp_path,
            env="turngym/TicTacToe-v0",
            advantage="rae",
            steps=3,
            groups=4,
            group_size=2,
            pool_size=2,
            pool_every=1,
            pool_prob=0.5,
            eval_episodes=4,
            save_every=3,
        )
    )
    summary = trainer.train()
    assert set(summary["eval_after"]) == {"success", "nonloss"}
    assert len(trainer.pool) == 2
    assert {s for s, _ in trainer.rae.baselines} == {"turngym/TicTacToe-v0"}
    state = torch.load(
        tmp_path / "run/checkpoints/step-0000003/trainer_state.pt", weights_only=False
    )
    assert len(state["pool"]) == 2 and state["rae"]["baselines"]
    # a pool game puts a frozen, non-trainable agent on one seat
    episodes = trainer.collect(3)
    frozen = [t for ep in episodes for t in ep.turns if not t.trainable]
    assert frozen and all(t.action_ids for t in frozen)
    assert sorted(ep.group for ep in episodes) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert sorted(ep.index for ep in episodes) == list(range(8))
    assert len({ep.seed for ep in episodes}) == 4  # one seed per group
    with_pool = [ep for ep in episodes if any(not t.trainable for t in ep.turns)]
    assert sorted({ep.group for ep in with_pool}) == [0, 1]  # pool_prob 0.5 of 4 groups


def test_pool_initial_puts_the_starting_weights_in_the_pool(rl_model_dir, tmp_path):
    trainer = GRPOTrainer(
        config(
            rl_model_dir,
            tmp_path,
            env="turngym/TicTacToe-v0",
            advantage="rae",
            steps=1,
            groups=2,
            group_size=1,
            pool_size=1,
            pool_every=100,
            pool_prob=1.0,
            pool_initial=True,
        )
    )
    start = {k: v.clone() for k, v in trainer.model.named_parameters()}
    assert len(trainer.pool) == 1
    assert all(trainer.pool[0][k].equal(start[k]) for k in start)
    episodes = trainer.collect(0)  # step 0 already plays the starting weights
    assert all(any(not t.trainable for t in ep.turns) for ep in episodes)
    trainer.train_step(0)
    moved = any(not p.equal(start[k]) for k, p in trainer.model.named_parameters())
    assert moved and all(trainer.pool[0][k].equal(start[k]) for k in start)  # frozen copy
    with pytest.raises(ValueError, match="pool_initial must be"):
        config(rl_model_dir, tmp_path, env="turngym/TicTacToe-v0", pool_initial=True)


def test_lora_trains_adapters_and_saves_a_merged_model(rl_model_dir, tmp_path):
    pytest.importorskip("peft")
    trainer = GRPOTrainer(config(rl_model_dir, tmp_path, lora_rank=4, save_every=1))
    trainable = [n for n, p in trainer.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n for n in trainable)
    summary = trainer.train()
    from transformers import AutoModelForCausalLM

    merged = AutoModelForCausalLM.from_pretrained(summary["final"])
    assert not any("lora" in k for k in merged.state_dict())
    resumed = GRPOTrainer(config(rl_model_dir, tmp_path, lora_rank=4, steps=3, resume=True))
    assert resumed.train()["steps"] == 3


def test_kl_to_the_reference_and_entropy_are_reported(rl_model_dir, tmp_path):
    trainer = GRPOTrainer(
        config(rl_model_dir, tmp_path, beta=0.1, epochs=2, steps=2, entropy_coef=0.01)
    )
    trainer.train()
    rows = [json.loads(ln) for ln in (tmp_path / "run/metrics.jsonl").read_text().splitlines()]
    assert any(r.get("kl", 0) > 0 for r in rows)
    # two arms: the entropy of a guided choice is in (0, log 2]
    assert all(0 < r["entropy"] <= 0.6932 for r in rows if "entropy" in r and r["sequences"])


def test_entropy_and_kl_are_not_logged_when_they_were_not_computed(rl_model_dir, tmp_path):
    """entropy_coef=0 and beta=0 skip both: a logged 0.0 would read as a measurement."""
    row = GRPOTrainer(config(rl_model_dir, tmp_path)).train_step(0)
    assert row["sequences"] and "loss" in row and "clip_fraction" in row
    assert "entropy" not in row and "kl" not in row


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("advantage", "ppo", "advantage must be one of"),
        ("scale", "huge", "scale must be"),
        ("steps", 0, "steps must be an int >= 1"),
        ("temperature", 0, "temperature must be a number > 0"),
        ("keep_fraction", 1.5, "keep_fraction"),
        ("wrappers", ["nope"], "unknown wrapper"),
        ("lr_schedule", "step", "lr_schedule"),
        ("max_turns", 0, "max_turns"),
    ],
)
def test_bad_config_values_are_clear_errors(field, value, message):
    with pytest.raises(ValueError, match=message):
        GRPOConfig(**{field: value})


def test_bad_setups_are_clear_errors(rl_model_dir, tmp_path):
    with pytest.raises(ValueError, match="unknown turngym env"):
        GRPOTrainer(config(rl_model_dir, tmp_path, env="Nope-v0"))
    with pytest.raises(ValueError, match="for games"):
        GRPOTrainer(config(rl_model_dir, tmp_path, advantage="rae"))
    with pytest.raises(ValueError, match="wrapper 'sliding_window:size=2'"):
        GRPOTrainer(config(rl_model_dir, tmp_path, wrappers=["sliding_window:size=2"]))
    with pytest.raises(ValueError, match="'tiny' or a directory"):
        GRPOTrainer(config(tmp_path / "missing", tmp_path))


def test_lr_schedules(rl_model_dir, tmp_path):
    trainer = GRPOTrainer(
        config(rl_model_dir, tmp_path, steps=10, lr_schedule="linear", warmup_steps=1)
    )
    assert trainer.lr_at(0) == pytest.approx(5e-4)
    assert trainer.lr_at(1) == pytest.approx(1e-3)
    assert trainer.lr_at(9) < 2e-4


def test_evaluation_follows_the_configured_mode_and_opponent(rl_model_dir, tmp_path):
    """Changing eval_greedy / eval_opponent between evaluations takes effect."""
    trainer = GRPOTrainer(
        config(rl_model_dir, tmp_path, env="turngym/TicTacToe-v0", advantage="rae")
    )
    results = {}
    for opponent in ("random", "expert"):
        for greedy in (False, True):
            trainer.config.eval_opponent, trainer.config.eval_greedy = opponent, greedy
            results[opponent, greedy] = trainer.evaluate(40)
    # the minimax expert never loses, so nothing beats it; a random player can be beaten
    assert results["expert", False]["success"] == results["expert", True]["success"] == 0
    assert results["random", False] != results["expert", False]
    assert results["random", False] != results["random", True]


@pytest.mark.parametrize(
    "advantage", ["grpo", "reinforce", "gigpo", "turn_level", "rae", "per_agent_norm"]
)
def test_one_self_play_step_updates_with_every_estimator(rl_model_dir, tmp_path, advantage):
    """Zero-sum games: advantages follow the acting seat's result, so a step trains.

    Summing every seat's reward gives 0 in each TicTacToe episode; an estimator built on
    that sum drops every group and the weights never move.
    """
    import torch

    trainer = GRPOTrainer(
        config(
            rl_model_dir,
            tmp_path,
            env="turngym/TicTacToe-v0",
            advantage=advantage,
            steps=1,
            groups=4,
            group_size=4,
            eval_episodes=1,
        )
    )
    episodes = trainer.collect(0)
    advantages = trainer.advantages(episodes)
    checked = 0
    for ep, row in zip(episodes, advantages, strict=True):
        group = [e for e in episodes if e.group == ep.group]
        for seat, ret in ep.returns.items():
            mine = [a for t, a in zip(ep.turns, row, strict=True) if t.agent == seat]
            outcomes = {e.returns[seat] for e in group}
            if ret == 0 or len(outcomes) < 2:
                continue  # a draw, or a seat whose result never varies in its group
            mean = sum(mine) / len(mine)
            assert (mean > 0) == (ret > 0), (advantage, seat, ret, mine)
            checked += 1
    assert checked >= 4, "too few decided games to check the signs"
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.train()
    after = list(trainer.model.parameters())
    moved = [not torch.equal(a, b.detach()) for a, b in zip(before, after, strict=True)]
    assert any(moved), f"advantage={advantage}: one self-play step left every weight as it was"


def test_keep_fraction_and_scale_that_do_not_apply_are_config_errors(rl_model_dir, tmp_path):
    for advantage in ("rae", "per_agent_norm"):
        with pytest.raises(ValueError, match="keep_fraction"):
            config(rl_model_dir, tmp_path, advantage=advantage, keep_fraction=0.5)
    for advantage in ("reinforce", "turn_level", "rae", "per_agent_norm"):
        with pytest.raises(ValueError, match="scale="):
            config(rl_model_dir, tmp_path, advantage=advantage, scale="none")
    config(rl_model_dir, tmp_path, advantage="gigpo", scale="none", keep_fraction=0.5)


def test_old_and_reference_log_probs_are_taken_without_dropout(tmp_path):
    """GPT-2 has dropout 0.1: the passes that fix the ratio's denominator and the KL
    reference must give the same numbers every time, so they run in eval mode."""
    import torch

    from turngym.sdk.models import build_tiny_model

    model_dir = build_tiny_model(tmp_path / "gpt2", arch="gpt2", hidden=32, layers=2, heads=2)
    trainer = GRPOTrainer(
        config(model_dir, tmp_path, minibatches=2, beta=0.1, lora_rank=4, group_size=4)
    )
    episodes = trainer.collect(0)
    seqs = trainer.sequences(episodes, trainer.advantages(episodes))
    assert seqs
    original = trainer._old_logprobs
    seen: list[bool] = []

    def twice(seqs_, model):
        seen.append(model.training)
        first, second = original(seqs_, model), original(seqs_, model)
        for a, b in zip(first, second, strict=True):
            assert torch.equal(a, b), "two passes over the same tokens disagree (dropout)"
        return first

    trainer._old_logprobs = twice
    trainer.update(seqs, 0)
    assert seen == [False, False]  # the old log-probs, then the (adapter-free) reference
    assert trainer.model.training is False


def test_dr_grpo_divides_by_a_constant_not_by_the_batchs_longest_answer(rl_model_dir, tmp_path):
    """Dr. GRPO's divisor is the generation budget: a long zero-advantage answer in the
    batch leaves the loss of the others as it was."""
    import dataclasses

    trainers = [
        GRPOTrainer(
            config(
                rl_model_dir,
                tmp_path / name,
                aggregation="dr_grpo",
                constrained=False,
                max_new_tokens=16,
            )
        )
        for name in ("short", "long")
    ]
    episodes = trainers[0].collect(0)
    seqs = trainers[0].sequences(episodes, [[1.0] * ep.length for ep in episodes])
    learner, other = seqs[0], seqs[1]
    quiet = dataclasses.replace(other, advantages=[0.0] * len(other.advantages))
    longer = dataclasses.replace(
        quiet,
        input_ids=quiet.input_ids * 3,
        loss_mask=quiet.loss_mask * 3,
        old_logprobs=quiet.old_logprobs * 3,
        advantages=quiet.advantages * 3,
    )
    assert sum(longer.loss_mask) > sum(learner.loss_mask)
    short_loss = trainers[0].update([learner, quiet], 0)["loss"]
    long_loss = trainers[1].update([learner, longer], 0)["loss"]
    assert short_loss != 0
    assert long_loss == pytest.approx(short_loss, rel=1e-5)
    # the constant: a token sum of -A per token over 2 sequences x 16 budgeted tokens
    assert short_loss == pytest.approx(-sum(learner.loss_mask) / (2 * 16), rel=1e-5)


def test_a_horizon_curriculum_follows_the_trainer_step_and_resumes(
    rl_model_dir, tmp_path, monkeypatch
):
    """``wrappers=["horizon_curriculum:..."]``: every collection (training and held-out
    evaluation) plays at the schedule's horizon for the trainer's step, and a resumed run
    picks the schedule up at its checkpoint's step."""
    from turngym.sdk import rollout

    schedule = {0: 1, 1: 2, 2: 2, 3: 3, 4: 3}
    spec = "horizon_curriculum:schedule=[(0, 1), (1, 2), (3, 3)]"
    seen: list[tuple[int, set[int]]] = []
    trainers: list[GRPOTrainer] = []
    original = rollout.Collector.collect

    def collect(self, *args, **kwargs):
        episodes = original(self, *args, **kwargs)
        horizons = {t.info["horizon"] for ep in episodes for t in ep.turns}
        seen.append((trainers[-1].step, horizons))
        return episodes

    monkeypatch.setattr(rollout.Collector, "collect", collect)
    common = dict(
        env="turngym/FrozenLake-v0",
        wrappers=[spec],
        groups=2,
        group_size=2,
        eval_every=1,
        eval_episodes=2,
        save_every=1,
    )
    trainers.append(GRPOTrainer(config(rl_model_dir, tmp_path, **common, steps=2)))
    trainers[-1].train()
    trainers.append(GRPOTrainer(config(rl_model_dir, tmp_path, **common, steps=4, resume=True)))
    trainers[-1].train()
    assert {step for step, _ in seen} == {0, 1, 2, 3, 4}
    for step, horizons in seen:
        assert horizons == {schedule[step]}, (step, horizons)


@pytest.mark.parametrize(
    "spec, twin",
    [
        ("chat_history:max_turns=2", "ChatHistoryGame"),
        ("sliding_window:keep_last=1", "SlidingWindowGame"),
        ("summarize:budget_tokens=200", "SummarizeContextGame"),
        ("markovian_chunks:chunk_tokens=16;carry_tokens=4;max_chunks=2", "MarkovianChunksGame"),
    ],
)
def test_a_self_play_step_through_each_game_twin_updates_the_weights(
    rl_model_dir, tmp_path, spec, twin
):
    """Issue 26, item 6: ``wrappers`` on a game put their game twin around every game."""
    import torch

    trainer = GRPOTrainer(
        config(
            rl_model_dir,
            tmp_path,
            env="turngym/TicTacToe-v0",
            wrappers=[spec],
            steps=1,
            groups=2,
            group_size=4,
            max_new_tokens=8,
        )
    )
    before = [p.detach().clone() for p in trainer.model.parameters()]
    row = trainer.train_step(0)
    games = trainer._collectors["train"].games
    assert {type(g).__name__ for g in games} == {twin}
    assert row["sequences"] > 0
    after = list(trainer.model.parameters())
    assert any(not torch.equal(a, b.detach()) for a, b in zip(before, after, strict=True))
    trainer.close()


def test_a_wrapper_without_a_game_twin_is_a_clear_error(rl_model_dir, tmp_path):
    with pytest.raises(ValueError, match="'gated_reward' has no game twin; games take"):
        GRPOTrainer(config(rl_model_dir, tmp_path, env="TicTacToe-v0", wrappers=["gated_reward"]))
    with pytest.raises(ValueError, match="wrapper 'chat_history:turns=2'"):
        GRPOTrainer(
            config(rl_model_dir, tmp_path, env="TicTacToe-v0", wrappers=["chat_history:turns=2"])
        )

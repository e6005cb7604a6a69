"""ArCHerTrainer: exact utterance-level Q/V, resume, config errors, CLI, learning."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import pytest

from turngym.cli import main
from turngym.sdk.trainers.archer import ArCHerConfig, ArCHerTrainer
from turngym.spaces import Unicode
from turngym.testing.toy import GuessNumber


class Chain(gym.Env):
    """A 3-state chain in text: rooms 0, 1, 2; "up" moves on, "down" moves back.

    up: 0 -> 1 and 1 -> 2 (reward 0), 2 -> the end (reward 2, terminal). down: back one
    room (room 0 stays) with reward -0.5. Episodes start in any room (by the seed), so
    every state is visited. Both actions are one token of the tiny tokenizer.
    """

    observation_space = Unicode(64)
    action_space = Unicode(16)
    ACTIONS: ClassVar[list[str]] = ["down", "up"]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.room = int(self.np_random.integers(3))
        return self.obs(self.room), {"legal_actions": self.ACTIONS}

    @staticmethod
    def obs(room: int) -> str:
        return f"You are in room {room}."

    def step(self, action: str):
        if action == "up" and self.room == 2:
            return "You are out.", 2.0, True, False, {"success": True}
        reward = -0.5 if action == "down" else 0.0
        self.room = self.room + 1 if action == "up" else max(0, self.room - 1)
        info = {"legal_actions": self.ACTIONS, "success": False}
        return self.obs(self.room), reward, False, False, info


def chain_values(gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Q [3, 2] (down, up) and V [3] of the uniform policy on Chain, by value iteration."""
    q = np.zeros((3, 2))
    for _ in range(2000):
        v = q.mean(1)
        q = np.array(
            [
                [-0.5 + gamma * v[max(0, s - 1)], (gamma * v[s + 1] if s < 2 else 2.0)]
                for s in range(3)
            ]
        )
    return q, q.mean(1)


@pytest.fixture(scope="module")
def uniform_model_dir(rl_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model with a zero (untied) output head: every guided choice is uniform."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(rl_model_dir)
    weight = model.get_output_embeddings().weight
    model.config.tie_word_embeddings = False
    model.lm_head = torch.nn.Linear(weight.shape[1], weight.shape[0], bias=False)
    torch.nn.init.zeros_(model.lm_head.weight)
    path = tmp_path_factory.mktemp("uniform")
    model.save_pretrained(path)
    AutoTokenizer.from_pretrained(rl_model_dir).save_pretrained(path)
    return path


def config(model_dir: Path, tmp_path: Path, **overrides: Any) -> ArCHerConfig:
    values: dict[str, Any] = dict(
        env="Chain",
        model=str(model_dir),
        device="cpu",  # exact float32 facts; test_gpu.py covers the GPU path
        output_dir=str(tmp_path / "run"),
        steps=2,
        episodes_per_step=4,
        max_turns=4,
        max_new_tokens=4,
        batch_size=8,
        critic_steps=3,
        actor_steps=2,
        warmup_steps=1,
        eval_every=0,
        eval_episodes=4,
        save_every=0,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    values.update(overrides)
    return ArCHerConfig(**values)


@pytest.mark.slow  # 400 critic updates each: make test runs them
@pytest.mark.parametrize(
    ("critic", "v_action", "tolerance"),
    [
        ("encoder", "candidates", 0.05),
        ("policy", "candidates", 0.05),
        # One sampled a' per state makes the V target noisy (Qbar(s, down) and
        # Qbar(s, up) differ by up to 2.8 here), so the values jitter around Q^pi, V^pi;
        # measured 0.05 (Q) and 0.09 (V) off after 400 updates.
        ("encoder", "sample", 0.15),
    ],
)
def test_critic_learns_the_exact_q_and_v(uniform_model_dir, tmp_path, critic, v_action, tolerance):
    """With the actor frozen (all warm-up), twin Q and V reach Q^pi, V^pi of the uniform policy."""
    gamma = 0.95
    cfg = config(
        uniform_model_dir,
        tmp_path,
        critic=critic,
        v_action=v_action,
        gamma=gamma,
        steps=4,
        warmup_steps=4,
        episodes_per_step=8,
        max_turns=6,
        batch_size=32,
        critic_steps=100,
        critic_lr=3e-3,
    )
    trainer = ArCHerTrainer(cfg, env_fn=Chain)
    trainer.train()
    want_q, want_v = chain_values(gamma)
    prompts = [trainer.prompt_ids(Chain.obs(s)) for s in range(3)]
    import torch

    with torch.no_grad():
        for logp in trainer.candidate_logprobs(prompts, [Chain.ACTIONS] * 3):
            assert np.allclose(logp.exp().numpy(), 0.5)  # the data came from pi = uniform
        rows = [s for s in range(3) for _ in Chain.ACTIONS]
        out = trainer.values(
            trainer.critic,
            [prompts[s] for s in rows],
            [trainer.action_ids(a) for _ in range(3) for a in Chain.ACTIONS],
        )
    got_q = out["q"].numpy().reshape(3, 2, 2)  # [state, action, head]
    got_v = out["v"].numpy().reshape(3, 2, 2)[:, 0]  # [state, head]
    q_err = np.abs(got_q - want_q[:, :, None]).max()
    v_err = np.abs(got_v - want_v[:, None]).max()
    print(f"{critic}/{v_action}: max |Q - Q^pi| = {q_err:.4f}, max |V - V^pi| = {v_err:.4f}")
    assert q_err < tolerance, (got_q, want_q)
    assert v_err < tolerance, (got_v, want_v)
    assert np.ptp(want_q) > 3  # the values are far apart: a constant cannot pass


def test_resume_continues_exactly(rl_model_dir, tmp_path):
    """2 iterations, then resuming for 2 more, logs the very losses of 4 uninterrupted ones."""

    def rows(run: str) -> list[dict[str, Any]]:
        with open(tmp_path / run / "metrics.jsonl", encoding="utf-8") as f:
            return [r for r in map(json.loads, f) if "q_loss" in r]

    keys = ("q_loss", "v_loss", "q", "v", "actor_loss", "advantage", "buffer", "success")
    extra = dict(baseline=True, warmup_steps=1)
    whole = config(rl_model_dir, tmp_path, output_dir=str(tmp_path / "a"), steps=4, **extra)
    ArCHerTrainer(whole, env_fn=Chain).train()
    half = config(rl_model_dir, tmp_path, output_dir=str(tmp_path / "b"), steps=2, **extra)
    ArCHerTrainer(half, env_fn=Chain).train()
    resumed = ArCHerTrainer(dataclasses.replace(half, steps=4, resume=True), env_fn=Chain)
    resumed.train()
    assert resumed.step == 4
    a, b = rows("a"), rows("b")
    assert [r["step"] for r in a] == [r["step"] for r in b] == [1, 2, 3, 4]
    assert all("actor_loss" in r and "baseline_loss" in r for r in a[1:])
    for ra, rb in zip(a, b, strict=True):
        assert {k: ra.get(k) for k in keys} == {k: rb.get(k) for k in keys}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"critic": "big"}, "critic must be one of encoder, policy"),
        ({"v_action": "mean"}, "v_action must be one of sample, candidates"),
        ({"v_action": "candidates", "constrained": False}, "set constrained=True"),
        ({"gamma": 1.5}, "gamma must be in [0, 1]"),
        ({"tau": 0}, "tau must be in (0, 1]"),
        ({"temperature": 0}, "temperature must be a number > 0"),
        ({"batch_size": 0}, "batch_size must be an int >= 1"),
        ({"critic_steps": -1}, "critic_steps must be an int >= 0"),
        ({"actor_lr": -1.0}, "actor_lr must be None or a number >= 0"),
        ({"warmup_steps": 1.5}, "warmup_steps must be an int >= 0"),
        ({"wrappers": ["nope"]}, "unknown wrapper"),
    ],
)
def test_bad_config_is_one_line_value_error(overrides, message):
    with pytest.raises(ValueError) as info:
        ArCHerConfig(**overrides)
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"env": "turngym/TicTacToe-v0"}, "single-agent envs"),
        ({"env": "turngym/Countdown-v0", "v_action": "candidates"}, "lists none"),
        ({"env": "Nope-v0"}, "unknown"),
    ],
)
def test_bad_env_is_one_line_value_error(rl_model_dir, tmp_path, overrides, message):
    with pytest.raises(ValueError) as info:
        ArCHerTrainer(config(rl_model_dir, tmp_path, **overrides))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_evaluations_record_episodes(rl_model_dir, tmp_path, recorded_evaluations):
    cfg = config(rl_model_dir, tmp_path, steps=1, eval_greedy=False, eval_record_episodes=3)
    ArCHerTrainer(cfg, env_fn=Chain).train()
    found = recorded_evaluations(tmp_path / "run")
    assert found == {s: [{"step": s, "mode": "sampled"}] * 3 for s in (0, 1)}
    assert json.loads((tmp_path / "run" / "config.json").read_text())["steps"] == 1


def test_cli_trains_from_flags(rl_model_dir, tmp_path, capsys):
    argv = [
        "train",
        "archer",
        "--env",
        "FrozenLake-v0",
        "--model",
        str(rl_model_dir),
        "--output-dir",
        str(tmp_path / "cli"),
        "--steps",
        "2",
        "--episodes-per-step",
        "2",
        "--max-turns",
        "3",
        "--batch-size",
        "4",
        "--critic-steps",
        "2",
        "--actor-steps",
        "1",
        "--warmup-steps",
        "1",
        "--critic",
        "policy",
        "--baseline",
        "true",
        "--eval-episodes",
        "2",
        "--eval-every",
        "0",
        "--progress",
        "false",
        "--tensorboard",
        "false",
        "--log-every",
        "0",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "held-out success:" in out
    assert (tmp_path / "cli" / "final" / "config.json").is_file()
    saved = json.loads((tmp_path / "cli" / "metrics.jsonl").read_text().splitlines()[-1])
    assert saved["step"] == 2
    assert main(["train", "archer", "--v-action", "mean"]) == 2
    assert "v_action must be one of" in capsys.readouterr().err


# A hang guard, not a time limit: under heavy load (a load average of 10-18 on 2 cores)
# this step-bounded learning run took over the default 600 s.
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_guess_number_success_rises_within_40_steps(rl_model_dir, tmp_path, measured_training):
    """The tiny model from scratch learns to bisect; greedy success on held-out seeds.

    ArCHer's ratio of 50 critic updates to 3 actor updates per iteration, with the
    token-level baseline; the action is generated (guided among 1..5), token by token.
    It reached 0.9 where it was written, but the run is chaotic: a float rounded another
    way (another CPU's kernels, another thread count) sends it down another path. On an
    AVX-512 machine, seed 0 went 0.38 -> 0.74 here and 0.82 evaluated every 10 steps; run
    seeds 0-3 (one thread, evaluated every 10) ended at 0.82 / 0.80 / 0.82 / 0.50, seed 3
    on a plateau at 0.5 from step 10. So the test asserts the rise with a margin the seeds
    that learn all clear by 0.14 or more: from under 0.5 to 0.6 or more, up by 0.2 or more.
    """
    cfg = config(
        rl_model_dir,
        tmp_path,
        env="GuessNumber",
        max_turns=None,
        steps=40,
        episodes_per_step=16,
        batch_size=32,
        critic_steps=50,
        actor_steps=3,
        warmup_steps=3,
        actor_lr=1e-3,
        baseline=True,
        eval_episodes=50,
    )
    trainer = ArCHerTrainer(cfg, env_fn=GuessNumber)
    before, after, _ = measured_training(trainer, "GuessNumber")
    assert before < 0.5
    # within the 40 steps; CPU time is printed, never asserted
    assert after >= 0.6 and after - before >= 0.2, (before, after)


def test_a_horizon_curriculum_follows_the_trainer_step(rl_model_dir, tmp_path):
    """The trainer tells its envs' wrappers the step before each collection."""
    spec = "horizon_curriculum:schedule=[(0, 1), (3, 2)]"
    trainer = ArCHerTrainer(config(rl_model_dir, tmp_path, wrappers=[spec]), env_fn=Chain)
    for step, horizon in ((0, 1), (3, 2), (1, 1)):
        episodes = trainer.collect(step)
        assert {t.info["horizon"] for ep in episodes for t in ep.turns} == {horizon}
    trainer.step = 5
    trainer.evaluate()
    evals = [c for key, c in trainer._collectors.items() if key.startswith("eval")]
    assert evals and all(env.horizon == 2 for c in evals for env in c.envs)
    trainer.close()

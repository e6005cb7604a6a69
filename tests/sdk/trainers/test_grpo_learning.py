"""GRPO learns from scratch on CPU: success before vs after, on held-out seeds."""

from __future__ import annotations

import pytest

from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer


@pytest.mark.slow  # a learning run: make test runs it, make check leaves it out
def test_bandit_success_reaches_0_9_within_60_steps(rl_model_dir, tmp_path):
    """Dr. GRPO (scale="none"): the group std would erase the arms' reward sizes.

    With one risky pull in a group, std-normalised advantages are +-2.65 whether it paid
    1 or 0 against the safe 0.2, so the expected gradient toward the better arm is zero;
    centred rewards keep the 0.5 vs 0.2 difference. The greedy policy is evaluated: the
    arms' names share first letters across pairs (Lottery is risky, Lighthouse safe), so
    the last few percent of probability mass take the tiny model long to move.
    """
    config = GRPOConfig(
        env="turngym/Bandit-v0",
        model=str(rl_model_dir),
        output_dir=str(tmp_path / "run"),
        steps=60,
        groups=16,
        group_size=8,
        scale="none",
        lr=4e-3,
        lr_schedule="linear",
        minibatches=2,
        eval_every=0,
        eval_episodes=100,
        eval_greedy=True,
        save_every=0,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    summary = GRPOTrainer(config).train()
    before, after = summary["eval_before"]["success"], summary["eval_after"]["success"]
    print(f"Bandit-v0 held-out success {before:.2f} -> {after:.2f} in {summary['seconds']:.0f}s")
    assert before < 0.5
    assert after >= 0.9  # within the 60 steps; its time is printed, never asserted


# A hang guard, not a time limit: under heavy load (a load average of 10-18 on 2 cores)
# this step-bounded learning run took over the default 600 s.
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_frozenlake_success_reaches_0_9_within_40_steps(rl_model_dir, tmp_path):
    config = GRPOConfig(
        env="turngym/FrozenLake-v0",
        model=str(rl_model_dir),
        output_dir=str(tmp_path / "run"),
        steps=40,
        max_turns=20,
        lr=3e-3,
        lr_schedule="linear",
        minibatches=4,
        eval_every=0,
        eval_episodes=64,
        save_every=0,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    summary = GRPOTrainer(config).train()
    before, after = summary["eval_before"]["success"], summary["eval_after"]["success"]
    print(
        f"FrozenLake-v0 held-out success {before:.2f} -> {after:.2f} in {summary['seconds']:.0f}s"
    )
    assert before <= 0.1
    assert after >= 0.9  # within the 40 steps; its time is printed, never asserted

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401
from turngym.agents import RandomAgent, make_expert
from turngym.envs.text.bandit import ARM_PAIRS, BanditEnv
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env


def test_conformance_multi_pull():
    check_text_env("turngym/Bandit-v0", n_fuzz=1000, make_kwargs={"pulls": 5})


def test_arms_payouts_and_success():
    env = BanditEnv(pulls=200)
    env.reset(seed=0)
    risky, safe = env.arms[env.risky_arm], env.arms[1 - env.risky_arm]
    assert (safe, risky) in ARM_PAIRS
    assert env.best_arm == risky  # 0.5 * 1.0 > 0.2
    safe_rewards = [env.step(safe.upper())[1] for _ in range(100)]
    risky_rewards = [env.step(f"pull {risky}")[1] for _ in range(100)]
    assert set(safe_rewards) == {0.2}
    assert set(risky_rewards) == {0.0, 1.0} and 0.35 < np.mean(risky_rewards) < 0.65


def test_success_is_choosing_the_better_arm_not_luck():
    env = BanditEnv(risky_prob=0.1)  # now the safe arm is better in expectation
    env.reset(seed=4)
    safe = env.arms[1 - env.risky_arm]
    assert env.best_arm == safe
    *_, info = env.step(env.arms[env.risky_arm])
    assert info["success"] is False


def test_invalid_arm():
    env = BanditEnv()
    obs, info = env.reset(seed=0)
    obs, _, terminated, _, info = env.step("the third arm")
    assert info["invalid_action"] and not terminated and "no arm called" in obs


def test_expert_beats_random_on_200_seeds():
    expert = evaluate("turngym/Bandit-v0", make_expert, episodes=200)
    rand = evaluate("turngym/Bandit-v0", lambda env: RandomAgent(seed=0), episodes=200)
    assert expert.success_rate == 1.0
    assert 0.35 < rand.success_rate < 0.65
    # expected: expert 0.5, random 0.35; the stated margin leaves room for sampling noise
    assert expert.mean_return - rand.mean_return >= 0.08


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pulls": 0}, "pulls must be >= 1"),
        ({"risky_prob": 1.5}, r"risky_prob must be in \[0, 1\]"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make("turngym/Bandit-v0", **kwargs)

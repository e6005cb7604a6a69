"""WebShop-v0 specifics in Chromium (conformance, oracle and random runs: test_site_envs.py)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests import system_deps
from turngym.agents import make_expert
from turngym.envs.web.shop import WebShopEnv

pytestmark = [pytest.mark.browser, system_deps.chromium()]

EASY_SEED_0 = (
    "i am looking for bpa free, dishwasher safe and straw lid water bottle with color: white, "
    "capacity: 18 oz, and price lower than 30.00 dollars"
)
"""The instruction of seed 0 before difficulties existed (the easy shop keeps it)."""


def test_reward_is_partial_for_a_product_missing_the_options():
    env = gym.make("turngym/WebShop-v0")
    try:
        obs, info = env.reset(seed=3)
        plan = env.unwrapped.task.oracle
        oracle = make_expert(env)
        # play the plan but skip the option picks: a partial WebShop reward, no success
        for step in plan:
            if step.action == "select":
                oracle.act(obs, info)  # advance the oracle past the pick without playing it
                continue
            obs, reward, terminated, _, info = env.step(oracle.act(obs, info))
        assert terminated and not info["success"]
        assert 0.0 < reward < 1.0
    finally:
        env.close()


def test_bad_difficulty_raises_before_a_browser_starts():
    with pytest.raises(
        ValueError, match=r"^difficulty must be one of \('hard', 'easy'\), got 'x'$"
    ):
        WebShopEnv(difficulty="x")


@pytest.mark.parametrize("difficulty", [None, "easy"])
def test_the_oracle_solves_both_difficulties(difficulty):
    """The default is hard; easy draws the instructions it drew before difficulties."""
    kwargs = {} if difficulty is None else {"difficulty": difficulty}
    env = gym.make("turngym/WebShop-v0", **kwargs)
    try:
        assert env.unwrapped.difficulty == (difficulty or "hard")
        for seed in (0, 1):
            obs, info = env.reset(seed=seed)
            if difficulty == "easy" and seed == 0:
                assert info["instruction"] == EASY_SEED_0
            if difficulty is None:
                assert "price lower than" not in info["instruction"]  # paraphrased
            oracle = make_expert(env)
            done = False
            while not done:
                obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
                done = terminated or truncated
            assert info["success"] and reward == 1.0, info
    finally:
        env.close()

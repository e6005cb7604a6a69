"""WebShop-v0 specifics in Chromium (conformance, oracle and random runs: test_site_envs.py)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests import system_deps
from turngym.agents import make_expert

pytestmark = [pytest.mark.browser, system_deps.chromium()]


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

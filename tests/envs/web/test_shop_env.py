"""WebShop-v0 end to end in Chromium: conformance, the oracle on 20 seeds, a random baseline."""

from __future__ import annotations

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests import system_deps
from tests.envs.web.random_web_agent import RandomWebAgent
from turngym.agents import make_expert
from turngym.testing import check_text_env

pytestmark = [pytest.mark.browser, system_deps.chromium()]


def _play(env: gym.Env, agent, seed: int) -> dict:
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        done = terminated or truncated
    return info


def test_conformance():
    check_text_env("turngym/WebShop-v0", n_fuzz=1000, reset_episodes=5, expert_episodes=3)


def test_oracle_buys_the_right_product_on_20_seeds():
    env = gym.make("turngym/WebShop-v0")
    oracle = make_expert(env)
    try:
        for seed in range(20):
            info = _play(env, oracle, seed)
            assert info["success"] and info["score"] == 1.0, (seed, info)
            assert not info["invalid_action"] and info["url"].startswith("/order/")
    finally:
        env.close()


def test_random_clicking_almost_never_buys_the_right_thing():
    env = gym.make("turngym/WebShop-v0", max_turns=15)
    agent = RandomWebAgent(seed=0)
    try:
        results = [_play(env, agent, seed) for seed in range(20)]
    finally:
        env.close()
    successes = sum(bool(r["success"]) for r in results)
    assert successes <= 1, successes
    scores = [r.get("score", 0.0) for r in results]
    assert sum(scores) / len(scores) < 0.2, scores


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

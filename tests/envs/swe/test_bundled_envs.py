"""SWE-v0 and SWE-Lite-v0 on the bundled tasks: conformance, every task solvable, none free."""

from __future__ import annotations

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests import system_deps
from turngym.agents.experts.swe import SWEOracle
from turngym.envs.swe.tasks import bundled_tasks, lite_tasks
from turngym.testing import check_text_env

pytestmark = [pytest.mark.sandbox, system_deps.bubblewrap()]

TASKS = [t.instance_id for t in bundled_tasks()]


@pytest.mark.parametrize("env_id", ["turngym/SWE-v0", "turngym/SWE-Lite-v0"])
def test_conformance(env_id):
    check_text_env(env_id, n_fuzz=1000, reset_episodes=3, expert_episodes=2)


@pytest.fixture(scope="module")
def env():
    made = gym.make("turngym/SWE-v0")
    yield made
    made.close()


@pytest.mark.parametrize("task", TASKS)
def test_the_oracle_resolves_every_task_and_an_empty_submission_gets_nothing(env, task):
    obs, info = env.reset(options={"task": task})
    oracle = SWEOracle(env)
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
        done = terminated or truncated
    assert terminated and reward == 1.0 and info["resolved"], (obs, info.get("tests"))
    assert set(info["reward_parts"].values()) == {1.0}
    env.reset(options={"task": task})
    obs, reward, terminated, truncated, info = env.step("submit()")
    assert terminated and reward == 0.0 and not info["success"]
    assert info["reward_parts"]["f2p"] == 0.0 and info["reward_parts"]["p2p"] == 1.0


def test_each_reset_draws_a_task_from_the_seed_and_lite_is_the_five_easiest():
    env = gym.make("turngym/SWE-v0")
    try:
        drawn = {env.reset(seed=s)[1]["task"] for s in range(12)}
        assert len(drawn) > 3 and env.reset(seed=5)[1]["task"] == env.reset(seed=5)[1]["task"]
    finally:
        env.close()
    lite = lite_tasks()
    assert len(lite) == 5
    hardest_lite = max(t.difficulty or 0 for t in lite)
    others = [t for t in bundled_tasks() if t not in lite]
    assert all((t.difficulty or 0) >= hardest_lite for t in others)

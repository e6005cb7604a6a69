"""Every desktop task template: its oracle solves 10 seeds, random play does not, conformance."""

from __future__ import annotations

import os

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests import system_deps
from turngym.agents import RandomAgent
from turngym.agents.experts.gui import SOLVERS, GUIOracle
from turngym.envs.gui.tasks import TASKS
from turngym.testing import check_text_env

pytestmark = [pytest.mark.x11, system_deps.x11()]

SEEDS = range(int(os.environ.get("TURNGYM_GUI_ORACLE_SEEDS", "10")))


def test_every_template_has_an_oracle():
    assert sorted(SOLVERS) == sorted(TASKS)
    assert len(TASKS) >= 15


@pytest.fixture(scope="module")
def envs():
    made: dict[str, gym.Env] = {}
    yield made
    for env in made.values():
        env.close()


def _env(envs, task):
    if task not in envs:
        envs[task] = gym.make(f"turngym/gui.{task}-v0")
    return envs[task]


def play(env, agent, seed):
    obs, info = env.reset(seed=seed)
    agent.reset(seed)
    total, invalid = 0.0, 0
    for _ in range(60):
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        total += reward
        invalid += info["invalid_action"]
        if terminated or truncated:
            break
    return total, info["success"], invalid, obs


@pytest.mark.parametrize("task", sorted(TASKS))
def test_oracle_solves_every_seed(envs, task):
    env = _env(envs, task)
    oracle = GUIOracle(env)
    for seed in SEEDS:
        total, success, invalid, obs = play(env, oracle, seed)
        assert success and total == 1.0 and invalid == 0, (
            task,
            seed,
            env.unwrapped.params,
            obs["text"][-1500:],
        )


@pytest.mark.parametrize("task", sorted(TASKS))
def test_random_play_rarely_solves(envs, task):
    env = _env(envs, task)
    agent = RandomAgent(seed=0)
    wins = sum(play(env, agent, 100 + seed)[1] for seed in range(5))
    assert wins == 0


@pytest.mark.parametrize("task", sorted(TASKS))
def test_conformance(task):
    # Reset safety compares a reused env with fresh ones (a new X server each): 3 will do.
    # The terminal templates restart xterm at every reset; longer fuzzed episodes (more
    # turns and invalid actions before truncation) keep their 1,000 actions to ~10 resets.
    kwargs = {"max_turns": 200, "max_invalid_actions": 100} if task.startswith("terminal") else {}
    check_text_env(f"turngym/gui.{task}-v0", reset_episodes=3, make_kwargs=kwargs)

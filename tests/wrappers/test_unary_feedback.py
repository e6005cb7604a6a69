"""UnaryFeedback: wrong final answers are met with "Let's try again." and another attempt."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import gymnasium as gym
import pytest

import turngym  # noqa: F401
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.unary_feedback import AttemptCounter, UnaryFeedback


def _countdown_wrong(env: gym.Env, info: dict) -> str:
    numbers_text, target = info["state_key"].split("->")
    numbers = numbers_text.split(",")
    for ops in itertools.product("+-*", repeat=3):
        expr = numbers[0] + "".join(f" {o} {n}" for o, n in zip(ops, numbers[1:], strict=True))
        if eval(expr) != int(target):
            return expr
    raise AssertionError("every expression hits the target")


def _bandit_wrong(env: gym.Env, info: dict) -> str:
    base = env.unwrapped
    return next(a for a in base.arms if a != base.best_arm)


# env id, make kwargs, a wrong final answer (may take turns: called until the attempt ends)
SINGLE_ANSWER: dict[str, tuple[dict, Callable[[gym.Env, dict], str]]] = {
    "turngym/Countdown-v0": ({}, _countdown_wrong),
    "turngym/TryAgainQA-v0": ({"max_attempts": 1}, lambda env, info: "zzz"),
    "turngym/SearchQA-v0": ({}, lambda env, info: "answer[Nobody Atall]"),
    "turngym/Bandit-v0": ({}, _bandit_wrong),
    "turngym/Blackjack-v0": ({}, lambda env, info: "hit"),  # hit until bust
}
DETERMINISTIC_EXPERT = ["turngym/Countdown-v0", "turngym/TryAgainQA-v0", "turngym/SearchQA-v0"]


def fail_attempt(env: gym.Env, info: dict, wrong: Callable) -> tuple:
    while True:
        out = env.step(wrong(env, info))
        _, _, terminated, truncated, info = out
        if terminated or truncated or info.get("failed_reward") is not None:
            return out


@pytest.mark.parametrize("env_id", SINGLE_ANSWER)
def test_wrong_answers_are_retried_until_max_attempts(env_id):
    kwargs, wrong = SINGLE_ANSWER[env_id]
    env = UnaryFeedback(gym.make(env_id, **kwargs), max_attempts=3)
    first, info = env.reset(seed=1)
    assert info["attempt"] == 1
    for attempt in (2, 3):
        obs, reward, terminated, truncated, info = fail_attempt(env, info, wrong)
        assert not (terminated or truncated)
        assert obs == f"Let's try again.\n\n{first}"
        assert reward == 0.0 and info["attempt"] == attempt and info["success"] is False
        assert info["invalid_action"] is False and "failed_reward" in info
        assert "answer" not in info  # the env's closing info (it may hold the answer) is withheld
    obs, reward, terminated, truncated, info = fail_attempt(env, info, wrong)
    assert terminated and info["attempt"] == 3 and info["success"] is False
    assert "failed_reward" not in info


@pytest.mark.parametrize("env_id", DETERMINISTIC_EXPERT)
def test_a_later_right_answer_earns_the_envs_reward(env_id):
    kwargs, wrong = SINGLE_ANSWER[env_id]
    plain = gym.make(env_id, **kwargs)
    expert = make_expert(plain, env_id)
    obs, info = plain.reset(seed=2)
    expert.reset(seed=2)
    done, solved_reward = False, 0.0
    actions = []
    while not done:
        actions.append(expert.act(obs, info))
        obs, solved_reward, terminated, truncated, info = plain.step(actions[-1])
        done = terminated or truncated
    assert info["success"]

    env = UnaryFeedback(gym.make(env_id, **kwargs), max_attempts=4, attempt_penalty=0.25)
    _, info = env.reset(seed=2)
    rewards = [fail_attempt(env, info, wrong)[1]]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
    assert terminated and info["success"] and info["attempt"] == 2
    assert rewards == [-0.25] and reward == solved_reward


def test_success_on_the_first_attempt_is_unchanged():
    env = UnaryFeedback(gym.make("turngym/Bandit-v0"))
    _, info = env.reset(seed=0)
    best = env.unwrapped.best_arm
    _, reward, terminated, _, info = env.step(best)
    assert terminated and info["success"] and info["attempt"] == 1 and "failed_reward" not in info
    plain = gym.make("turngym/Bandit-v0")
    plain.reset(seed=env._seed)
    assert reward == plain.step(best)[1]


def test_message_options_and_reset_is_clean():
    env = UnaryFeedback(gym.make("turngym/Bandit-v0"), message="Wrong.", repeat_task=False)
    env.reset(seed=0)
    obs, *_, info = env.step(_bandit_wrong(env, {}))
    assert obs == "Wrong." and info["attempt"] == 2
    _, info = env.reset(seed=0)
    assert info["attempt"] == 1 and env.attempt == 1


def test_seedless_reset_replays_the_same_task():
    env = UnaryFeedback(gym.make("turngym/Countdown-v0"))
    env.reset(seed=5)
    tasks = set()
    for _ in range(4):
        first, info = env.reset()
        tasks.add(first)
        obs, *_ = fail_attempt(env, info, _countdown_wrong)
        assert obs.endswith(first)
    assert len(tasks) > 1  # seedless resets still draw new tasks


def test_truncation_is_not_retried():
    env = UnaryFeedback(gym.make("turngym/SearchQA-v0", max_turns=2))
    env.reset(seed=0)
    env.step("search[river]")
    *_, terminated, truncated, info = env.step("search[river]")
    assert truncated and not terminated and info["attempt"] == 1


def test_multi_turn_env_restarts_the_task():
    env = UnaryFeedback(gym.make("turngym/FrozenLake-v0"), max_attempts=2)
    first, _ = env.reset(seed=0)
    env.step("right")
    obs, _, terminated, _, info = env.step("down")  # the hole at (1,1)
    assert not terminated and obs.endswith(first) and info["turn"] == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_attempts": 0},
        {"max_attempts": 2.0},
        {"attempt_penalty": -1},
        {"attempt_penalty": float("nan")},
        {"message": ""},
    ],
)
def test_bad_arguments_raise_value_error(kwargs):
    with pytest.raises(ValueError, match=r"max_attempts|attempt_penalty|message"):
        UnaryFeedback(gym.make("turngym/Bandit-v0"), **kwargs)


def test_counter_alone():
    counter = AttemptCounter(3)
    assert not counter.retry(terminated=False, truncated=False, success=False)
    assert not counter.retry(terminated=True, truncated=False, success=True)
    assert not counter.retry(terminated=False, truncated=True, success=False)
    assert counter.retry(terminated=True, truncated=False, success=False)
    assert counter.attempt == 2


@pytest.mark.parametrize("env_id", list(SINGLE_ANSWER))
def test_conformance_with_the_wrapper(env_id):
    kwargs, _ = SINGLE_ANSWER[env_id]

    def make(**extra):
        return UnaryFeedback(gym.make(env_id, **kwargs, **extra), max_attempts=3)

    check_text_env(make, n_fuzz=1000, reset_episodes=10, expert=lambda e: make_expert(e, env_id))

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
        assert obs.startswith(f"{first}\n\nAttempt 1: ")
        assert obs.endswith(f"Attempt {attempt - 1}: {env.history[-1]}\nLet's try again.")
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
    env = UnaryFeedback(
        gym.make("turngym/Bandit-v0"), message="Wrong.", repeat_task=False, history=False
    )
    first, _ = env.reset(seed=0)
    obs, *_, info = env.step(_bandit_wrong(env, {}))
    assert obs == "Wrong." and info["attempt"] == 2
    _, info = env.reset(seed=0)
    assert info["attempt"] == 1 and env.attempt == 1 and env.history == []
    env = UnaryFeedback(gym.make("turngym/Bandit-v0"), history=False)
    first, _ = env.reset(seed=0)
    obs, *_ = env.step(_bandit_wrong(env, {}))
    assert obs == f"Let's try again.\n\n{first}"  # for ChatHistory, which keeps the attempts
    env = UnaryFeedback(gym.make("turngym/Bandit-v0"), repeat_task=False)
    env.reset(seed=0)
    wrong = _bandit_wrong(env, {})
    obs, *_ = env.step(wrong)
    assert obs == f"Attempt 1: {wrong}\nLet's try again."


def test_each_retry_shows_the_question_and_every_earlier_attempt_with_its_feedback():
    # UFO's observation: the question, then every earlier attempt and its feedback.
    env = UnaryFeedback(gym.make("turngym/Bandit-v0"), max_attempts=4, message="Try again.")
    first, _ = env.reset(seed=0)
    wrong = _bandit_wrong(env, {})
    obs, *_ = env.step(wrong)
    assert obs == f"{first}\n\nAttempt 1: {wrong}\nTry again."
    obs, *_ = env.step(f"  pull {wrong} ")
    assert obs == (
        f"{first}\n\nAttempt 1: {wrong}\nTry again.\n\nAttempt 2: pull {wrong}\nTry again."
    )
    assert env.observation_space.contains(obs)


def test_a_multi_turn_attempt_is_shown_as_its_actions():
    env = UnaryFeedback(gym.make("turngym/FrozenLake-v0"), max_attempts=2)
    first, _ = env.reset(seed=0)
    env.step("right")
    obs, *_ = env.step("down")  # the hole at (1,1)
    assert obs == f"{first}\n\nAttempt 1: right; down\nLet's try again."


def test_a_long_attempt_is_cut_in_the_history():
    env = UnaryFeedback(gym.make("turngym/Bandit-v0"), max_attempt_chars=20)
    env.reset(seed=0)
    obs, *_ = env.step("x" * 500)  # not an arm: invalid, so the bandit is still waiting
    obs, *_ = env.step(_bandit_wrong(env, {}))
    assert "Attempt 1: " + "x" * 500 not in obs and env.observation_space.contains(obs)


def _win_at(env: UnaryFeedback, attempt: int, answers: list[str]) -> tuple:
    """Answer ``answers`` (wrong ones) and then the best arm at attempt ``attempt``."""
    env.reset(seed=0)
    for answer in answers[: attempt - 1]:
        out = env.step(answer)
        assert not out[2] and out[-1]["attempt"] > 1
    return env.step(env.unwrapped.best_arm)


def test_reward_decays_with_the_attempt_that_succeeds():
    plain = gym.make("turngym/Bandit-v0")
    env = UnaryFeedback(gym.make("turngym/Bandit-v0"), max_attempts=5, reward_decay=0.5)
    env.reset(seed=0)
    wrong = [_bandit_wrong(env, {})] * 2
    plain.reset(seed=env._seed)
    full = float(plain.step(env.unwrapped.best_arm)[1])
    assert full > 0
    for attempt, factor in [(1, 1.0), (2, 0.5), (3, 0.25)]:
        _, reward, terminated, _, info = _win_at(env, attempt, wrong)
        assert terminated and info["success"] and info["attempt"] == attempt
        assert reward == pytest.approx(full * factor)


def test_repeated_answers_are_penalised_at_the_end():
    env = UnaryFeedback(gym.make("turngym/Bandit-v0"), max_attempts=5, repetition_penalty=0.6)
    env.reset(seed=0)
    wrong = next(a for a in env.unwrapped.arms if a != env.unwrapped.best_arm)
    plain = gym.make("turngym/Bandit-v0")
    plain.reset(seed=env._seed)
    full = float(plain.step(env.unwrapped.best_arm)[1])
    # wrong, the same again (spelt otherwise), then right: 2 distinct answers in 3.
    env.reset(seed=0)
    _, r1, *_, info1 = env.step(wrong)
    _, r2, *_, info2 = env.step(f"  {wrong.upper()} ")
    _, r3, terminated, _, info3 = env.step(env.unwrapped.best_arm)
    assert (r1, r2) == (0.0, 0.0)  # paid at the end, on the whole episode
    assert not info1["repeated_answer"] and info2["repeated_answer"]
    assert terminated and not info3["repeated_answer"] and info3["unique_answers"] == 2
    assert r3 == pytest.approx(full - 0.6 * (1 - 2 / 3))
    # all different: no penalty
    _, reward, *_ = _win_at(env, 1, [])
    assert reward == pytest.approx(full)


def test_defaults_leave_the_reward_alone_and_are_documented():
    import inspect

    env = UnaryFeedback(gym.make("turngym/Bandit-v0"))
    env.reset(seed=0)
    wrong = _bandit_wrong(env, {})
    plain = gym.make("turngym/Bandit-v0")
    plain.reset(seed=env._seed)
    full = float(plain.step(env.unwrapped.best_arm)[1])
    env.step(wrong)
    env.step(wrong)
    _, reward, terminated, _, info = env.step(env.unwrapped.best_arm)
    assert terminated and info["attempt"] == 3 and reward == full  # no decay, no penalty
    doc = " ".join((inspect.getdoc(UnaryFeedback) or "").replace("``", "").split())
    for name, param in inspect.signature(UnaryFeedback).parameters.items():
        if param.default is not inspect.Parameter.empty:
            assert f"{name}: " in doc and f"(default {param.default!r}" in doc, name


def test_seedless_reset_replays_the_same_task():
    env = UnaryFeedback(gym.make("turngym/Countdown-v0"))
    env.reset(seed=5)
    tasks = set()
    for _ in range(4):
        first, info = env.reset()
        tasks.add(first)
        obs, *_ = fail_attempt(env, info, _countdown_wrong)
        assert obs.startswith(first)
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
    assert not terminated and obs.startswith(first) and info["turn"] == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_attempts": 0},
        {"max_attempts": 2.0},
        {"attempt_penalty": -1},
        {"attempt_penalty": float("nan")},
        {"message": ""},
        {"reward_decay": 0.0},
        {"reward_decay": 1.5},
        {"repetition_penalty": -0.1},
        {"repetition_penalty": float("inf")},
        {"max_attempt_chars": 0},
        {"history": "yes"},
    ],
)
def test_bad_arguments_raise_value_error(kwargs):
    pattern = "|".join(kwargs)
    with pytest.raises(ValueError, match=pattern):
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

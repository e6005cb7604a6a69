"""Tests of TryAgainQA-v0: conformance, unary feedback, rewards, answer checking, expert."""

from __future__ import annotations

import re
from fractions import Fraction

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401  (registers the ids)
from turngym.agents.experts.try_again_qa import TryAgainQAExpert
from turngym.envs.text.try_again_qa import (
    DEFAULT_RETRY_MESSAGE,
    TryAgainQAEnv,
    check_answer,
    last_number,
    last_word,
)
from turngym.envs.text.try_again_qa_questions import TEMPLATES, WORDS, make_question, ordinal
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/TryAgainQA-v0"


def start(template: str, seed: int = 0, **kwargs: object) -> TryAgainQAEnv:
    env = TryAgainQAEnv(**kwargs)  # type: ignore[arg-type]
    env.reset(seed=seed, options={"template": template})
    return env


def wrong(env: TryAgainQAEnv) -> str:
    """A reply that is certainly wrong for the current question."""
    q = env.question
    return str(int(q.answer) + 1) if q.kind == "number" else "zzzz"


# -- conformance and the expert --------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"max_attempts": 2, "reward": "discounted", "gamma": 0.5, "invalid_action_penalty": -1.0},
        {"templates": ["reverse", "nth_letter"], "retry_message": "Wrong, again."},
    ],
    ids=["default", "discounted-2", "word-templates"],
)
def test_conformance(kwargs: dict) -> None:
    report = check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs)
    assert report.passed, report.table()


def test_expert_solves_200_seeds_first_try() -> None:
    result = evaluate(ID, TryAgainQAExpert, episodes=200, env_kwargs={"reward": "discounted"})
    assert result.success_rate == 1.0 and result.mean_return == 1.0
    assert all(e.invalid == 0 and e.steps == 1 for e in result.episodes)


def test_every_template_appears_and_the_checker_accepts_each_canonical_answer() -> None:
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(2000):
        q = make_question(rng, tuple(TEMPLATES))
        seen.add(q.template)
        assert check_answer(q.answer, q.answer, q.kind), q
        assert check_answer(f"The answer is {q.answer}.", q.answer, q.kind), q
        if q.kind == "number":
            assert int(q.answer) >= 0 and not check_answer(q.answer + "1", q.answer, q.kind)
        else:
            assert q.answer.isalpha() and q.answer.islower()
    assert seen == set(TEMPLATES) and len(TEMPLATES) >= 6


# -- the answer checker ------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "29",
        " 29 ",
        "29 apples",
        "The answer is 29.",
        "3 * 12 = 36, 36 - 7 = 29",
        "**29**",
        "\\boxed{29}",
        "twenty-nine",
        "Twenty nine apples are left",
        "29.0",
        "Answer: 29!",
    ],
)
def test_number_answers_accepted(reply: str) -> None:
    assert check_answer(reply, "29", "number")


@pytest.mark.parametrize(
    "reply",
    ["28", "290", "2.9", "-29", "29.5", "29, no wait, 30", "twenty", "nineteen", "no idea", "x"],
)
def test_number_near_misses_rejected(reply: str) -> None:
    assert not check_answer(reply, "29", "number")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("one hundred and five", 105),
        ("two thousand three hundred and one", 2301),
        ("2,000 meters", 2000),
        ("$1,250.", 1250),
        ("12-7=5", 5),  # a minus between numbers is not a sign
        ("five six", 6),  # two numbers: the last counts
        ("zero", 0),
        ("it is 0", 0),
        ("ninety-nine", 99),
    ],
)
def test_last_number(text: str, value: int) -> None:
    assert last_number(text) == Fraction(value)


def test_last_number_none_and_last_word() -> None:
    assert last_number("none at all") is None and last_number("a hundred") is None
    assert last_word("The 3rd letter is 'A'.") == "a"
    assert last_word("42 !!") is None


@pytest.mark.parametrize("reply", ["a", "A", "'a'", "The answer is a.", "letter: A", "**a**"])
def test_letter_answers_accepted(reply: str) -> None:
    assert check_answer(reply, "a", "word")


@pytest.mark.parametrize("reply", ["b", "aa", "a, I think", "planet", "1"])
def test_letter_near_misses_rejected(reply: str) -> None:
    assert not check_answer(reply, "a", "word")


def test_reversed_word_answers() -> None:
    assert check_answer("TENALP", "tenalp", "word")
    assert check_answer("Backwards it is 'tenalp'.", "tenalp", "word")
    assert not check_answer("tenlap", "tenalp", "word")
    assert not check_answer("tenalp planet", "tenalp", "word")


# -- episodes -----------------------------------------------------------------------------


def test_first_observation_states_the_question() -> None:
    env = gym.make(ID)
    obs, info = env.reset(seed=0, options={"template": "convert"})
    assert obs == info["instruction"]
    assert obs.endswith("Question: How many feet are in 9 yards?")
    assert "5 attempts" in obs and DEFAULT_RETRY_MESSAGE in obs
    assert "legal_actions" not in info and info["attempts_left"] == 5


def test_wrong_answers_get_only_the_unary_message_until_out_of_attempts() -> None:
    env = start("boxes", max_attempts=3)
    answer = env.question.answer
    observations = []
    for _ in range(2):
        obs, reward, terminated, truncated, info = env.step(wrong(env))
        observations.append(obs)
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert "answer" not in info and info["invalid_action"] is False
    assert observations == [DEFAULT_RETRY_MESSAGE] * 2
    obs, reward, terminated, truncated, info = env.step(wrong(env))
    assert obs == "Out of attempts."
    assert (reward, terminated, truncated, info["success"]) == (0.0, True, False, False)
    assert info["answer"] == answer and info["attempts_used"] == 3
    assert env.step(answer)[4]["invalid_action"] is True  # the episode is over


@pytest.mark.parametrize(
    ("reward", "gamma", "wrong_first", "expected"),
    [
        ("success", 0.9, 0, 1.0),
        ("success", 0.9, 3, 1.0),
        ("discounted", 0.9, 0, 1.0),
        ("discounted", 0.9, 1, 0.9),
        ("discounted", 0.9, 4, 0.9**4),
        ("discounted", 0.5, 2, 0.25),
    ],
)
def test_reward_modes(reward: str, gamma: float, wrong_first: int, expected: float) -> None:
    env = start("age", reward=reward, gamma=gamma)
    for _ in range(wrong_first):
        assert env.step(wrong(env))[1] == 0.0
    obs, got, terminated, _, info = env.step(f"{env.question.answer} years")
    assert obs == "Correct!" and terminated and info["success"] is True
    assert got == pytest.approx(expected)
    assert info["attempts_used"] == wrong_first + 1


def test_invalid_replies_use_no_attempt() -> None:
    env = start("sequence", max_attempts=1, max_answer_length=50, invalid_action_penalty=-0.2)
    for reply, reason in [("   ", "the answer is empty"), ("9" * 51, "longer than 50 characters")]:
        obs, reward, terminated, truncated, info = env.step(reply)
        assert info["invalid_action"] is True and reason in info["invalid_reason"]
        assert (reward, terminated, truncated) == (-0.2, False, False)
    assert env.attempts_left == 1
    # unusual but non-empty text is an answer (a wrong one), not an invalid action
    obs, _, terminated, _, info = env.step("🤷 no clue")
    assert info["invalid_action"] is False and terminated and obs == "Out of attempts."


def test_custom_retry_message() -> None:
    env = start("reverse", retry_message="Nope. Again.")
    assert "Nope. Again." in env.instruction
    assert env.step("zzzz")[0] == "Nope. Again."


def test_judge_hook_replaces_the_checker() -> None:
    calls: list[tuple[str, str, str]] = []

    def judge(question: str, answer: str, reply: str) -> bool:
        calls.append((question, answer, reply))
        return reply == "banana"

    env = start("convert", judge=judge)
    assert env.step(env.question.answer)[0] == DEFAULT_RETRY_MESSAGE  # judge says no
    obs, reward, terminated, _, _ = env.step("banana")
    assert (obs, reward, terminated) == ("Correct!", 1.0, True)
    assert calls[0] == ("How many feet are in 9 yards?", "27", "27")


@pytest.mark.parametrize(
    ("template", "seed", "text", "answer"),
    [
        ("convert", 0, "How many feet are in 9 yards?", "27"),
    ],
)
def test_known_questions(template: str, seed: int, text: str, answer: str) -> None:
    env = start(template, seed)
    assert (env.question.text, env.question.answer) == (text, answer)


def test_templates_compute_their_answers() -> None:
    rng = np.random.default_rng(1)
    for _ in range(300):
        q = make_question(rng, tuple(TEMPLATES))
        nums = [int(n) for n in re.findall(r"\d+", q.text)]
        words = [w.strip("'") for w in q.text.split() if w.startswith("'")]
        word = words[-1].rstrip("'?.,") if words else ""
        if q.template == "boxes":
            assert int(q.answer) == nums[0] * nums[1] - nums[2] > 0
        elif q.template == "shopping":
            p, q_, m, n = nums
            assert int(q.answer) == m * p + n * q_
        elif q.template == "age":
            assert int(q.answer) == sum(nums)
        elif q.template == "sequence":
            assert int(q.answer) == 2 * nums[-1] - nums[-2] and int(q.answer) > 0
        elif q.template == "word_length":
            assert int(q.answer) == len(word) and word in WORDS
        elif q.template == "reverse":
            assert q.answer == word[::-1]
        elif q.template == "nth_letter":
            n = int("".join(c for c in q.text.split()[3] if c.isdigit()))
            assert q.text.split()[3] == ordinal(n) and q.answer == word[n - 1]
        elif q.template == "count_letter":
            letter = words[0].strip("'")
            assert int(q.answer) == word.count(letter)


def test_seeding() -> None:
    env = TryAgainQAEnv()
    first = [env.reset(seed=s)[0] for s in range(30)]
    again = [env.reset(seed=s)[0] for s in range(30)]
    assert first == again and len(set(first)) >= 28


def test_render() -> None:
    env = TryAgainQAEnv(render_mode="ansi", max_attempts=2)
    env.reset(seed=0, options={"template": "convert"})
    env.step("3")
    assert env.render() == (
        "Question: How many feet are in 9 yards?\n  attempt 1: 3\n1 of 2 attempts left"
    )
    env.step("27")
    assert env.render().endswith("Answer: 27 (solved)")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_attempts": 0}, r"max_attempts must be an int >= 1, got 0"),
        ({"max_attempts": 2.0}, r"max_attempts must be an int >= 1, got 2\.0"),
        ({"reward": "dense"}, r"reward must be 'success' or 'discounted', got 'dense'"),
        ({"gamma": 0}, r"gamma must be a number in \(0, 1\], got 0"),
        ({"gamma": 1.5}, r"gamma must be a number in \(0, 1\], got 1\.5"),
        ({"gamma": "0.9"}, r"gamma must be a number in \(0, 1\]"),
        ({"retry_message": "  "}, r"retry_message must be a non-empty string"),
        ({"templates": []}, r"templates must be a non-empty list of names from"),
        ({"templates": ["riddles"]}, r"templates must be .*got \['riddles'\]"),
        ({"templates": "boxes"}, r"templates must be a non-empty list"),
        ({"max_answer_length": 0}, r"max_answer_length must be an int >= 1"),
        ({"judge": "strict"}, r"judge must be a callable"),
    ],
)
def test_bad_kwargs(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gym.make(ID, **kwargs)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"template": "riddles"}, r"options\['template'\] must be one of"),
        ({"question": "hi"}, r"unknown reset options \['question'\]"),
    ],
)
def test_bad_reset_options(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TryAgainQAEnv().reset(options=options)

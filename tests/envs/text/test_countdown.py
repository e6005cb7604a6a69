"""Tests of Countdown-v0: conformance in both modes, the parser, the rules, the expert."""

from __future__ import annotations

from fractions import Fraction

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401  (registers the ids)
from turngym.agents.experts.countdown import CountdownExpert, solve
from turngym.core import Invalid
from turngym.envs.text.countdown import (
    MAX_VALUE,
    MIN_TARGET,
    CountdownEnv,
    generate_puzzle,
    parse_expression,
)
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/Countdown-v0"
PUZZLE = {"numbers": [25, 5, 4, 7], "target": 87}


def start(**kwargs: object) -> CountdownEnv:
    env = CountdownEnv(**kwargs)  # type: ignore[arg-type]
    env.reset(seed=0, options=PUZZLE)
    return env


# -- conformance ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"mode": "multi"},
        {"mode": "multi", "use_all": False, "num_numbers": 5},
        {"num_numbers": 3, "use_all": False, "invalid_action_penalty": -0.1},
    ],
    ids=["single", "multi", "multi-5-subset", "single-3-subset"],
)
def test_conformance(kwargs: dict) -> None:
    report = check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs)
    assert report.passed, report.table()


# -- the expert ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["single", "multi"])
def test_expert_solves_200_seeds(mode: str) -> None:
    result = evaluate(ID, CountdownExpert, episodes=200, env_kwargs={"mode": mode})
    assert result.success_rate == 1.0
    assert all(e.invalid == 0 for e in result.episodes)
    assert result.mean_return == 1.0
    expected_steps = 1 if mode == "single" else 3
    assert all(e.steps == expected_steps for e in result.episodes)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_numbers": 6},
        {"num_numbers": 6, "mode": "multi"},
        {"num_numbers": 5, "use_all": False},
        {"num_numbers": 3, "mode": "multi", "use_all": False},
    ],
)
def test_expert_solves_other_sizes(kwargs: dict) -> None:
    result = evaluate(ID, CountdownExpert, episodes=20, env_kwargs=kwargs)
    assert result.success_rate == 1.0 and all(e.invalid == 0 for e in result.episodes)


def test_solver() -> None:
    found = solve([25, 5, 4, 7], 87, use_all=True)
    assert found is not None
    assert parse_expression(found.expression).value == 87  # type: ignore[union-attr]
    assert found.steps == ("25 - 5", "20 * 4", "80 + 7")
    assert solve([1, 2, 3], 100, use_all=True) is None
    # without use_all a subset is enough; with it, 2 must be used too
    assert solve([10, 5, 2], 15, use_all=False).steps == ("10 + 5",)  # type: ignore[union-attr]
    assert solve([10, 5, 1], 15, use_all=True).steps[-1] in ("15 * 1", "15 / 1")  # type: ignore[union-attr]


# -- constructor arguments -----------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mode": "chain"}, r"mode must be 'single' or 'multi', got 'chain'"),
        ({"num_numbers": 2}, r"num_numbers must be an int in 3\.\.6, got 2"),
        ({"num_numbers": 7}, r"num_numbers must be an int in 3\.\.6, got 7"),
        ({"num_numbers": 4.0}, r"num_numbers must be an int in 3\.\.6, got 4\.0"),
        ({"num_numbers": True}, r"num_numbers must be an int in 3\.\.6, got True"),
        ({"use_all": "yes"}, r"use_all must be True or False, got 'yes'"),
        ({"max_invalid_actions": 0}, r"max_invalid_actions must be a positive int"),
    ],
)
def test_bad_kwargs(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gym.make(ID, **kwargs)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"numbers": [1], "target": 5}, r"options\['numbers'\] must be a list of 2\.\.6"),
        ({"numbers": [1, 0, 3], "target": 5}, r"options\['numbers'\] must be a list"),
        ({"numbers": [1, 2], "target": 0}, r"options\['target'\] must be a positive int"),
        ({"numbers": [1, 2]}, r"options\['target'\] must be a positive int"),
        ({"puzzle": 3}, r"unknown reset options \['puzzle'\]"),
    ],
)
def test_bad_reset_options(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CountdownEnv().reset(options=options)


# -- the parser ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "numbers"),
    [
        ("(25 - 5) * 4 + 7", 87, (25, 5, 4, 7)),
        ("25-5*4+7", 12, (25, 5, 4, 7)),  # precedence: * before -
        ("100 - 10 - 1", 89, (100, 10, 1)),  # left-associative
        ("64 / 8 / 2", 4, (64, 8, 2)),
        ("8 / (3 - 8 / 3)", 24, (8, 3, 8, 3)),  # exact fractions on the way
        ("7 / 2", Fraction(7, 2), (7, 2)),
        ("[2 + 3] × {4 − 1}", 15, (2, 3, 4, 1)),
        ("6 x 7 ÷ 3", 14, (6, 7, 3)),
        ("  ((9))  ", 9, (9,)),
        ("2 * 3 = 6", 6, (2, 3)),
        ("2 * 3 = 99", 6, (2, 3)),  # the claimed value is ignored, the expression counts
    ],
)
def test_parser_values(text: str, value: Fraction | int, numbers: tuple[int, ...]) -> None:
    expr = parse_expression(text)
    assert not isinstance(expr, Invalid)
    assert expr.value == value and expr.numbers == numbers


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "the answer is empty"),
        ("2 +", "ends too early"),
        ("(2 + 3", "a '(' is never closed"),
        ("2 + 3)", "unexpected an unmatched ')'"),
        ("2 3", "unexpected '3' where an operator belongs"),
        ("2 ** 3", "expected a number or '(' but found '*'"),
        ("-2 + 3", "a sign before a number ('-') is not allowed"),
        ("2.5 * 2", "only whole numbers are allowed"),
        ("__import__('os')", "unexpected character '_'"),
        ("()", "expected a number or '(' but found ')'"),
        ("(" * 40 + "1" + ")" * 40, "nested more than 30 deep"),
        ("1 + " * 100 + "1", "longer than 300 characters"),
    ],
)
def test_parser_rejects_malformed(text: str, reason: str) -> None:
    expr = parse_expression(text)
    assert isinstance(expr, Invalid) and reason in expr.reason


def test_parser_division_by_zero_has_no_value() -> None:
    expr = parse_expression("4 / (2 - 2)")
    assert not isinstance(expr, Invalid) and expr.value is None


# -- single mode -----------------------------------------------------------------------


def test_single_correct_expression_wins() -> None:
    env = start()
    obs, reward, terminated, truncated, info = env.step("(25-5)*4+7")
    assert obs == "(25 - 5) * 4 + 7 = 87. Correct!"
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["success"] is True and info["invalid_action"] is False


@pytest.mark.parametrize(
    ("action", "obs"),
    [
        ("25 * 4 - 5 - 7", "25 * 4 - 5 - 7 = 88, not 87."),
        ("25 / 4 + 5 + 7", "25 / 4 + 5 + 7 = 73/4, not 87."),
        ("(25 - 5) * 4", "(25 - 5) * 4 = 80, not 87."),
    ],
)
def test_single_wrong_expression_ends_with_zero(action: str, obs: str) -> None:
    env = start()
    got, reward, terminated, _, info = env.step(action)
    assert got == obs and (reward, terminated) == (0.0, True)
    assert info["success"] is False and info["invalid_action"] is False


def test_single_use_all_requires_every_number() -> None:
    env = start()
    env.reset(options={"numbers": [10, 5, 2], "target": 15})
    obs, reward, terminated, _, info = env.step("10 + 5")
    assert obs == "10 + 5 = 15, but it does not use 2."
    assert (reward, terminated, info["success"]) == (0.0, True, False)
    loose = start(use_all=False)
    loose.reset(options={"numbers": [10, 5, 2], "target": 15})
    assert loose.step("10 + 5")[1:3] == (1.0, True)


def test_generated_failure_reveals_a_solution() -> None:
    env = CountdownEnv()
    env.reset(seed=3)
    numbers = env.numbers
    obs, _, _, _, info = env.step(" + ".join(map(str, numbers)))
    assert f"One solution: {env.puzzle.solution} = {env.target}." in obs
    assert info["solution"] == env.puzzle.solution


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("25 * 4 - 13", "13 is not one of the numbers (25, 5, 4, 7)"),
        ("25 + 25 + 4 + 7", "25 is used 2 times but is available only once"),
        ("25 / (5 - 5) + 4 + 7", "the expression divides by zero"),
        ("what is 25 + 5?", "unexpected character 'w'"),
        ("   ", "the answer is empty"),
    ],
)
def test_single_invalid_allows_retry(action: str, reason: str) -> None:
    env = start(invalid_action_penalty=-0.5)
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["invalid_action"] is True and reason in info["invalid_reason"] and reason in obs
    assert (reward, terminated, truncated) == (-0.5, False, False)
    assert env.step("(25 - 5) * 4 + 7")[1] == 1.0  # the retry still counts


def test_duplicate_numbers_may_each_be_used() -> None:
    env = start()
    env.reset(options={"numbers": [5, 5, 2], "target": 50})
    assert env.step("5 * 5 * 2")[1] == 1.0


# -- multi mode ------------------------------------------------------------------------


def test_multi_steps_replace_numbers_and_win() -> None:
    env = start(mode="multi")
    obs, reward, terminated, _, info = env.step("25 - 5")
    assert obs == "25 - 5 = 20. Numbers left: 4, 7, 20. Target: 87."
    assert (reward, terminated) == (0.0, False)
    assert info["state_key"] == "4,7,20->87"
    assert info["legal_actions"] == [
        "7 + 4", "7 - 4", "7 * 4", "20 + 4", "20 - 4", "20 * 4", "20 / 4",
        "20 + 7", "20 - 7", "20 * 7",
    ]  # fmt: skip
    env.step("4 × 20")  # either order, unicode operator
    obs, reward, terminated, _, info = env.step("80 + 7 = 87")
    assert obs == "80 + 7 = 87. You made 87. Solved!"
    assert (reward, terminated, info["success"]) == (1.0, True, True)
    assert info["legal_actions"] == []


def test_multi_dead_end_fails() -> None:
    env = start(mode="multi")
    env.step("25 + 5")
    env.step("30 + 4")
    obs, reward, terminated, _, info = env.step("34 + 7")
    assert obs == "34 + 7 = 41. No moves left and 41 is not 87."
    assert (reward, terminated, info["success"]) == (0.0, True, False)


def test_multi_use_all_false_wins_on_first_hit() -> None:
    env = CountdownEnv(mode="multi", use_all=False)
    env.reset(options={"numbers": [10, 5, 2], "target": 15})
    obs, reward, terminated, _, _ = env.step("10 + 5")
    assert "Solved!" in obs and (reward, terminated) == (1.0, True)
    strict = CountdownEnv(mode="multi")
    strict.reset(options={"numbers": [10, 5, 2], "target": 15})
    assert strict.step("10 + 5")[1:3] == (0.0, False)  # 2 is still left


def test_multi_legal_actions_are_exactly_the_positive_whole_steps() -> None:
    env = CountdownEnv(mode="multi")
    _, info = env.reset(options={"numbers": [6, 3, 3], "target": 12})
    # no "3 - 3" (zero) and no "3 / 6" (not whole); + and * once, larger first
    assert info["legal_actions"] == [
        "3 + 3", "3 * 3", "3 / 3", "6 + 3", "6 - 3", "6 * 3", "6 / 3",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("5 - 25", "5 - 25 is not positive (results must be positive); try 25 - 5"),
        ("5 - 5", "5 is left only once"),
        ("25 / 4", "25 / 4 is not a whole number; only exact division is allowed"),
        ("3 + 4", "3 is not among the numbers left (4, 5, 7, 25)"),
        ("25 - 5 - 4", "a step is two numbers and one operation"),
        ("(25 - 5) * 4 + 7", "a step is two numbers and one operation"),
        ("", "the step is empty"),
        ("9" * 5000 + " + 5", "(5000 digits) is not among the numbers left (4, 5, 7, 25)"),
        ("25 * " + "1" * 4301, "(4301 digits) is not among the numbers left"),
    ],
)
def test_multi_invalid_steps(action: str, reason: str) -> None:
    env = start(mode="multi")
    obs, reward, terminated, _, info = env.step(action)
    assert info["invalid_action"] is True and reason in info["invalid_reason"]
    assert (reward, terminated) == (0.0, False) and env.pool == [4, 5, 7, 25]
    assert "Legal actions: 5 + 4, 5 - 4" in obs


def test_time_limit_does_not_cut_six_number_multi_mode() -> None:
    env = gym.make(ID, mode="multi", num_numbers=6)
    assert env.spec is not None and env.spec.max_episode_steps == 10
    result = evaluate(
        ID, CountdownExpert, episodes=3, env_kwargs={"mode": "multi", "num_numbers": 6}
    )
    assert [e.steps for e in result.episodes] == [5, 5, 5]


# -- puzzles and seeding ---------------------------------------------------------------


@pytest.mark.parametrize("num_numbers", [3, 4, 5, 6])
@pytest.mark.parametrize("use_all", [True, False])
def test_generated_puzzles_are_solvable_by_construction(num_numbers: int, use_all: bool) -> None:
    rng = np.random.default_rng(num_numbers)
    for _ in range(40):
        p = generate_puzzle(rng, num_numbers, use_all)
        assert len(p.numbers) == num_numbers and all(1 <= n <= 100 for n in p.numbers)
        assert MIN_TARGET <= p.target <= MAX_VALUE and p.target not in p.numbers
        expr = parse_expression(p.solution)
        assert not isinstance(expr, Invalid) and expr.value == p.target
        used = sorted(expr.numbers)
        if use_all:
            assert used == sorted(p.numbers)
        else:
            assert len(used) >= 2 and all(used.count(n) <= p.numbers.count(n) for n in used)


def test_seeding() -> None:
    env = gym.make(ID)
    first = [env.reset(seed=s)[0] for s in range(20)]
    again = [env.reset(seed=s)[0] for s in range(20)]
    assert first == again
    assert len(set(first)) == 20


def test_first_observation_states_the_task() -> None:
    env = gym.make(ID)
    obs, info = env.reset(options=PUZZLE)
    assert obs == info["instruction"]
    assert "25, 5, 4, 7" in obs and "make 87" in obs and "exactly once" in obs
    assert "legal_actions" not in info
    obs, info = gym.make(ID, mode="multi", use_all=False).reset(options=PUZZLE)
    assert (
        "at most once" in obs
        and "Make 87" in obs
        and "'25 - 5'" in obs
        and len(info["legal_actions"]) == 19
    )


def test_render() -> None:
    env = CountdownEnv(mode="multi", render_mode="ansi")
    env.reset(options=PUZZLE)
    env.step("25 - 5")
    assert env.render() == (
        "Countdown (multi): numbers 25, 5, 4, 7, target 87\n  25 - 5 = 20\nNumbers left: 4, 7, 20"
    )

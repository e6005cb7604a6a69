"""Tests of the reasoning_gym.<task>-v0 adapter: names, every id, conformance, rewards, guards."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

reasoning_gym = pytest.importorskip("reasoning_gym")

import turngym  # noqa: E402  (registers the ids)
from tests.sampling import sample_ids  # noqa: E402
from turngym.agents.experts.reasoning_gym import ReasoningGymOracle  # noqa: E402
from turngym.envs.adapters.answer_guard import (  # noqa: E402
    EVAL_SCORED,
    QUIRKS,
    SYMPY_SCORED,
    admissible,
    copies_input,
)
from turngym.envs.adapters.reasoning_gym import ReasoningGymEnv  # noqa: E402
from turngym.envs.adapters.reasoning_gym_tasks import (  # noqa: E402
    LEFT_OUT,
    NO_ORACLE,
    REDRAWN,
    TASKS,
)
from turngym.registry import select  # noqa: E402
from turngym.testing import check_text_env  # noqa: E402

IDS = [f"turngym/reasoning_gym.{task}-v0" for task in TASKS]

# Datasets whose entry (or dataset) takes over 10 ms to make: the every-id test covers
# them; the many-episode checks sample from the others, to keep the suite's time.
SLOW = {
    "advanced_geometry", "arc_agi", "base_conversion", "codeio", "countdown", "figlet_font",
    "futoshiki", "group_anagrams", "intermediate_integration", "knight_swap", "puzzle24",
    "rearc", "rubiks_cube", "sokoban", "spell_backward", "word_ladder", "zebra_puzzles",
}  # fmt: skip
QUICK = [task for task in TASKS if task not in SLOW]


def test_names_match_the_installed_datasets() -> None:
    from reasoning_gym.factory import DATASETS

    assert sorted(TASKS) == list(TASKS)
    assert set(TASKS) | set(LEFT_OUT) == set(DATASETS)
    assert not set(TASKS) & set(LEFT_OUT)
    assert set(TASKS) >= NO_ORACLE | EVAL_SCORED | SYMPY_SCORED


def test_registered_rows() -> None:
    rows = [e for e in turngym.registry.ENVS if e.suite == "reasoning_gym"]
    assert [e.id for e in rows] == IDS
    assert all(e.extra == "reasoning" and not e.finite_actions for e in rows)
    assert {e.id for e in select(families=["reasoning_gym"])} == set(IDS)


def test_registration_imports_no_reasoning_gym() -> None:
    code = (
        "import sys, gymnasium as gym, turngym\n"
        "gym.spec('turngym/reasoning_gym.countdown-v0')\n"
        "assert 'reasoning_gym' not in sys.modules, 'registration imported reasoning_gym'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("task", TASKS)
def test_every_id_asks_and_grades(task: str) -> None:
    """Each id resets, replays its question from the seed, and grades answers."""
    env = gym.make(f"turngym/reasoning_gym.{task}-v0", attempts=2)
    obs, info = env.reset(seed=7)
    assert obs.startswith(env.unwrapped.entry["question"]) and info["attempts_left"] == 2
    assert env.reset(seed=7)[0] == obs  # the seed picks the question
    obs, reward, terminated, truncated, info = env.step("no idea")
    assert (obs, reward, terminated, truncated) == ("Let's try again.", 0.0, False, False)
    if task in NO_ORACLE:
        return
    # the oracle answers on the second attempt: the episode pays the final answer's score
    answer = ReasoningGymOracle(env).act(obs, info)
    obs, reward, terminated, truncated, info = env.step(answer)
    assert (reward, terminated, info["success"], info["score"]) == (1.0, True, True, 1.0)


@pytest.mark.parametrize(
    "env_id",
    sample_ids(
        [f"turngym/reasoning_gym.{t}-v0" for t in QUICK],
        2,
        # basic_arithmetic keeps the default scorer (in-process), complex_arithmetic's
        # own scorer runs in the bounded worker
        always=[
            "turngym/reasoning_gym.basic_arithmetic-v0",
            "turngym/reasoning_gym.complex_arithmetic-v0",
        ],
    ),
)
def test_conformance_on_a_sample(env_id: str) -> None:
    report = check_text_env(env_id, n_fuzz=1000, reset_episodes=5)
    assert report.passed, report.table()


@pytest.mark.parametrize("task", sample_ids([t for t in QUICK if t not in NO_ORACLE], 10))
def test_oracle_scores_one_on_more_seeds(task: str) -> None:
    env = ReasoningGymEnv(task, attempts=1)
    oracle = ReasoningGymOracle(env)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        _, reward, terminated, _, info = env.step(oracle.act(obs, info))
        assert terminated and info["success"] and reward == 1.0, (task, seed)


def test_reward_is_the_final_answers_score_not_a_sum() -> None:
    """Partial credit on an early attempt is not kept: only the last answer pays."""
    env = ReasoningGymEnv("spell_backward", attempts=3)
    env.reset(seed=3)
    right = env.entry["answer"]
    partial = f"{right} {right}"  # contains the answer: the default scorer's partial credit
    assert 0 < env.score(partial) < 1
    rewards = [env.step(partial)[1], env.step(partial)[1]]
    assert rewards == [0.0, 0.0]  # nothing is paid before the end
    _, reward, terminated, _, info = env.step("zzz")
    assert terminated and not info["success"] and reward == env.score("zzz") < env.score(partial)
    binary = ReasoningGymEnv("spell_backward", attempts=1, reward="success")
    binary.reset(seed=3)
    assert binary.step(partial)[1] == 0.0


def test_a_left_out_dataset_says_why() -> None:
    # the reason it is left out: its scorer pays for any text
    data = reasoning_gym.create_dataset("game_of_life_halting", seed=0, size=1)
    assert data.score_answer("any text at all", data[0]) == 1.0
    with pytest.raises(ValueError, match=r"game_of_life_halting.*any non-empty answer"):
        ReasoningGymEnv("game_of_life_halting")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"task": "nope"}, "task must be one of"),
        ({"task": "countdown", "attempts": 0}, "attempts must be an int >= 1"),
        ({"task": "countdown", "reward": "max"}, "reward must be one of"),
        ({"task": "countdown", "config": {"no_such_option": 1}}, "not valid for countdown"),
        ({"task": "countdown", "max_answer_chars": 0}, "max_answer_chars"),
    ],
)
def test_bad_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ReasoningGymEnv(**kwargs)


def test_config_reaches_the_dataset() -> None:
    env = ReasoningGymEnv("basic_arithmetic", config={"min_terms": 2, "max_terms": 2})
    env.reset(seed=0)
    assert env.entry["metadata"]["num_terms"] == 2


# -- the host versus the agent: scorers that evaluate the answer as Python ------------


def _payload(marker: Path) -> str:
    return f"__import__('pathlib').Path({str(marker)!r}).write_text('pwned')"


@pytest.mark.parametrize("task", sorted(EVAL_SCORED | SYMPY_SCORED))
def test_an_answer_cannot_run_code_in_the_scorer(task: str, tmp_path: Path) -> None:
    env = ReasoningGymEnv(task, attempts=1)
    env.reset(seed=0)
    marker = tmp_path / "marker"
    if task in EVAL_SCORED:
        # the attack is real: the dataset's own scorer runs it (it writes the marker)
        probe = tmp_path / "probe"
        env._dataset.score_answer(_payload(probe), env.entry)
        assert probe.exists()
    _, reward, terminated, _, info = env.step(_payload(marker))
    assert not marker.exists() and reward == 0.0 and terminated and not info["success"]


@pytest.mark.parametrize("task", ["spiral_matrix", "n_queens"])
@pytest.mark.parametrize("answer", ["[[1] * 10**10]", "[x for x in range(10**10)]", "().__class__"])
def test_no_work_or_attributes_reach_eval(task: str, answer: str) -> None:
    assert not admissible(task, answer)


@pytest.mark.parametrize("answer", ["9**9**9**9", "(9**99)**99", "x**(9**9)", "99999999999999!"])
def test_a_huge_power_never_reaches_sympy(answer: str) -> None:
    assert not admissible("countdown", answer)
    env = ReasoningGymEnv("countdown", attempts=1)
    env.reset(seed=0)
    assert env.step(answer)[1] == 0.0


@pytest.mark.parametrize(
    ("task", "answer"),
    [
        ("countdown", "100 - 65 - 52 + 88 + 32 + 100"),
        ("simple_integration", "-2*X**4/3 + 5*X**2 + C"),
        ("intermediate_integration", "sin(2*x)/2 + exp(x)**2 + x**(3/2) + C"),
        ("spiral_matrix", "[1, 2, 3, 4]"),
        ("n_queens", "_ Q _ _\n_ _ _ Q"),
        ("string_insertion", "['a', 'b']"),
        ("string_insertion", "EDBBDDCDDBEA"),
    ],
)
def test_ordinary_answers_pass_the_guard(task: str, answer: str) -> None:
    assert admissible(task, answer)


def test_a_vector_env_scores_in_workers_of_its_own() -> None:
    """Envs in forked vector workers (the parent's scorer already running) score answers,
    and pickled copies of them (``get_attr``) come back without a worker."""
    here = ReasoningGymEnv("countdown", attempts=1)
    here.reset(seed=0)
    assert here.step(here.entry["answer"])[1] == 1.0  # this process has a scorer now

    def make() -> gym.Env:
        return gym.make("turngym/reasoning_gym.countdown-v0", attempts=1)

    envs = gym.vector.AsyncVectorEnv([make, make], context="fork")
    try:
        envs.reset(seed=[1, 2])
        copies = envs.get_attr("unwrapped")
        assert [c.scorer.pid for c in copies] == [None, None]
        _, rewards, terminated, _, infos = envs.step([c.entry["answer"] for c in copies])
        assert list(rewards) == [1.0, 1.0] and all(terminated) and all(infos["success"])
    finally:
        envs.close()
        here.close()


# -- degenerate answers found by turngym.testing.check_degenerate_answers (issue 42) -----


@pytest.mark.parametrize("answer", ["nan", "NaN", "nan+nanj", "-nan", "inf", "nan - nani"])
def test_complex_arithmetic_pays_nothing_for_nan(answer: str) -> None:
    # the library's scorer returns min(1.0, exp(-nan)), which is 1.0
    env = ReasoningGymEnv("complex_arithmetic", attempts=1)
    for seed in range(5):
        env.reset(seed=seed)
        assert env.score(answer) == 0.0, (answer, seed)
        assert env.score(env.entry["answer"]) == 1.0


def test_coin_flip_pays_no_prefix_credit_of_one() -> None:
    # the library's prefix credit divides by the shorter string: "0" is a prefix of "0.3125"
    env = ReasoningGymEnv("coin_flip", attempts=1)
    for seed in range(10):
        env.reset(seed=seed)
        assert env.score("0") < 1.0, seed
        assert env.score("0.") < 1.0, seed
        assert env.score(env.entry["answer"]) == 1.0


def test_coin_flip_keeps_partial_credit_below_one() -> None:
    env = ReasoningGymEnv("coin_flip", attempts=1)
    seed = next(s for s in range(100) if env.reset(seed=s) and env.entry["answer"] == "0.5")
    env.reset(seed=seed)
    assert env.score("0.9") == pytest.approx(2 / 3)  # "0." of "0.5": 2 characters of 3


@pytest.mark.parametrize("task", sorted(REDRAWN))
def test_copying_the_input_back_is_never_the_answer(task: str) -> None:
    # in these datasets the answer often equals the question's input (no pattern
    # matched, a rotation by 360 degrees, no rule applied): such entries are redrawn
    env = ReasoningGymEnv(task, attempts=1)
    for seed in range(100):
        env.reset(seed=seed)
        assert not copies_input(env.entry), (task, seed)
        given = env.entry["question"].rsplit(":", 1)[-1].strip()
        assert env.score(given) < 1.0, (task, seed)
        if seed < 10:
            assert env.score(env.entry["answer"]) == 1.0


def test_a_config_whose_every_answer_is_its_input_is_refused() -> None:
    env = ReasoningGymEnv("rotate_matrix", config={"min_rotations": 4, "max_rotations": 4})
    with pytest.raises(ValueError, match="answered by their own input"):
        env.reset(seed=0)


def test_every_quirk_and_redraw_names_a_registered_dataset() -> None:
    assert set(QUIRKS) <= set(TASKS) and set(REDRAWN) <= set(TASKS)
    assert all(reason for _, reason in QUIRKS.values()) and all(REDRAWN.values())


def test_puzzle24_pays_only_for_the_questions_numbers() -> None:
    # the library's scorer checks that four numbers in range make 24, not which four:
    # one question's answer won every other question (found by the probe's most
    # common answer)
    env = ReasoningGymEnv("puzzle24", attempts=1)
    env.reset(seed=0)
    other = str(env.entry["answer"])
    for seed in range(1, 8):
        env.reset(seed=seed)
        numbers = sorted(env.entry["metadata"]["numbers"])
        if numbers == sorted(int(n) for n in re.findall(r"\d+", other)):
            continue  # the same four numbers: a right answer here too
        assert env.score(other) < 1.0, seed
        assert env.score(str(env.entry["answer"])) == 1.0


@pytest.mark.parametrize("task", sorted(set(QUIRKS) | set(REDRAWN)))
def test_guards_and_redraws_keep_the_oracle_at_one(task: str) -> None:
    env = gym.make(f"turngym/reasoning_gym.{task}-v0", attempts=1)
    oracle = ReasoningGymOracle(env)
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        _, reward, terminated, _, info = env.step(oracle.act(obs, info))
        assert terminated and info["success"] and reward == 1.0, (task, seed)
    env.close()

"""The degenerate-answer probe: it must catch gameable scorers, and every graded id passes it.

The probe itself is tested on toy envs that pay for ``nan``, for the question copied
back and for a prefix of the answer (it must fail them) and on an honest one (it must
pass). Then it runs on the answer-graded ids that had a hole (each fixed by a guard or a
redraw) and on the cheap text envs; ``benchmarks/degenerate_answers.py`` runs it on all.
"""

from __future__ import annotations

import string
from typing import Any

import pytest

from tests.sampling import sample_ids
from turngym.core import Invalid, Outcome, TextEnv
from turngym.registry import ENVS, select
from turngym.testing import (
    DegenerateAnswerError,
    answer_graded_ids,
    check_degenerate_answers,
)
from turngym.testing.degenerate import wilson_bounds


class Quiz(TextEnv[str]):
    """Name a random 6-letter word's reverse; ``pays`` says which wrong answers pay too."""

    def __init__(self, pays: str = "nothing", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pays = pays

    def _reset(self, options: dict[str, Any]) -> str:
        letters = self.np_random.choice(list(string.ascii_lowercase), 6)
        self.word = "".join(letters)
        self.instruction = f"Spell this word backward: {self.word}"
        return self.instruction

    def _parse(self, action: str) -> str | Invalid:
        return action.strip() or Invalid("say something")

    def _apply(self, action: str) -> Outcome:
        right = action == self.word[::-1]
        if self.pays == "nan":
            right = right or action.lower() == "nan"
        elif self.pays == "copy":
            right = right or action == self.word
        elif self.pays == "prefix":
            right = right or (len(action) >= 1 and self.word[::-1].startswith(action))
        return Outcome(
            "Right." if right else "Wrong.", float(right), terminated=True, success=right
        )


def _quiz_answer(env: Any) -> str:
    return str(env.unwrapped.word[::-1])


@pytest.mark.parametrize("pays", ["nan", "copy", "prefix"])
def test_the_probe_fails_a_scorer_that_pays_a_degenerate_answer(pays: str) -> None:
    report = check_degenerate_answers(
        lambda: Quiz(pays), seeds=20, known_answer=_quiz_answer, raise_on_failure=False
    )
    assert not report.passed
    assert report.worst is not None and report.worst.failed and report.worst.rate == 1.0
    assert report.random.successes == 0
    with pytest.raises(DegenerateAnswerError, match="FAIL"):
        check_degenerate_answers(lambda: Quiz(pays), seeds=20, known_answer=_quiz_answer)


def test_the_probe_passes_an_honest_scorer_and_tables_every_answer() -> None:
    report = check_degenerate_answers(lambda: Quiz(), seeds=20, known_answer=_quiz_answer)
    assert report.passed and report.worst is not None and report.worst.successes == 0
    table = report.table()
    for label in ("random agent", "nan", "question copied", "after the last colon", "<answer>"):
        assert label in table
    assert "answer's first half" in table  # the known answer's pieces joined the corpus


def test_chance_lifts_the_bar_for_a_yes_no_task() -> None:
    class Coin(Quiz):
        def _apply(self, action: str) -> Outcome:
            right = action == ("true" if self.word < "n" else "false")
            return Outcome("", float(right), terminated=True, success=right)

    # no known answer, so no default chance: a constant guess of a yes/no task fails ...
    assert not check_degenerate_answers(lambda: Coin(), seeds=40, raise_on_failure=False).passed
    # ... unless the base rate is declared
    assert check_degenerate_answers(lambda: Coin(), seeds=40, chance=0.6).passed


def test_wilson_bounds_are_the_textbook_ones() -> None:
    # 0 of 20 at z=3: the upper bound 9/29; 20 of 20: the lower bound 20/29
    assert wilson_bounds(0, 20) == (0.0, pytest.approx(9 / 29))
    assert wilson_bounds(20, 20)[0] == pytest.approx(20 / 29)
    low, high = wilson_bounds(50, 100, z=1.96)
    assert (round(low, 3), round(high, 3)) == (0.404, 0.596)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="seeds"):
        check_degenerate_answers(lambda: Quiz(), seeds=0)
    with pytest.raises(ValueError, match="chance"):
        check_degenerate_answers(lambda: Quiz(), seeds=1, chance=1.0)


# The ids whose reward comes from a submitted answer. A new answer-graded env gets an
# `answer_action` in its registry row (and so joins the probe) and a name here.
GRADED_NAMES = {
    "TryAgainQA-v0", "SearchQA-v0", "Countdown-v0", "GuessMyCity-v0", "TwentyQuestions-v0",
    "ToolUse-v0", "WebForum-v0", "WebAdmin-v0", "SWE-v0", "SWE-Lite-v0",
}  # fmt: skip


def test_answer_graded_ids_are_every_reasoning_gym_id_and_the_listed_envs() -> None:
    rows = {e.id: e for e in ENVS}
    graded = set(answer_graded_ids())
    reasoning = {e.id for e in select(families=["reasoning_gym"])}
    assert graded == reasoning | {f"turngym/{name}" for name in GRADED_NAMES}
    for env_id in graded:  # a template formats, or a fixed action takes no answer
        action = rows[env_id].answer_action
        assert action is not None and action.format("x") in (action, *_forms("x")), env_id


def _forms(text: str) -> tuple[str, ...]:
    return (text, f"answer[{text}]", f"answer({text!r})", f"respond(message={text!r})")


# The ids the probe found a hole in (fixed in answer_guard / reasoning_gym_tasks), and
# the cheap text envs; four more Reasoning Gym ids are sampled per run (seed printed at
# the end, TURNGYM_SAMPLE_SEED repeats it) among those whose reset takes under 0.1 s.
PROBED = [
    "turngym/reasoning_gym.complex_arithmetic-v0",
    "turngym/reasoning_gym.coin_flip-v0",
    "turngym/reasoning_gym.string_insertion-v0",
    "turngym/reasoning_gym.rotate_matrix-v0",
    "turngym/reasoning_gym.string_manipulation-v0",
    "turngym/reasoning_gym.pool_matrix-v0",
    "turngym/reasoning_gym.rearc-v0",
    "turngym/TryAgainQA-v0",
    "turngym/SearchQA-v0",
    "turngym/Countdown-v0",
    "turngym/GuessMyCity-v0",
    "turngym/TwentyQuestions-v0",
]
SLOW_RESETS = {
    "arc_agi", "codeio", "figlet_font", "futoshiki", "group_anagrams", "intermediate_integration",
    "knight_swap", "puzzle24", "sokoban", "sudoku", "word_ladder", "zebra_puzzles",
}  # fmt: skip
SAMPLED = sample_ids(
    [
        i
        for i in answer_graded_ids()
        if i.startswith("turngym/reasoning_gym.")
        and i not in PROBED
        and i.split(".", 1)[1].removesuffix("-v0") not in SLOW_RESETS
    ],
    4,
)


@pytest.mark.parametrize("env_id", PROBED + SAMPLED)
def test_no_degenerate_answer_beats_the_random_agent(env_id: str) -> None:
    if "reasoning_gym." in env_id:
        pytest.importorskip("reasoning_gym")
    check_degenerate_answers(env_id, seeds=20)


@pytest.mark.parametrize("task", ["coin_flip", "spell_backward"])
def test_scoring_directly_gives_the_verdicts_of_stepping(task: str) -> None:
    pytest.importorskip("reasoning_gym")
    env_id = f"turngym/reasoning_gym.{task}-v0"
    fast = check_degenerate_answers(env_id, seeds=8, raise_on_failure=False)
    slow = check_degenerate_answers(env_id, seeds=8, score_directly=False, raise_on_failure=False)
    assert [(r.label, r.successes, r.episodes) for r in fast.results] == [
        (r.label, r.successes, r.episodes) for r in slow.results
    ]
    assert [round(r.mean_return, 9) for r in fast.results] == [
        round(r.mean_return, 9) for r in slow.results
    ]
    assert any(r.mean_return > 0 for r in fast.results)  # partial credit was compared too


def test_the_most_common_answer_is_played_on_every_seed() -> None:
    class Skewed(Quiz):
        """The answer is "aaaaaa" in most episodes (a dataset whose answers bunch up)."""

        def _reset(self, options: dict[str, Any]) -> str:
            text = super()._reset(options)
            if self.np_random.random() < 0.7:
                self.word = "aaaaaa"
            return text

    # by default a constant right answer may win its share of the questions ...
    report = check_degenerate_answers(lambda: Skewed(), seeds=30, known_answer=_quiz_answer)
    common = next(r for r in report.results if r.label == "most common answer")
    assert common.example == "'aaaaaa'" and common.rate > 0.5 and not common.failed
    assert report.chance == common.rate and report.bar == common.rate
    # ... and chance=0.0 makes the check strict
    strict = check_degenerate_answers(
        lambda: Skewed(), seeds=30, known_answer=_quiz_answer, chance=0.0, raise_on_failure=False
    )
    common = next(r for r in strict.results if r.label == "most common answer")
    assert common.failed and not strict.passed


def test_a_scorer_quirk_fails_even_where_answers_bunch_up() -> None:
    class SkewedNan(Quiz):
        def _reset(self, options: dict[str, Any]) -> str:
            text = super()._reset(options)
            if self.np_random.random() < 0.3:
                self.word = "aaaaaa"
            return text

    report = check_degenerate_answers(
        lambda: SkewedNan("nan"), seeds=40, known_answer=_quiz_answer, raise_on_failure=False
    )
    assert 0 < report.chance < 0.5 and not report.passed
    assert [r.label for r in report.results if r.failed] == ["nan", "NaN"]


def test_another_questions_answer_is_tried() -> None:
    class AnySolution(Quiz):
        """Pays any reversed 6-letter word: a solution, not this question's."""

        def _apply(self, action: str) -> Outcome:
            right = len(action) == 6 and action.isalpha() and action.islower()
            return Outcome("", float(right), terminated=True, success=right)

    report = check_degenerate_answers(
        lambda: AnySolution(), seeds=20, known_answer=_quiz_answer, raise_on_failure=False
    )
    other = next(r for r in report.results if r.label == "another question's answer")
    assert other.failed and other.episodes == 19 and other.rate == 1.0

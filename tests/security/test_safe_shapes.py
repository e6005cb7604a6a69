"""The in-process fast path of ``safe_shapes``: only answers that cannot stall skip the worker.

Three claims, each checked here. The shape test is exactly its specification (a
reference written plainly, over random and hostile strings). Every answer that could
hurt the host (the stall answers of ``test_scorer_bounds``, code, exponent towers, deep
nesting, huge and unicode numbers) is refused by it and still goes to the bounded worker.
And an answer scored in-process gets exactly the verdict the worker gives it. No test
reads a clock: where an answer went is counted by the worker's starts.
"""

from __future__ import annotations

import random

import pytest

reasoning_gym = pytest.importorskip("reasoning_gym")

from turngym.envs.adapters.answer_guard import admissible  # noqa: E402
from turngym.envs.adapters.reasoning_gym import ReasoningGymEnv  # noqa: E402
from turngym.envs.adapters.safe_shapes import (  # noqa: E402
    MATRIX_CHARS,
    MATRIX_DIGITS,
    SAFE_SHAPES,
    safe_in_process,
)

from .test_scorer_bounds import STALLS  # noqa: E402

_ALLOWED = set("0123456789 \t\n\r,[]")


def _reference(answer: str) -> bool:
    """The matrix shape as specified: short, ASCII digits and separators, short numbers."""
    if len(answer) > MATRIX_CHARS or not set(answer) <= _ALLOWED:
        return False
    run = longest = 0
    for char in answer:
        run = run + 1 if char.isdigit() else 0
        longest = max(longest, run)
    return longest <= MATRIX_DIGITS


# answers an agent may write to hurt the host, none of which may skip the worker
HOSTILE = [
    "__import__('os').system('true')",
    "9**9**9**9",
    "[9**9**9]",
    "[[1] * 10**10]",
    "[x for x in range(10**10)]",
    "().__class__",
    "1" * (MATRIX_DIGITS + 1),
    "[" + "9" * 5000 + "]",
    "1 " * (MATRIX_CHARS // 2) + "1",  # one character past the length bound
    "[" * 100_000,
    "(1," * 199 + ")" * 199,  # constant folding of nested tuples: superlinear
    "1-" * 5000 + "1",  # an operation chain as deep as it is long
    "-" * 10_000 + "1",
    "+1",
    "1e999",
    "0x10",
    "1_000",
    "1.5",
    "\u0661\u0662\u0663",  # Arabic-Indic digits: str.isdigit, not ASCII
    "\uff11 \uff12",  # fullwidth digits
    "\u00b2",  # a superscript: isdigit() but no decimal
    "1\u00a02",  # a no-break space: \s, not ASCII
    "1\u20282",  # a line separator
    "1\x002",
    "1\x0b2",  # a vertical tab: ASCII whitespace the shape leaves out
    "[1, 2]; 3",
    "'1 2 3'",
    "{1: 2}",
    "[1, 2] * 3",
]


def _adversarial_in_shape(rng: random.Random) -> str:
    """A random answer of the matrix shape, near its edges (length, digits, nesting)."""
    kind = rng.randrange(6)
    if kind == 0:  # deep nesting, past the tokenizer's 200 levels sometimes
        depth = rng.randrange(1, 260)
        return "[" * depth + ",".join("1" * rng.randrange(1, 4)) + "]" * rng.randrange(depth + 1)
    if kind == 1:  # the longest numbers
        return " ".join("9" * rng.randrange(1, MATRIX_DIGITS + 1) for _ in range(rng.randrange(9)))
    if kind == 2:  # long, near the length bound
        text = ",".join(str(rng.randrange(10**6)) for _ in range(MATRIX_CHARS // 5))
        return text[: MATRIX_CHARS - rng.randrange(3)]
    if kind == 3:  # only separators
        return "".join(rng.choice(" \t\n\r,[]") for _ in range(rng.randrange(1, 40)))
    if kind == 4:  # leading zeros, stray commas and brackets
        pieces = ["0", "00", "01", ",", ",,", "[", "]", " ", "\n"]
        return "".join(rng.choice(pieces) for _ in range(30))
    return "".join(rng.choice("0123456789 ,[]\n") for _ in range(rng.randrange(1, 80)))


def _near_answers(entry: dict, rng: random.Random) -> list[str]:
    """The right answer and the forms the scorer reads: its list forms, its near misses."""
    right = str(entry["answer"])
    rows = [row.split() for row in right.splitlines()]
    flat = [n for row in rows for n in row]
    matrix = "[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]"
    swapped = flat[::-1]
    return [
        right,
        right + "\n",
        " " + right,
        right.replace("\n", " "),
        "[" + ", ".join(flat) + "]",  # the list form the scorer pays 0.1
        ", ".join(flat),  # a tuple
        matrix,
        "[" + ", ".join(swapped) + "]",
        right.replace(flat[0], flat[0] + "0", 1),
        right[: rng.randrange(len(right))],
    ]


def test_the_shape_test_is_its_specification() -> None:
    shape = SAFE_SHAPES["spiral_matrix"]
    rng = random.Random(0)
    alphabet = "0123456789 \t\n\r,[]()-+x.e_'\u0661\u00a0\x00"
    answers = HOSTILE + [_adversarial_in_shape(rng) for _ in range(2000)]
    for _ in range(3000):
        answers.append("".join(rng.choice(alphabet) for _ in range(rng.randrange(60))))
    answers += ["7" * n for n in range(MATRIX_DIGITS - 2, MATRIX_DIGITS + 3)]
    for answer in answers:
        assert shape(answer) == _reference(answer), repr(answer[:80])


@pytest.mark.parametrize("answer", HOSTILE, ids=range(len(HOSTILE)))
def test_no_hostile_answer_has_a_safe_shape(answer: str) -> None:
    assert not SAFE_SHAPES["spiral_matrix"](answer)


@pytest.mark.parametrize("stall", list(STALLS))
def test_the_stall_answers_still_go_to_the_worker(stall: str) -> None:
    task, template = STALLS[stall]
    shape = safe_in_process(task)
    assert shape is None or not shape(template.replace("V", "x"))


def test_a_hostile_answer_is_scored_by_the_worker_and_a_safe_one_here() -> None:
    env = ReasoningGymEnv("spiral_matrix", attempts=3, score_seconds=1.0)
    env.reset(seed=0)
    env.step("[1, 2, 3]")
    env.step(str(env.entry["answer"]).replace("1", "2", 1))
    assert env.scorer.starts == 0  # both of a safe shape: no worker
    env.step("(1," * 199 + ")" * 199)
    assert env.scorer.starts == 1
    env.close()


def test_the_fast_path_gives_the_workers_verdict() -> None:
    fast = ReasoningGymEnv("spiral_matrix", attempts=1)
    slow = ReasoningGymEnv("spiral_matrix", attempts=1)
    slow._safe_shape = None  # every answer through the worker, as before the fast path
    rng = random.Random(1)
    shape = SAFE_SHAPES["spiral_matrix"]
    checked = 0
    for seed in range(12):
        fast.reset(seed=seed)
        slow.reset(seed=seed)
        assert fast.entry == slow.entry
        answers = _near_answers(fast.entry, rng) + HOSTILE
        answers += [_adversarial_in_shape(rng) for _ in range(60)]
        for answer in answers:
            if shape(answer):
                # skipping the guard is sound: it admits every answer of the shape
                assert admissible("spiral_matrix", answer)
                checked += 1
            assert fast._verdict(answer) == slow._verdict(answer), repr(answer[:80])
    assert checked > 600 and fast.scorer.starts == 1  # the hostile answers went to a worker
    assert any(fast.score(a) == 0.1 for a in _near_answers(fast.entry, rng))
    fast.close()
    slow.close()

"""Which agent answers may reach a Reasoning Gym scorer that evaluates text as Python.

Some of Reasoning Gym's ``score_answer`` methods run the answer through Python's
``eval`` (``string_insertion``, ``spiral_matrix``, ``binary_matrix``, ``n_queens``) or
through ``sympy.parse_expr``, which also ends in ``eval`` (``countdown``, ``puzzle24``
and the integration and polynomial datasets). An RL policy writes those answers, and
it optimises whatever works: ``__import__('os').system(...)`` would run on the host, and
``9**9**9**9`` would hang the scorer. ``admissible`` decides from the answer's syntax
tree alone (nothing is evaluated) whether it is safe to hand over:

- ``eval`` scorers get an answer that is not Python at all (``eval`` then fails as it
  does for any prose) or Python that only builds literals and names things (a list of
  strings or numbers, a bare word): no call, attribute or subscript;
- ``parse_expr`` scorers get arithmetic only: numbers, names, ``+ - * / **`` (and ``^``),
  calls of a few maths functions, and powers of pure numbers bounded so that no number
  grows past a few thousand digits (nor is written with an exponent of thousands).

The guard stops code from running; it does not bound work (``simplify`` of nested
``exp(exp(...))`` is arithmetic too): that is `turngym.envs.adapters.bounded_score`'s
job, which runs every scorer but the default string compare under a time bound.

``guarded_score`` then corrects the scores of scorers that pay a degenerate answer
(found by ``turngym.testing.check_degenerate_answers``), one guard per quirk
(``QUIRKS``), each keeping the oracle's answer at 1.0; and ``copies_input`` tells the
env which questions to redraw because their answer is their own input (``REDRAWN`` in
``reasoning_gym_tasks``).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from turngym.pyparse import parse

__all__ = ["EVAL_SCORED", "QUIRKS", "SYMPY_SCORED", "admissible", "copies_input", "guarded_score"]

EVAL_SCORED: frozenset[str] = frozenset(
    {"string_insertion", "spiral_matrix", "binary_matrix", "n_queens"}
)
"""Datasets whose scorer may call Python's ``eval`` on the answer."""

SYMPY_SCORED: frozenset[str] = frozenset(
    {
        "countdown",
        "puzzle24",
        "simple_integration",
        "intermediate_integration",
        "polynomial_multiplication",
    }
)
"""Datasets whose scorer parses the answer with ``sympy.parse_expr``."""

_FUNCTIONS = frozenset(
    {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "log"}
    | {"ln", "sqrt", "Abs", "abs"}
)
_MAX_EXPRESSION = 2000  # characters a parse_expr answer may have
_MAX_INT = 10**12  # the largest integer literal in a parse_expr answer
_MAX_POWER = 64  # the largest exponent of a power of a pure number
_MAX_EXPONENT = 400  # the largest exponent of a float literal (1e400 is already inf)
_INERT = (
    ast.Expression, ast.Constant, ast.Name, ast.Load, ast.List, ast.Tuple,
    ast.UnaryOp, ast.UAdd, ast.USub, ast.BinOp, ast.Add, ast.Sub,
)  # fmt: skip
_BINARY = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.BitXor)


def admissible(task: str, answer: str) -> bool:
    """Whether ``answer`` may be given to ``task``'s scorer (True for datasets without eval).

    >>> admissible("spiral_matrix", "[1, 2, 3]"), admissible("spiral_matrix", "1 2 3")
    (True, True)
    >>> admissible("spiral_matrix", "__import__('os').getcwd()")
    False
    >>> admissible("countdown", "(25 - 5) * 4 + 2"), admissible("countdown", "9**9**9**9")
    (True, False)
    """
    if task in EVAL_SCORED:
        return _literal_or_not_python(answer)
    if task in SYMPY_SCORED:
        return _arithmetic(answer)
    return True


def _literal_or_not_python(answer: str) -> bool:
    try:
        tree = parse(answer.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return True  # eval raises on it too, before running anything
    # Valid Python: eval would run it, so it may only name things and build literals
    # (no call, attribute, subscript, comprehension, lambda, or * to multiply a string).
    return all(isinstance(node, _INERT) for node in ast.walk(tree))


def _arithmetic(answer: str) -> bool:
    if len(answer) > _MAX_EXPRESSION:
        return False
    source = answer.strip().replace("\n", " ")
    try:
        tree = parse(source, mode="eval")
        return _bounded(tree.body) is not None and _exponents_bounded(tree, source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False


def _exponents_bounded(tree: ast.AST, source: str) -> bool:
    """No float literal is written with an exponent beyond ``_MAX_EXPONENT``.

    ``1e-999999`` reads as 0.0 here, but sympy keeps its exact value and takes seconds
    per million of the exponent to score it.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            written = (ast.get_source_segment(source, node) or "").lower().replace("_", "")
            _, _, exponent = written.partition("e")
            digits = exponent.lstrip("+-").lstrip("0")  # int() of it stays short
            if len(digits) > len(str(_MAX_EXPONENT)) or int(digits or 0) > _MAX_EXPONENT:
                return False
    return True


def _bounded(node: ast.AST) -> float | None:
    """Digits of ``node``'s value at most (inf if it holds a name); None if not allowed."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        if abs(value) > _MAX_INT:
            return None
        return float(len(str(abs(int(value)))))
    if isinstance(node, ast.Name):
        return None if "_" in node.id else float("inf")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        return _bounded(node.operand)
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            return None
        if node.keywords or len(node.args) > 2:
            return None
        if any(_bounded(arg) is None for arg in node.args):
            return None
        return float("inf")  # symbolic: sympy keeps it unevaluated
    if isinstance(node, ast.BinOp) and isinstance(node.op, _BINARY):
        left, right = _bounded(node.left), _bounded(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, (ast.Pow, ast.BitXor)):
            if left == float("inf"):
                # a symbol's power: the exponent must be a small number (x**2, x**(3/2))
                return left if right <= 2 else None
            # a number's power: a small constant exponent, and a result of few digits
            if not (isinstance(node.right, ast.Constant) or _small_fraction(node.right)):
                return None
            exponent = _constant(node.right)
            if exponent is None or abs(exponent) > _MAX_POWER:
                return None
            digits = left * max(abs(exponent), 1)
            return digits if digits <= 4000 else None
        if left == float("inf") or right == float("inf"):
            return float("inf")
        digits = left + right if isinstance(node.op, (ast.Mult, ast.Div)) else max(left, right) + 1
        return digits if digits <= 4000 else None
    return None


def _small_fraction(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Div)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.right, ast.Constant)
    )


def _constant(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if _small_fraction(node):
        assert isinstance(node, ast.BinOp)
        left, right = _constant(node.left), _constant(node.right)
        if left is None or not right:
            return None
        return left / right
    return None


# --------------------------------------------------------------------------- scorer quirks

_NON_FINITE = re.compile(r"nan|inf", re.IGNORECASE)  # what complex() reads as non-finite
_COIN_FLIP_TOLERANCE = 1e-4  # coin_flip's own absolute tolerance
_COIN_FLIP_RELATIVE = 1e-3  # and, below it, the relative error still counted right


def _finite_complex(answer: str, entry: Mapping[str, Any], score: float) -> float:
    # min(1.0, exp(-abs(nan - expected))) is 1.0: min keeps its first argument when
    # the comparison with nan is false. A right answer is finite, so naming nan or inf
    # (which complex() reads: "nan", "nanj", "inf", "infinity") earns nothing.
    return 0.0 if _NON_FINITE.search(answer) else score


def _probability(text: str) -> float | None:
    try:
        value = float(Fraction(text.replace(",", "")))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def _coin_flip(answer: str, entry: Mapping[str, Any], score: float) -> float:
    # coin_flip pays a matching prefix over the SHORTER string ("0" against "0.3125" is
    # 1/1), and counts anything within 1e-4 as right ("0" for 3.05e-05). A 1.0 is kept
    # for a value within the tolerance and, for tiny probabilities, within 0.1% of the
    # oracle's; else the prefix credit is paid over the LONGER string, below 1.0.
    if score < 1.0:
        return score
    given, right = _probability(answer), _probability(str(entry.get("answer", "")))
    if given is None or right is None:
        return score  # the scorer read it some other way: leave its verdict alone
    if abs(given - right) <= min(_COIN_FLIP_TOLERANCE, _COIN_FLIP_RELATIVE * abs(right)):
        return 1.0
    shown, oracle = f"{given:.10g}", f"{right:.10g}"
    shared = next(
        (k for k, (a, b) in enumerate(zip(shown, oracle, strict=False)) if a != b),
        min(len(shown), len(oracle)),
    )
    return shared / max(len(shown), len(oracle))


_NUMBER = re.compile(r"\b\d+\b")  # how puzzle24's scorer finds the numbers used
_PUZZLE24_WRONG = 0.01  # what puzzle24 pays a wrong answer of the right form


def _puzzle24(answer: str, entry: Mapping[str, Any], score: float) -> float:
    # puzzle24 checks that four numbers in range make 24, not that they are the
    # question's four: one question's answer won every other question.
    given = entry.get("metadata", {}).get("numbers")
    if score < 1.0 or not given:
        return score
    used = sorted(int(n) for n in _NUMBER.findall(answer))
    return score if used == sorted(int(n) for n in given) else min(score, _PUZZLE24_WRONG)


Quirk = Callable[[str, Mapping[str, Any], float], float]
"""``(answer, entry, score) -> corrected score``."""

QUIRKS: dict[str, tuple[Quirk, str]] = {
    "complex_arithmetic": (
        _finite_complex,
        "`nan` scored 1.0 on every question: min(1.0, exp(-nan)) is 1.0",
    ),
    "puzzle24": (
        _puzzle24,
        "one question's answer (8*(6 - 1 - 2)) won 100 of 100 questions: the scorer "
        "checks that four numbers make 24, not that they are the question's",
    ),
    "coin_flip": (
        _coin_flip,
        "`0` scored 1.0 on most questions: prefix credit over the shorter string "
        "('0' of '0.3125'), and any value within 1e-4 of a tiny probability",
    ),
}
"""Datasets whose scorer overpays a degenerate answer: the guard, and what it paid for."""


def guarded_score(task: str, answer: str, entry: Mapping[str, Any], score: float) -> float:
    """``score`` (the dataset's own) corrected for the scorer's known quirk, if it has one.

    >>> guarded_score("complex_arithmetic", "nan", {"answer": "3.0 - 3.0i"}, 1.0)
    0.0
    >>> guarded_score("coin_flip", "0", {"answer": "0.3125"}, 1.0)
    0.16666666666666666
    >>> guarded_score("coin_flip", "0.3125", {"answer": "0.3125"}, 1.0)
    1.0
    """
    quirk = QUIRKS.get(task)
    return score if quirk is None else quirk[0](answer, entry, score)


def copies_input(entry: Mapping[str, Any]) -> bool:
    r"""Whether ``entry``'s answer stands in its question (spacing and number forms aside).

    In ``REDRAWN`` datasets such an answer is the question's own input (a string no
    pattern changes, a matrix rotated by 360 degrees or pooled with a 1x1 kernel):
    copying it back would win. Numbers compare by value (``6`` is ``6.0``), as the
    matrix scorers do.

    >>> copies_input({"question": "Rotate by 360 degrees:\n1 2\n3 4\n", "answer": "1 2\n3 4"})
    True
    >>> copies_input({"question": "Pool with a kernel of 1:\n6 3\n", "answer": "6.0 3.0"})
    True
    """
    answer = _tokens(str(entry.get("answer", "")))
    return bool(answer.strip()) and answer in _tokens(str(entry.get("question", "")))


def _tokens(text: str) -> str:
    """``text`` with its spacing collapsed and each number written one way."""
    out = []
    for token in text.split():
        try:
            value = float(token)
        except ValueError:
            out.append(token)
        else:
            out.append(repr(value) if math.isfinite(value) else token)
    return " " + " ".join(out) + " "  # padded: "1 2" must not match inside "11 22"

"""``Countdown-v0``: combine the given numbers with + - * / to reach a target number.

The TinyZero / "Countdown" arithmetic task. Each puzzle is drawn from the env's RNG
and solvable by construction: draw the numbers (1..100), combine them at random by
operations whose results are positive whole numbers up to 1000, and take the final
value (10..1000, not one of the numbers) as the target.

Two modes:

* ``mode="single"`` (default): one turn. The action is a whole expression such as
  ``(25 - 5) * 4 + 7``, read by a small recursive-descent parser (never ``eval``)
  and evaluated exactly with fractions, so intermediate fractions are fine. A
  well-formed expression ends the episode: reward 1 if it equals the target and
  (with ``use_all``) uses every number, else 0. A malformed expression, a number
  that is not available, or a division by zero is an invalid action (retry).
* ``mode="multi"``: each turn combines two numbers, ``"25 - 5"``; the result replaces
  them in the pool. Results must be positive whole numbers (subtract the smaller
  from the larger, divide only exactly), which keeps the action set finite and
  listed in ``info["legal_actions"]`` (``+`` and ``*`` with the larger number first).
  With ``use_all`` the episode succeeds when the last number left is the target;
  without it, as soon as a step produces the target. It fails when one number is
  left and it is not the target.

``use_all=True`` (default) follows TinyZero: every number is used exactly once.
With ``use_all=False`` each number is used at most once and the target is built
from a random subset of 2 or more numbers.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from turngym.core import Invalid, Outcome, TextEnv, normalize_action, preview

__all__ = [
    "MAX_NUMBER",
    "MAX_VALUE",
    "MIN_TARGET",
    "CountdownEnv",
    "Expr",
    "Puzzle",
    "apply_op",
    "format_step",
    "generate_puzzle",
    "parse_expression",
]

MAX_NUMBER = 100
"""Numbers are drawn from 1..MAX_NUMBER."""
MIN_TARGET = 10
MAX_VALUE = 1000
"""Targets (and every intermediate value of the construction) are at most this."""
_MAX_EXPR_CHARS = 300
_MAX_DEPTH = 30
_OPS = "+-*/"
# Unicode and ASCII spellings accepted for each operator.
_OP_ALIASES = {"×": "*", "x": "*", "X": "*", "·": "*", "÷": "/", "−": "-", "–": "-", ":": "/"}
_MAX_DIGITS = 40
_STEP = re.compile(r"(\d+)\s*([-+*/])\s*(\d+)(?:\s*=\s*\d+)?", re.ASCII)
_TRAILING_RESULT = re.compile(r"\s*=\s*-?\d+(?:\s*/\s*\d+)?\s*$")


def apply_op(a: int, op: str, b: int) -> int | None:
    """``a op b`` when it is a positive whole number, else None (the multi-mode rule).

    >>> apply_op(25, "-", 5), apply_op(5, "-", 25), apply_op(7, "/", 2), apply_op(8, "/", 2)
    (20, None, None, 4)
    """
    if op == "+":
        return a + b
    if op == "*":
        return a * b
    if op == "-":
        return a - b if a > b else None
    if op == "/":
        return a // b if b and a % b == 0 else None
    raise ValueError(f"unknown operator {op!r}")


def format_step(a: int, op: str, b: int) -> str:
    """The canonical text of one multi-mode step: ``+`` and ``*`` put the larger first.

    >>> format_step(5, "*", 25)
    '25 * 5'
    """
    if op in "+*" and b > a:
        a, b = b, a
    return f"{a} {op} {b}"


# -- the expression parser ------------------------------------------------------------


@dataclass(frozen=True)
class Expr:
    """A parsed expression: exact value (None on division by zero), numbers, tidy text."""

    value: Fraction | None
    numbers: tuple[int, ...]
    text: str


class _ParseError(Exception):
    pass


class _Parser:
    """A recursive-descent parser with the usual precedence, left to right.

    Grammar: ``expr := term (('+'|'-') term)*``, ``term := factor (('*'|'/') factor)*``,
    ``factor := NUMBER | '(' expr ')'``.
    """

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.numbers: list[int] = []
        self.div_by_zero = False

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def expr(self, depth: int) -> Fraction:
        value = self.term(depth)
        while self.peek() in ("+", "-"):
            op = self.take()
            rhs = self.term(depth)
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self, depth: int) -> Fraction:
        value = self.factor(depth)
        while self.peek() in ("*", "/"):
            op = self.take()
            rhs = self.factor(depth)
            if op == "*":
                value *= rhs
            elif rhs == 0:
                self.div_by_zero = True  # keep parsing: a syntax error is reported first
            else:
                value /= rhs
        return value

    def factor(self, depth: int) -> Fraction:
        token = self.peek()
        if token is None:
            raise _ParseError("the expression ends too early; a number or '(' is missing")
        if token == "(":
            if depth >= _MAX_DEPTH:
                raise _ParseError(f"parentheses are nested more than {_MAX_DEPTH} deep")
            self.take()
            value = self.expr(depth + 1)
            if self.peek() != ")":
                raise _ParseError("a '(' is never closed")
            self.take()
            return value
        if token.isdigit():
            self.take()
            self.numbers.append(int(token))
            return Fraction(int(token))
        if token in ("-", "+"):
            raise _ParseError(
                f"a sign before a number ('{token}') is not allowed; combine the given numbers"
            )
        raise _ParseError(f"expected a number or '(' but found {token!r}")


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    i = 0
    while i < len(text):
        ch = _OP_ALIASES.get(text[i], text[i])
        if ch.isspace():
            i += 1
        elif ch.isascii() and ch.isdigit():
            j = i
            while j < len(text) and text[j].isascii() and text[j].isdigit():
                j += 1
            if j < len(text) and text[j] in ".," and text[j + 1 : j + 2].isdigit():
                raise _ParseError("only whole numbers are allowed (no decimals)")
            tokens.append(text[i:j].lstrip("0") or "0")
            i = j
        elif ch in _OPS or ch in "()":
            tokens.append(ch)
            i += 1
        elif ch in "[{":
            tokens.append("(")
            i += 1
        elif ch in "]}":
            tokens.append(")")
            i += 1
        else:
            raise _ParseError(f"unexpected character {ch!r}; use digits, + - * / and ( )")
    return tokens


def parse_expression(text: str) -> Expr | Invalid:
    """Parse an arithmetic expression over whole numbers; never evaluates Python code.

    Accepts ``+ - * /`` (also ``x × ÷ −``), parentheses (also ``[ ]``, ``{ }``) and an
    optional trailing ``= value``, which is ignored. Returns ``Invalid`` with the reason
    for malformed input.

    >>> parse_expression("(25-5)×4 + 7")
    Expr(value=Fraction(87, 1), numbers=(25, 5, 4, 7), text='(25 - 5) * 4 + 7')
    >>> parse_expression("8 / (3 - 8 / 3) = 24").value
    Fraction(24, 1)
    >>> parse_expression("3 +* 4")
    Invalid(reason="expected a number or '(' but found '*'")
    """
    text = text.strip()
    if not text:
        return Invalid("the answer is empty; reply with an expression, e.g. (6 - 2) * 3 + 1")
    if len(text) > _MAX_EXPR_CHARS:
        return Invalid(f"the expression is longer than {_MAX_EXPR_CHARS} characters")
    text = _TRAILING_RESULT.sub("", text)
    try:
        tokens = _tokenize(text)
        if not tokens:
            raise _ParseError("the expression has no numbers")
        parser = _Parser(tokens)
        value = parser.expr(0)
        if parser.pos < len(tokens):
            extra = tokens[parser.pos]
            hint = "an unmatched ')'" if extra == ")" else f"{extra!r} where an operator belongs"
            raise _ParseError(f"unexpected {hint}")
    except _ParseError as error:
        return Invalid(str(error))
    tidy = " ".join(tokens).replace("( ", "(").replace(" )", ")")
    return Expr(None if parser.div_by_zero else value, tuple(parser.numbers), tidy)


# -- puzzles ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Puzzle:
    """The numbers, the target and one solution (the expression it was built from)."""

    numbers: tuple[int, ...]
    target: int
    solution: str


def _wrap(expr: str) -> str:
    return f"({expr})" if " " in expr else expr


def generate_puzzle(rng: np.random.Generator, num_numbers: int, use_all: bool = True) -> Puzzle:
    """A random puzzle, solvable by construction with positive whole-number steps.

    >>> p = generate_puzzle(np.random.default_rng(0), 4)
    >>> parse_expression(p.solution).value == p.target and len(p.numbers) == 4
    True
    """
    while True:  # almost every draw succeeds within a few tries
        numbers = tuple(int(n) for n in rng.integers(1, MAX_NUMBER + 1, size=num_numbers))
        k = num_numbers if use_all else int(rng.integers(2, num_numbers + 1))
        pool = [(numbers[i], str(numbers[i])) for i in rng.permutation(num_numbers)[:k]]
        while len(pool) > 1:
            i, j = (int(x) for x in rng.choice(len(pool), size=2, replace=False))
            (a, ea), (b, eb) = pool[i], pool[j]
            options = [
                (value, f"{_wrap(ex)} {op} {_wrap(ey)}")
                for (x, ex), op, (y, ey) in (
                    ((a, ea), "+", (b, eb)),
                    ((a, ea), "*", (b, eb)),
                    ((a, ea), "-", (b, eb)),
                    ((b, eb), "-", (a, ea)),
                    ((a, ea), "/", (b, eb)),
                    ((b, eb), "/", (a, ea)),
                )
                if (value := apply_op(x, op, y)) is not None and value <= MAX_VALUE
            ]
            if not options:
                break
            pool = [p for n, p in enumerate(pool) if n not in (i, j)]
            pool.append(options[int(rng.integers(len(options)))])
        if len(pool) == 1 and pool[0][0] >= MIN_TARGET and pool[0][0] not in numbers:
            return Puzzle(numbers, pool[0][0], pool[0][1])


def _fmt(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value}"


def _numbers_text(numbers: list[int] | tuple[int, ...]) -> str:
    return ", ".join(map(str, numbers))


class CountdownEnv(TextEnv[Any]):
    """Reach a target number by combining the given numbers with + - * /.

    Args:
        mode: ``"single"`` (one full expression) or ``"multi"`` (one ``a op b`` step a turn).
        num_numbers: how many numbers a puzzle has (3..6).
        use_all: every number must be used exactly once (TinyZero's rule); False: each
            number at most once.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    ``reset(options={"numbers": [...], "target": n})`` poses a given puzzle instead.

    Example:
        >>> from turngym.envs.text.countdown import CountdownEnv
        >>> env = CountdownEnv()
        >>> obs, info = env.reset(options={"numbers": [25, 5, 4, 7], "target": 87})
        >>> obs, reward, terminated, truncated, info = env.step("(25 - 5) * 4 + 7")
        >>> obs, reward, terminated
        ('(25 - 5) * 4 + 7 = 87. Correct!', 1.0, True)
        >>> multi = CountdownEnv(mode="multi")
        >>> _ = multi.reset(options={"numbers": [25, 5, 4, 7], "target": 87})
        >>> multi.step("25 - 5")[0]
        '25 - 5 = 20. Numbers left: 4, 7, 20. Target: 87.'

    """

    def __init__(
        self, mode: str = "single", num_numbers: int = 4, use_all: bool = True, **kwargs: Any
    ) -> None:
        if mode not in ("single", "multi"):
            raise ValueError(f"mode must be 'single' or 'multi', got {mode!r}")
        if isinstance(num_numbers, bool) or not isinstance(num_numbers, int):
            raise ValueError(f"num_numbers must be an int in 3..6, got {num_numbers!r}")
        if not 3 <= num_numbers <= 6:
            raise ValueError(f"num_numbers must be an int in 3..6, got {num_numbers!r}")
        if not isinstance(use_all, bool):
            raise ValueError(f"use_all must be True or False, got {use_all!r}")
        super().__init__(**kwargs)
        self.mode = mode
        self.num_numbers = num_numbers
        self.use_all = use_all
        self.puzzle = Puzzle((), 0, "")
        self.pool: list[int] = []
        """The numbers still available (multi mode), kept sorted."""
        self._steps: list[str] = []

    @property
    def numbers(self) -> tuple[int, ...]:
        """The puzzle's starting numbers."""
        return self.puzzle.numbers

    @property
    def target(self) -> int:
        """The number to reach."""
        return self.puzzle.target

    def _reset(self, options: dict[str, Any]) -> str:
        unknown = set(options) - {"numbers", "target"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; use 'numbers', 'target'")
        if options:
            self.puzzle = self._given_puzzle(options)
        else:
            self.puzzle = generate_puzzle(self.np_random, self.num_numbers, self.use_all)
        self.pool = sorted(self.puzzle.numbers)
        self._steps = []
        nums, target = _numbers_text(self.numbers), self.target
        rule = (
            "Use every number exactly once."
            if self.use_all
            else "Use each number at most once (not all are needed)."
        )
        if self.mode == "single":
            self.instruction = (
                f"Countdown: using the numbers {nums}, make {target}. {rule} You may use "
                "+, -, *, / and parentheses; division is exact (fractions are allowed on the "
                "way). Reply with one expression, e.g. (6 - 2) * 3 + 1. You have one try."
            )
        else:
            goal = (
                f"Every number must be used: finish with {target} as the last number left."
                if self.use_all
                else f"Make {target}; each number can be used at most once, not all are needed."
            )
            self.instruction = (
                f"Countdown: numbers {nums}; target {target}. Each turn, combine two of the "
                "numbers with one operation, e.g. '25 - 5'; the result replaces them. Results "
                f"must be positive whole numbers (only exact division). {goal}"
            )
        return self.instruction

    def _given_puzzle(self, options: dict[str, Any]) -> Puzzle:
        numbers, target = options.get("numbers"), options.get("target")
        ok = (
            isinstance(numbers, (list, tuple))
            and 2 <= len(numbers) <= 6
            and all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in numbers)
        )
        if not ok:
            raise ValueError(
                f"options['numbers'] must be a list of 2..6 positive ints, got {numbers!r}"
            )
        if isinstance(target, bool) or not isinstance(target, int) or target < 1:
            raise ValueError(f"options['target'] must be a positive int, got {target!r}")
        return Puzzle(tuple(numbers), target, "")  # type: ignore[arg-type]

    # -- actions ----------------------------------------------------------------------

    def _parse(self, action: str) -> Any:
        return self._parse_single(action) if self.mode == "single" else self._parse_step(action)

    def _parse_single(self, action: str) -> Expr | Invalid:
        expr = parse_expression(action)
        if isinstance(expr, Invalid):
            return expr
        if expr.value is None:
            return Invalid("the expression divides by zero")
        have, used = Counter(self.numbers), Counter(expr.numbers)
        for n, count in used.items():
            if have[n] == 0:
                return Invalid(f"{n} is not one of the numbers ({_numbers_text(self.numbers)})")
            if count > have[n]:
                times = "once" if have[n] == 1 else f"{have[n]} times"
                return Invalid(f"{n} is used {count} times but is available only {times}")
        return expr

    def _parse_step(self, action: str) -> tuple[int, str, int] | Invalid:
        text = action.strip()
        for alias, op in _OP_ALIASES.items():
            text = text.replace(alias, op)
        match = _STEP.fullmatch(text)
        if match is None:
            if not text:
                return Invalid("the step is empty; combine two numbers, e.g. 25 - 5")
            return Invalid(
                f"a step is two numbers and one operation (+ - * /), e.g. 25 - 5; got "
                f"{preview(normalize_action(action))}"
            )
        for digits in (match.group(1), match.group(3)):
            # never a pool number (they stay far below this), and int() refuses 4,300+ digits
            if len(digits) > _MAX_DIGITS:
                return Invalid(
                    f"{digits[:12]}... ({len(digits)} digits) is not among the numbers left "
                    f"({_numbers_text(self.pool)})"
                )
        a, op, b = int(match.group(1)), match.group(2), int(match.group(3))
        have = Counter(self.pool)
        for n in (a, b):
            if have[n] == 0:
                return Invalid(f"{n} is not among the numbers left ({_numbers_text(self.pool)})")
        if a == b and have[a] < 2:
            return Invalid(
                f"{a} is left only once ({_numbers_text(self.pool)}); it cannot pair with itself"
            )
        if apply_op(a, op, b) is None:
            if op == "-":
                hint = f"; try {b} - {a}" if b > a else ""
                return Invalid(f"{a} - {b} is not positive (results must be positive){hint}")
            return Invalid(f"{a} / {b} is not a whole number; only exact division is allowed")
        return (a, op, b)

    def _apply(self, action: Any) -> Outcome:
        if self.mode == "single":
            return self._apply_single(action)
        return self._apply_step(action)

    def _apply_single(self, expr: Expr) -> Outcome:
        assert expr.value is not None
        unused = Counter(self.numbers) - Counter(expr.numbers)
        hit = expr.value == self.target
        missing = self.use_all and bool(unused)
        solved = hit and not missing
        head = f"{expr.text} = {_fmt(expr.value)}"
        if solved:
            obs = f"{head}. Correct!"
        elif hit:
            obs = f"{head}, but it does not use {_numbers_text(sorted(unused.elements()))}."
        else:
            obs = f"{head}, not {self.target}."
        if not solved and self.puzzle.solution:
            obs += f" One solution: {self.puzzle.solution} = {self.target}."
        return Outcome(obs, 1.0 if solved else 0.0, terminated=True, success=solved)

    def _apply_step(self, step: tuple[int, str, int]) -> Outcome:
        a, op, b = step
        result = apply_op(a, op, b)
        assert result is not None
        self.pool.remove(a)
        self.pool.remove(b)
        self.pool.append(result)
        self.pool.sort()
        self._steps.append(f"{a} {op} {b} = {result}")
        head = f"{a} {op} {b} = {result}."
        if self.use_all:
            solved = len(self.pool) == 1 and result == self.target
        else:
            solved = result == self.target
        done = solved or len(self.pool) == 1
        if solved:
            obs = f"{head} You made {self.target}. Solved!"
        elif done:
            obs = f"{head} No moves left and {result} is not {self.target}."
            if self.puzzle.solution:
                obs += f" One solution: {self.puzzle.solution} = {self.target}."
        else:
            obs = f"{head} Numbers left: {_numbers_text(self.pool)}. Target: {self.target}."
        return Outcome(obs, 1.0 if solved else 0.0, terminated=done, success=solved)

    def _legal_actions(self) -> list[str] | None:
        if self.mode == "single":
            return None
        steps: list[str] = []
        pool = self.pool
        for i in range(len(pool)):
            for j in range(len(pool)):
                if i == j:
                    continue
                for op in _OPS:
                    a, b = pool[i], pool[j]
                    if (op in "+*" and a < b) or apply_op(a, op, b) is None:
                        continue
                    text = format_step(a, op, b)
                    if text not in steps:
                        steps.append(text)
        return steps

    def _state_key(self) -> str:
        ended = "|done" if self._done else ""
        return f"{','.join(map(str, self.pool))}->{self.target}{ended}"

    def _extra_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"goal": str(self.target)}
        if self._done and self.puzzle.solution:
            info["solution"] = self.puzzle.solution
        return info

    def _render(self) -> str:
        lines = [f"Countdown ({self.mode}): numbers {_numbers_text(self.numbers)}, "]
        lines[0] += f"target {self.target}"
        lines += [f"  {s}" for s in self._steps]
        if self.mode == "multi":
            lines.append(f"Numbers left: {_numbers_text(self.pool)}")
        if self._done:
            lines.append("Solved." if self._success else "Not solved.")
        return "\n".join(lines)

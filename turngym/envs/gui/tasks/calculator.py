"""Task templates on the Calculator app: an addition, a chain of operations, a division.

Each one names a calculation; it is done when the display shows the result and the
History's last line records that very calculation (``"1234 + 567 = 1801"``), so typing
the answer's digits alone does not pass. Expected results are computed here, exactly,
independently of the app's arithmetic. The calculator starts with a few past
calculations in its history and the last one's result on its display.
"""

from __future__ import annotations

import decimal
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.gui.tasks.base import GUITask, pick

__all__ = ["AddNumbers", "ChainExpression", "DivideNumbers", "number"]

_KEYBOARD = "(buttons or keyboard: * is ×, / is ÷, Return is =)"
# b = 2**i * 5**j (i, j <= 4), b > 1: a ÷ b is a terminating decimal of at most 4 places.
_DIVISORS = tuple(sorted({2**i * 5**j for i in range(5) for j in range(5)} - {1}))


def number(value: Decimal | int) -> str:
    """A number as the calculator shows it: no exponent, no trailing zeros.

    >>> number(Decimal("2.50")), number(1700), number(Decimal("-0.125"))
    ('2.5', '1700', '-0.125')
    """
    value = Decimal(value)
    if value == 0:
        return "0"
    with decimal.localcontext(decimal.Context(prec=50)):
        return format(value.normalize(), "f")


def _goal(expression: str, result: str = "the result") -> str:
    """How the instruction says what done looks like."""
    return (
        f"so that the display shows {result} and the last line of the History list reads "
        f'"{expression} = <result>".'
    )


def _past_lines(rng: np.random.Generator, avoid: str) -> list[str]:
    """Zero to three earlier calculations for the history tape (never the task's own)."""
    lines = []
    for _ in range(int(rng.integers(0, 4))):
        x, y = (int(v) for v in rng.integers(2, 100, size=2))
        op = str(pick(rng, ("+", "-", "×")))
        result = x + y if op == "+" else x - y if op == "-" else x * y
        line = f"{x} {op} {y} = {number(result)}"
        if line != avoid:
            lines.append(line)
    return lines


class _Calculation(GUITask):
    """A calculation to do on the calculator: shared start state and check."""

    apps = ("calculator",)

    def _calculation(self, rng: np.random.Generator) -> dict[str, Any]:
        """The operands, ``expression`` (as the history writes it) and ``result``."""
        raise NotImplementedError

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """The calculation, and the history and display the calculator starts with."""
        params = self._calculation(rng)
        history = _past_lines(rng, f"{params['expression']} = {params['result']}")
        display = history[-1].rpartition(" = ")[2] if history else "0"
        return {**params, "history": history, "display": display}

    def config(self, params: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """The past history lines and the last result on the display."""
        return {"calculator": {"history": params["history"], "display": params["display"]}}

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """The display shows the result and the last history line is this calculation."""
        calc = state["calculator"]
        line = f"{params['expression']} = {params['result']}"
        return bool(
            calc["display"] == params["result"] and calc["history"] and calc["history"][-1] == line
        )


class AddNumbers(_Calculation):
    """Add two whole numbers of up to four digits."""

    name = "calc-add"
    max_turns = 15
    description = "add two numbers on the calculator"

    def _calculation(self, rng: np.random.Generator) -> dict[str, Any]:
        a, b = (int(v) for v in rng.integers(1, 10_000, size=2))
        return {"a": a, "b": b, "expression": f"{a} + {b}", "result": number(a + b)}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement: the sum and the history line it must leave."""
        expression = params["expression"]
        return f"In the Calculator, compute {expression} {_KEYBOARD}, {_goal(expression)}"


class ChainExpression(_Calculation):
    """Compute ``a × b - c`` as one chain of operations, with ``=`` only at the end."""

    name = "calc-expression"
    max_turns = 20
    description = "compute a × b - c as one chain of operations"

    def _calculation(self, rng: np.random.Generator) -> dict[str, Any]:
        a, b = (int(v) for v in rng.integers(12, 100, size=2))
        c = int(rng.integers(10, 10_000))  # sometimes more than a × b: a negative result
        expression = f"{a} × {b} - {c}"
        return {"a": a, "b": b, "c": c, "expression": expression, "result": number(a * b - c)}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement: the chain, in order, and the history line it must leave."""
        a, b, c, expression = params["a"], params["b"], params["c"], params["expression"]
        return (
            f"In the Calculator, compute {expression} as one chain {_KEYBOARD}: enter {a}, ×, "
            f"{b}, -, {c}, then = (press = only at the end), {_goal(expression)}"
        )


class DivideNumbers(_Calculation):
    """Divide a whole number by one whose quotient is a terminating decimal."""

    name = "calc-divide"
    max_turns = 15
    description = "divide two numbers on the calculator, with a decimal result"

    def _calculation(self, rng: np.random.Generator) -> dict[str, Any]:
        b = int(pick(rng, _DIVISORS))
        a = int(rng.integers(1, 10_000))
        if a % b == 0:
            a += 1  # a decimal, not a whole number
        expression = f"{a} ÷ {b}"
        return {"a": a, "b": b, "expression": expression, "result": number(Decimal(a) / b)}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement: the division and the history line it must leave."""
        expression = params["expression"]
        goal = _goal(expression, "the exact decimal result")
        return f"In the Calculator, compute {expression} {_KEYBOARD}, {goal}"

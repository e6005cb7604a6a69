"""Oracles of the Calculator templates (``calc-add``, ``calc-expression``, ``calc-divide``).

``calc-add`` and ``calc-divide`` click the keypad's buttons by name; ``calc-expression``
types the chain on the keyboard, so both ways into the app are exercised.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from turngym.agents.experts.gui.screen import Screen, key, type_text

__all__ = ["SOLVERS"]


def _click_keys(keys: list[str], screen: Screen) -> Generator[str, Screen, None]:
    for name in keys:
        screen = yield screen.click("button", name)


def add(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Click a's digits, +, b's digits, =."""
    yield from _click_keys([*str(p["a"]), "+", *str(p["b"]), "="], screen)


def divide(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Click a's digits, ÷, b's digits, =."""
    yield from _click_keys([*str(p["a"]), "÷", *str(p["b"]), "="], screen)


def expression(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Point at the display (the keyboard follows the pointer), type ``a*b-c``, Return."""
    screen = yield screen.click("label", "Display")
    screen = yield type_text(f"{p['a']}*{p['b']}-{p['c']}")
    yield key("Return")


SOLVERS = {
    "calc-add": add,
    "calc-expression": expression,
    "calc-divide": divide,
}
"""Template name -> solver."""

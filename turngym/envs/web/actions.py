"""Web actions as function-call strings, parsed without ``eval``.

An agent acts on a page with one call such as ``click(12)``, ``fill(7, "red shoes")``
or ``press("Enter")``; ``parse_action`` turns the text into a ``WebAction`` or an
``Invalid`` that says what is wrong. The text is parsed by Python's ``ast`` into a
syntax tree and only a bare call of a known action whose arguments are literal numbers
or quoted strings is accepted: nothing is evaluated, so ``click(__import__('os'))``
is rejected like any other malformed action, and overlong text is refused before it
is parsed.

The actions (``ACTIONS``; element ids are the ``[12]`` numbers of the observation):

- ``click(id)``, ``fill(id, "text")``, ``select(id, "option")``: act on an element;
- ``press("Enter")``: a key (or a chord such as ``"Control+a"``);
- ``scroll(dx, dy)``: scroll the page by pixels;
- ``goto("http://127.0.0.1:8000/cart")``: open a URL (the env allows loopback only);
- ``back()``, ``noop()``: go back, do nothing (``back`` and ``noop`` also bare);
- ``answer("...")``: end the task with an answer;
- ``mouse_click(x, y)``: click at page coordinates, for GUI-style agents.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from dataclasses import dataclass
from typing import Any

from turngym.calls import Kind, Param, parse_call
from turngym.core import Invalid, read_int

__all__ = [
    "ACTIONS",
    "ELEMENT_ID",
    "MAX_ACTION_CHARS",
    "WebAction",
    "is_loopback_url",
    "parse_action",
]


def _element_id(value: object) -> int | None:
    if isinstance(value, list) and len(value) == 1:  # click([12]): the id as shown
        value = value[0]
    if isinstance(value, str):  # click("12"), click("[12]")
        digits = value.strip().strip("[]")
        return read_int(digits) if digits.isdecimal() else None
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None  # type: ignore[return-value]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: object) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and abs(value) < 1e9
    return float(value) if ok else None  # type: ignore[arg-type]


ELEMENT_ID = Kind("element id", _element_id, " (the [N] number)")
"""An element's ``[N]`` id in the observation."""
_TEXT = Kind("text", _text, " in quotes")
_NUMBER = Kind("number", _number)

ACTIONS: dict[str, tuple[Param, ...]] = {
    "click": (Param("id", ELEMENT_ID),),
    "fill": (Param("id", ELEMENT_ID), Param("text", _TEXT)),
    "select": (Param("id", ELEMENT_ID), Param("option", _TEXT)),
    "press": (Param("key", _TEXT),),
    "scroll": (Param("dx", _NUMBER), Param("dy", _NUMBER)),
    "goto": (Param("url", _TEXT),),
    "back": (),
    "answer": (Param("text", _TEXT),),
    "noop": (),
    "mouse_click": (Param("x", _NUMBER), Param("y", _NUMBER)),
}
"""Each action's parameters, in order."""

MAX_ACTION_CHARS = 8192
"""Longer action text is refused before parsing (a form field rarely needs more)."""


@dataclass(frozen=True)
class WebAction:
    """A parsed action: its name and its arguments, typed (ids int, numbers float).

    >>> parse_action('fill(7, "red shoes")')
    WebAction(name='fill', args=(7, 'red shoes'))
    """

    name: str
    args: tuple[Any, ...] = ()

    def __str__(self) -> str:
        """The canonical call text, e.g. ``fill(7, "red shoes")``."""
        parts = [repr(a).replace("'", '"') if isinstance(a, str) else _num(a) for a in self.args]
        return f"{self.name}({', '.join(parts)})"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def parse_action(text: object) -> WebAction | Invalid:
    """The ``WebAction`` that ``text`` calls, or an ``Invalid`` saying what is wrong.

    >>> parse_action("click(12)")
    WebAction(name='click', args=(12,))
    >>> parse_action("scroll(0, -300)")
    WebAction(name='scroll', args=(0.0, -300.0))
    >>> parse_action("back")
    WebAction(name='back', args=())
    >>> parse_action("click(__import__('os'))").reason
    "click: id must be a literal element id (the [N] number), got __import__('os')"
    """
    parsed = parse_call(text, ACTIONS, max_chars=MAX_ACTION_CHARS)
    if isinstance(parsed, Invalid):
        return parsed
    name, args = parsed
    return WebAction(name, tuple(args[p.name] for p in ACTIONS[name]))


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` is an http(s) URL on this machine (127.0.0.0/8, ::1, localhost).

    >>> is_loopback_url("http://127.0.0.1:8000/cart"), is_loopback_url("https://example.com")
    (True, False)
    """
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return False
    if parts.scheme not in ("http", "https"):
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False

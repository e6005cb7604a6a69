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

import ast
import ipaddress
import urllib.parse
from dataclasses import dataclass
from typing import Any

from turngym.core import Invalid

__all__ = [
    "ACTIONS",
    "MAX_ACTION_CHARS",
    "WebAction",
    "is_loopback_url",
    "parse_action",
]

_ID, _TEXT, _NUMBER = "element id", "text", "number"
ACTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "click": (("id", _ID),),
    "fill": (("id", _ID), ("text", _TEXT)),
    "select": (("id", _ID), ("option", _TEXT)),
    "press": (("key", _TEXT),),
    "scroll": (("dx", _NUMBER), ("dy", _NUMBER)),
    "goto": (("url", _TEXT),),
    "back": (),
    "answer": (("text", _TEXT),),
    "noop": (),
    "mouse_click": (("x", _NUMBER), ("y", _NUMBER)),
}
"""Each action's parameters, in order, as (name, kind)."""

MAX_ACTION_CHARS = 8192
"""Longer action text is refused before parsing (a form field rarely needs more)."""

_USAGE = ", ".join(f"{name}({', '.join(p for p, _ in params)})" for name, params in ACTIONS.items())


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
    if not isinstance(text, str):
        return Invalid(f"an action is a string such as click(12), got {type(text).__name__}")
    if len(text) > MAX_ACTION_CHARS:
        return Invalid(f"action too long ({len(text)} characters; at most {MAX_ACTION_CHARS})")
    source = text.strip().strip("`").strip()
    if source in ACTIONS and not ACTIONS[source]:
        return WebAction(source)  # "back", "noop" without parentheses
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Invalid(f"not a single action call ({_short(source)}); use one of: {_USAGE}")
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return Invalid(f"not a single action call ({_short(source)}); use one of: {_USAGE}")
    name = call.func.id
    if name not in ACTIONS:
        return Invalid(f"unknown action {name!r}; use one of: {_USAGE}")
    return _bind(name, call)


def _bind(name: str, call: ast.Call) -> WebAction | Invalid:
    """Match the call's arguments to the action's parameters and type them."""
    params = ACTIONS[name]
    usage = f"{name}({', '.join(p for p, _ in params)})"
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return Invalid(f"{name}: no * or ** arguments; use {usage}")
    nodes: dict[str, ast.expr] = {}
    if len(call.args) > len(params):
        return Invalid(f"{name} takes {len(params)} argument(s), got {len(call.args)}; use {usage}")
    for (param, _), node in zip(params, call.args, strict=False):
        nodes[param] = node
    for keyword in call.keywords:
        known = [p for p, _ in params]
        if keyword.arg not in known:
            return Invalid(f"{name} has no argument {keyword.arg!r}; use {usage}")
        if keyword.arg in nodes:
            return Invalid(f"{name}: {keyword.arg} given twice; use {usage}")
        nodes[str(keyword.arg)] = keyword.value
    missing = [p for p, _ in params if p not in nodes]
    if missing:
        return Invalid(f"{name}: missing {', '.join(missing)}; use {usage}")
    args = []
    for param, kind in params:
        value = _literal(nodes[param])
        typed = _typed(value, kind)
        if typed is None:
            shown = ast.unparse(nodes[param])
            return Invalid(
                f"{name}: {param} must be a literal {kind}{_hint(kind)}, got {_short(shown)}"
            )
        args.append(typed)
    return WebAction(name, tuple(args))


def _literal(node: ast.expr) -> object:
    """The value of a literal number or string node (a sign allowed), else a sentinel."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _literal(node.operand)
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return -inner if isinstance(node.op, ast.USub) else inner
        return _NOT_LITERAL
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | float):
        return node.value
    if isinstance(node, ast.List) and len(node.elts) == 1:  # click([12]): the id as shown
        return _literal(node.elts[0])
    return _NOT_LITERAL


_NOT_LITERAL = object()


def _typed(value: object, kind: str) -> Any:
    """``value`` as ``kind`` wants it, or None when it cannot be."""
    if value is _NOT_LITERAL or isinstance(value, bool):
        return None
    if kind == _TEXT:
        return value if isinstance(value, str) else None
    if kind == _ID:
        if isinstance(value, str) and value.strip().strip("[]").isdigit():
            return int(value.strip().strip("[]"))
        return value if isinstance(value, int) and value >= 0 else None
    number = value if isinstance(value, int | float) else None
    return float(number) if number is not None and abs(number) < 1e9 else None


def _hint(kind: str) -> str:
    return " (the [N] number)" if kind == _ID else " in quotes" if kind == _TEXT else ""


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


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

r"""GUI actions in the computer-use style, parsed without ``eval``.

An agent acts on a screen with one call per turn (``turngym.calls`` parses it; nothing
is evaluated). Positions are screen pixels ``(x, y)`` from the top-left corner, or,
for the click family, the ``[N]`` index of a widget in the observation's widget list
(``click(4)`` clicks its centre):

- ``click(x, y)`` / ``click(index)``, ``double_click(...)``, ``right_click(...)``;
- ``drag(x1, y1, x2, y2)``: press at the first point, move, release at the second;
- ``move(x, y)``: move the pointer;
- ``type("text")``: type text (``\n`` is Return, ``\t`` Tab);
- ``key("ctrl+s")``: a key or chord, ``+``-joined (``Return``, ``ctrl+shift+z``, ``F2``);
- ``scroll(x, y, dy)``: wheel at a point, ``dy`` notches (negative: up);
- ``wait()``: do nothing this turn; ``done()``: the task is finished; ``fail()``: it
  cannot be done. The three also come bare (``done``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from turngym.calls import Kind, Param, parse_call
from turngym.core import Invalid

__all__ = ["ACTIONS", "ACTION_HELP", "MAX_ACTION_CHARS", "GUIAction", "parse_action"]


def _coordinate(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or abs(value) > 1e6:  # NaN, or nothing like a pixel
        return None
    return round(value)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _notches(value: object) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and -50 <= value <= 50
    return value if ok else None  # type: ignore[return-value]


_XY = Kind("pixel coordinate", _coordinate)
_TEXT = Kind("text", _text, " in quotes")
_NOTCHES = Kind("whole number", _notches, " of wheel notches in -50..50")
_POINT = (Param("x", _XY), Param("y", _XY, None))

ACTIONS: dict[str, tuple[Param, ...]] = {
    "click": _POINT,
    "double_click": _POINT,
    "right_click": _POINT,
    "drag": (Param("x1", _XY), Param("y1", _XY), Param("x2", _XY), Param("y2", _XY)),
    "move": (Param("x", _XY), Param("y", _XY)),
    "type": (Param("text", _TEXT),),
    "key": (Param("keys", _TEXT),),
    "scroll": (Param("x", _XY), Param("y", _XY), Param("dy", _NOTCHES)),
    "wait": (),
    "done": (),
    "fail": (),
}
"""Each action's parameters, in order (a click's ``y`` is absent for ``click(index)``)."""

ACTION_HELP = (
    "Act with one call per turn: click(x, y) or click(index), double_click(...), "
    'right_click(...), drag(x1, y1, x2, y2), move(x, y), type("text"), key("ctrl+s"), '
    "scroll(x, y, dy), wait(), done() when finished, fail() if it cannot be done. "
    "x, y are screen pixels; index is a widget's [N] below."
)
MAX_ACTION_CHARS = 4096
"""Longer action text is refused before it is parsed."""
MAX_TYPE_CHARS = 1000
"""``type`` writes at most this many characters in one turn."""


@dataclass(frozen=True)
class GUIAction:
    """A parsed action: its name and typed arguments.

    ``args`` are ints for positions (a click on a widget has one, its index), a str for
    ``type``/``key``.

    >>> parse_action("click(640, 400)")
    GUIAction(name='click', args=(640, 400))
    >>> parse_action("click(3)")
    GUIAction(name='click', args=(3,))
    """

    name: str
    args: tuple[Any, ...] = ()

    def __str__(self) -> str:
        """The canonical call text, e.g. ``type("hello")``."""
        parts = [f'"{_escape(a)}"' if isinstance(a, str) else str(a) for a in self.args]
        return f"{self.name}({', '.join(parts)})"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


_CALL_NAME = re.compile(r"\s*([A-Za-z_]+)")


def _lower_call_name(text: str) -> str:
    """``CLICK(3)`` -> ``click(3)``: actions are lenient about case (their text is not)."""
    match = _CALL_NAME.match(text)
    if match is None:
        return text
    name = match.group(1)
    lower = name.lower()
    if lower == name or lower not in ACTIONS:
        return text
    return text[: match.start(1)] + lower + text[match.end(1) :]


def parse_action(text: object) -> GUIAction | Invalid:
    """The ``GUIAction`` that ``text`` calls, or an ``Invalid`` saying what is wrong.

    >>> parse_action('type("hi")')
    GUIAction(name='type', args=('hi',))
    >>> parse_action("done")
    GUIAction(name='done', args=())
    >>> parse_action("click(1, 2, 3)").reason
    'click takes 2 argument(s), got 3; use click(x, y?)'
    """
    if isinstance(text, str):
        text = _lower_call_name(text)
    parsed = parse_call(text, ACTIONS, max_chars=MAX_ACTION_CHARS, json_calls=True)
    if isinstance(parsed, Invalid):
        return parsed
    name, args = parsed
    values = tuple(args[p.name] for p in ACTIONS[name])
    if name in ("click", "double_click", "right_click") and values[1] is None:
        if values[0] < 0:
            return Invalid(f"{name}: a widget index is >= 0, got {values[0]}")
        values = values[:1]
    if name == "type":
        if not values[0]:
            return Invalid('type: the text is empty; write type("...")')
        if len(values[0]) > MAX_TYPE_CHARS:
            return Invalid(f"type: at most {MAX_TYPE_CHARS} characters a turn")
    if name == "key" and not values[0].strip():
        return Invalid('key: no key given; write e.g. key("Return") or key("ctrl+s")')
    return GUIAction(name, values)

"""What a GUI oracle sees of the screen (``Screen``) and the actions it writes.

A solver is a generator over one episode: it yields an action string, and gets back
the ``Screen`` after it (``screen = yield screen.click("button", "Save")``). It finds
widgets by role and accessible name in the same widget list the agent's observation
shows, and clicks their centres by pixel coordinates, as a computer-use agent would.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

__all__ = ["Screen", "Solver", "key", "type_text"]


class OracleError(RuntimeError):
    """A solver did not find what it expected on the screen."""


class Screen:
    """The widgets on screen now (``info["widgets"]``), with lookups for solvers."""

    def __init__(self, widgets: Sequence[Mapping[str, Any]]) -> None:
        self.widgets = [dict(w) for w in widgets]

    def find(
        self,
        role: str | None = None,
        name: str | None = None,
        *,
        app: str | None = None,
        **fields: Any,
    ) -> dict[str, Any] | None:
        """The first widget with this role, name, app and fields, or None."""
        for widget in self.widgets:
            if role is not None and widget["role"] != role:
                continue
            if name is not None and widget["name"] != name:
                continue
            if app is not None and widget.get("app") != app:
                continue
            if any(widget.get(k) != v for k, v in fields.items()):
                continue
            return widget
        return None

    def get(
        self, role: str | None = None, name: str | None = None, **fields: Any
    ) -> dict[str, Any]:
        """Like ``find``, but a missing widget is an ``OracleError``."""
        widget = self.find(role, name, **fields)
        if widget is None:
            raise OracleError(f"oracle: no {role or 'widget'} {name!r} {fields or ''} on screen")
        return widget

    def click(self, role: str | None = None, name: str | None = None, **fields: Any) -> str:
        """``click(x, y)`` on the centre of the widget found by ``get``."""
        x, y = self.center(self.get(role, name, **fields))
        return f"click({x}, {y})"

    def double_click(self, role: str | None = None, name: str | None = None, **fields: Any) -> str:
        """``double_click(x, y)`` on the centre of a widget."""
        x, y = self.center(self.get(role, name, **fields))
        return f"double_click({x}, {y})"

    @staticmethod
    def center(widget: Mapping[str, Any]) -> tuple[int, int]:
        """The centre pixel of a widget's box."""
        return widget["x"] + widget["w"] // 2, widget["y"] + widget["h"] // 2


def type_text(text: str) -> str:
    """``type("...")`` with ``text`` quoted as JSON (a newline as an escaped n)."""
    return f"type({json.dumps(text, ensure_ascii=False)})"


def key(chord: str) -> str:
    """``key("ctrl+s")``."""
    return f"key({json.dumps(chord)})"


Solver = Callable[[Mapping[str, Any], Screen], Generator[str, Screen, None]]
"""A template's oracle: ``solver(params, first_screen)`` yields actions, receives screens."""

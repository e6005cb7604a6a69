"""Oracles of the Notes templates (``notes-create``, ``-append``, ``-delete``, ``-rename``)."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from turngym.agents.experts.gui.screen import Screen, key, type_text

__all__ = ["SOLVERS"]


def _open(title: str, screen: Screen) -> Generator[str, Screen, Screen]:
    screen = yield screen.click("listitem", title)
    return screen


def create(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """New, title, body, Ctrl+S."""
    screen = yield screen.click("button", "New")
    screen = yield screen.click("entry", "Title")
    screen = yield type_text(p["title"])
    screen = yield screen.click("text", "Body")
    screen = yield type_text(p["body"])
    yield key("ctrl+s")


def append(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Open the note, go to the end of its text, type a new line, save."""
    screen = yield from _open(p["title"], screen)
    screen = yield screen.click("text", "Body")
    screen = yield key("ctrl+End")
    screen = yield type_text("\n" + p["line"])
    yield screen.click("button", "Save")


def delete(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Open the note, Delete."""
    screen = yield from _open(p["title"], screen)
    yield screen.click("button", "Delete")


def rename(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Open the note, replace the title, save."""
    screen = yield from _open(p["title"], screen)
    screen = yield screen.click("entry", "Title")
    screen = yield key("ctrl+a")  # Tk's entry: start of line
    screen = yield key("ctrl+k")  # delete to the end
    screen = yield type_text(p["new"])
    yield key("ctrl+s")


SOLVERS = {
    "notes-create": create,
    "notes-append": append,
    "notes-delete": delete,
    "notes-rename": rename,
}
"""Template name -> solver."""

"""Oracles of the Files templates (``files-rename``, ``-delete``, ``-mkdir``, ``-move``)."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from turngym.agents.experts.gui.screen import Screen, type_text

__all__ = ["SOLVERS"]

ENTRIES = "Entries"
"""The accessible name of the app's list of the current folder's entries."""


def _go_to(folder: str, screen: Screen) -> Generator[str, Screen, Screen]:
    """From ``files/``, double-click each folder of ``folder`` (``files/a/b``) in turn."""
    for part in folder.split("/")[1:]:
        screen = yield screen.double_click("listitem", f"{part}/", list=ENTRIES)
    return screen


def _select(path: str, screen: Screen) -> Generator[str, Screen, Screen]:
    """Open the folder of ``path`` and select its row."""
    folder, name = path.rsplit("/", 1)
    screen = yield from _go_to(folder, screen)
    screen = yield screen.click("listitem", name, list=ENTRIES)
    return screen


def rename(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Select the file, type the new name in Name, Rename."""
    screen = yield from _select(p["path"], screen)
    screen = yield screen.click("entry", "Name")
    screen = yield type_text(p["new"])
    yield screen.click("button", "Rename")


def delete(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Select the file, Delete."""
    screen = yield from _select(p["path"], screen)
    yield screen.click("button", "Delete")


def mkdir(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Open the parent folder, type the name in Name, New folder."""
    screen = yield from _go_to(p["parent"], screen)
    screen = yield screen.click("entry", "Name")
    screen = yield type_text(p["folder"])
    yield screen.click("button", "New folder")


def move(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Select the file, Move to..., pick the target folder in the dialog, Move."""
    screen = yield from _select(p["path"], screen)
    screen = yield screen.click("button", "Move to...")
    screen = yield screen.click("listitem", f"{p['target']}/", list="Destination")
    yield screen.click("button", "Move")


SOLVERS = {
    "files-rename": rename,
    "files-delete": delete,
    "files-mkdir": mkdir,
    "files-move": move,
}
"""Template name -> solver."""

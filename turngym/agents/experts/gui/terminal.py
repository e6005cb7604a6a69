"""Oracles of the terminal templates: shell commands typed into the xterm, then the app.

The terminal's text is only on the screenshot, so where a task needs the output of a
command (a line count) the oracle knows the answer from the episode's parameters.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from turngym.agents.experts.gui.screen import Screen, key, type_text

__all__ = ["SOLVERS"]


def _shell(screen: Screen, command: str) -> Generator[str, Screen, Screen]:
    """Click the terminal, type ``command`` and Return, then let it run."""
    screen = yield screen.click("terminal")
    screen = yield type_text(command + "\n")
    screen = yield "wait()"
    return screen


def make_file(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Write the line into the file with printf."""
    yield from _shell(screen, f"printf '%s\\n' '{p['line']}' > {p['file']}")


def count(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Count with `wc -l` in the terminal, then a new note with the number."""
    screen = yield from _shell(screen, "wc -l < data/records.csv")
    screen = yield screen.click("button", "New", app="notes")
    screen = yield screen.click("entry", "Title")
    screen = yield type_text(p["title"])
    screen = yield screen.click("text", "Body")
    screen = yield type_text(str(p["rows"]))
    yield key("ctrl+s")


def note_from_terminal(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Write the note file with printf, Refresh in Notes, open it, append, save."""
    screen = yield from _shell(screen, f"printf '%s\\n' '{p['first']}' > notes/{p['title']}.txt")
    screen = yield screen.click("button", "Refresh", app="notes")
    screen = yield screen.click("listitem", p["title"])
    screen = yield screen.click("text", "Body")
    screen = yield key("ctrl+End")  # after the file's final newline: a new line already
    screen = yield type_text(p["second"])
    yield key("ctrl+s")


SOLVERS = {
    "terminal-file": make_file,
    "terminal-count": count,
    "terminal-notes": note_from_terminal,
}
"""Template name -> solver."""

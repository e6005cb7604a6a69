"""Oracles of the Settings templates: ``settings-profile``, ``-theme``, ``-language``, ``-font``."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from turngym.agents.experts.gui.screen import Screen, key, type_text
from turngym.envs.gui.apps.settings_file import CHECKBOXES

__all__ = ["SOLVERS"]


def _replace(role: str, name: str, text: str, screen: Screen) -> Generator[str, Screen, Screen]:
    """Click a field, empty it (Tk: ctrl+a goes to the line's start, ctrl+k cuts the rest), type."""
    screen = yield screen.click(role, name)
    screen = yield key("ctrl+a")
    screen = yield key("ctrl+k")
    screen = yield type_text(text)
    return screen


def profile(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Replace the full name and the email, Save."""
    new = p["changes"]
    screen = yield from _replace("entry", "Full name", new["full_name"], screen)
    screen = yield from _replace("entry", "Email", new["email"], screen)
    yield screen.click("button", "Save")


def theme(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Click the theme's radio button and each checkbox not yet as asked, Save."""
    new = p["changes"]
    screen = yield screen.click("radio", new["theme"])
    for field, label in CHECKBOXES.items():
        if field in new and (screen.get("checkbox", label)["value"] == "checked") != new[field]:
            screen = yield screen.click("checkbox", label)
    yield screen.click("button", "Save")


def language(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Open the Language menu (the menubutton that shows the current one), pick, Save."""
    screen = yield screen.click("menubutton", p["start"]["language"])
    screen = yield screen.click("menuitem", p["changes"]["language"])
    yield screen.click("button", "Save")


def font(p: Mapping[str, Any], screen: Screen) -> Generator[str, Screen, None]:
    """Replace the spinbox's number, Save."""
    size = str(p["changes"]["font_size"])
    screen = yield from _replace("spinbox", "Font size", size, screen)
    yield screen.click("button", "Save")


SOLVERS = {
    "settings-profile": profile,
    "settings-theme": theme,
    "settings-language": language,
    "settings-font": font,
}
"""Template name -> solver."""

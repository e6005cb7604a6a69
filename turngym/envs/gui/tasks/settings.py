"""Task templates on the Settings app: change the profile, theme, language or font size.

Each episode starts from a seeded ``settings.json`` (``params["start"]``); a template
asks for a few changes (``params["changes"]``, each one differs from the start), and the
check reads the file back: exactly the changes, every other setting as it started.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.gui.apps import settings_file as fmt
from turngym.envs.gui.tasks.base import GUITask, pick, words

__all__ = ["ChangeFontSize", "ChangeLanguage", "ChangeProfile", "ChangeTheme"]

_TLDS = ("com", "org", "net")
_KEEP = "Leave every other setting as it is."


def _person(rng: np.random.Generator) -> tuple[str, str]:
    """A full name and a matching email address, e.g. ("Amber Cedar", "amber.cedar@reef.org")."""
    first, last, domain = words(rng, 3)
    return f"{first.title()} {last.title()}", f"{first}.{last}@{domain}.{pick(rng, _TLDS)}"


def _other(rng: np.random.Generator, options: tuple[Any, ...] | range, current: Any) -> Any:
    """One of ``options`` other than ``current``."""
    return pick(rng, [o for o in options if o != current])


class _SettingsTask(GUITask):
    """What every Settings template shares: the seeded file, and the check."""

    apps = ("settings",)

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """A starting file and this template's changes to it."""
        name, email = _person(rng)
        start = {
            "full_name": name,
            "email": email,
            "language": pick(rng, fmt.LANGUAGES),
            "theme": pick(rng, fmt.THEMES),
            "font_size": int(rng.integers(10, 17)),
            **{key: bool(rng.integers(2)) for key in fmt.CHECKBOXES},
        }
        return {"start": start, "changes": self.changes(rng, start)}

    def changes(self, rng: np.random.Generator, start: Mapping[str, Any]) -> dict[str, Any]:
        """The settings to change (key -> new value), each different from ``start``."""
        raise NotImplementedError

    def setup(self, params: Mapping[str, Any], workdir: Path) -> None:
        """Write the starting ``settings.json``."""
        (workdir / fmt.FILENAME).write_text(fmt.dumps(params["start"]), encoding="utf-8")

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """``settings.json`` holds the start with exactly the requested changes."""
        want = {**params["start"], **params["changes"]}
        return fmt.read(workdir / fmt.FILENAME) == want


class ChangeProfile(_SettingsTask):
    """Set the full name and the email address, and save."""

    name = "settings-profile"
    max_turns = 15
    description = "replace the full name and email in a settings form, save"

    def changes(self, rng: np.random.Generator, start: Mapping[str, Any]) -> dict[str, Any]:
        """A new name and email (both differ from the start)."""
        while True:
            name, email = _person(rng)
            if name != start["full_name"] and email != start["email"]:
                return {"full_name": name, "email": email}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement: the two new values."""
        new = params["changes"]
        return (
            f'In the Settings app, set "Full name" to "{new["full_name"]}" and "Email" to '
            f'"{new["email"]}", then save. {_KEEP}'
        )


class ChangeTheme(_SettingsTask):
    """Pick a theme and turn some checkboxes on or off, and save."""

    name = "settings-theme"
    max_turns = 12
    description = "choose a theme radio button and set checkboxes in a settings form, save"

    def changes(self, rng: np.random.Generator, start: Mapping[str, Any]) -> dict[str, Any]:
        """Another theme; one to three checkboxes, the first of them flipped."""
        keys = list(fmt.CHECKBOXES)
        chosen = sorted(rng.choice(len(keys), size=int(rng.integers(1, 4)), replace=False))
        changes: dict[str, Any] = {"theme": _other(rng, fmt.THEMES, start["theme"])}
        for n, i in enumerate(chosen):
            key = keys[int(i)]
            changes[key] = not start[key] if n == 0 else bool(rng.integers(2))
        return changes

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement, e.g. ``choose the theme "Dark", turn "Auto-save" on ...``."""
        new = params["changes"]
        boxes = [
            f'"{label}" {"on" if new[key] else "off"}'
            for key, label in fmt.CHECKBOXES.items()
            if key in new
        ]
        turns = boxes[0] if len(boxes) == 1 else ", ".join(boxes[:-1]) + " and " + boxes[-1]
        return (
            f'In the Settings app, choose the theme "{new["theme"]}", turn {turns}, '
            f"then save. {_KEEP}"
        )


class ChangeLanguage(_SettingsTask):
    """Choose a language from the Language menu, and save."""

    name = "settings-language"
    max_turns = 10
    description = "choose a language from an option menu in a settings form, save"

    def changes(self, rng: np.random.Generator, start: Mapping[str, Any]) -> dict[str, Any]:
        """Another language."""
        return {"language": _other(rng, fmt.LANGUAGES, start["language"])}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement, e.g. ``set "Language" to "German"``."""
        return (
            f'In the Settings app, set "Language" to "{params["changes"]["language"]}", '
            f"then save. {_KEEP}"
        )


class ChangeFontSize(_SettingsTask):
    """Set the font size, and save."""

    name = "settings-font"
    max_turns = 10
    description = "set a spinbox's number in a settings form, save"

    def changes(self, rng: np.random.Generator, start: Mapping[str, Any]) -> dict[str, Any]:
        """Another allowed size (8..32)."""
        return {"font_size": int(_other(rng, fmt.FONT_SIZES, start["font_size"]))}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement, e.g. ``set "Font size" to 14``."""
        return (
            f'In the Settings app, set "Font size" to {params["changes"]["font_size"]}, '
            f"then save. {_KEEP}"
        )

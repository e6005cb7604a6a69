"""The bundled desktop apps (Tk), each run as its own process on the env's display.

``APPS`` maps an app's name to its ``module:Class``; ``python -m turngym.envs.gui.apps
<name> ...`` runs one (``client.AppProcess`` does that for the env). ``text_digest`` is
how an app names, in its state, a text it wrote or read, so that a check can tell
whether a file holds what the app itself saved.
"""

from __future__ import annotations

import hashlib

__all__ = ["APPS", "text_digest"]

APPS: dict[str, str] = {
    "files": "turngym.envs.gui.apps.files:FilesApp",
    "calculator": "turngym.envs.gui.apps.calculator:CalculatorApp",
    "notes": "turngym.envs.gui.apps.notes:NotesApp",
    "settings": "turngym.envs.gui.apps.settings:SettingsApp",
}
"""App name -> ``module:Class`` of its ``TkApp``."""


def text_digest(text: str) -> str:
    """The SHA-256 (hex) of ``text`` as UTF-8: a fixed-size stand-in for a note's text.

    >>> text_digest("42")[:12]
    '73475cb40a56'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

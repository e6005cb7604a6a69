"""The bundled desktop apps (Tk), each run as its own process on the env's display.

``APPS`` maps an app's name to its ``module:Class``; ``python -m turngym.envs.gui.apps
<name> ...`` runs one (``client.AppProcess`` does that for the env).
"""

from __future__ import annotations

__all__ = ["APPS"]

APPS: dict[str, str] = {
    "files": "turngym.envs.gui.apps.files:FilesApp",
    "calculator": "turngym.envs.gui.apps.calculator:CalculatorApp",
    "notes": "turngym.envs.gui.apps.notes:NotesApp",
    "settings": "turngym.envs.gui.apps.settings:SettingsApp",
}
"""App name -> ``module:Class`` of its ``TkApp``."""

"""The desktop task templates: ``TASKS`` maps a template's name to its class.

The table holds import strings only (the registry reads it on ``import turngym``);
``load_task(name)`` imports and builds one.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from turngym.envs.gui.tasks.base import GUITask

__all__ = ["TASKS", "load_task"]

TASKS: dict[str, str] = {
    "notes-create": "turngym.envs.gui.tasks.notes:CreateNote",
    "notes-append": "turngym.envs.gui.tasks.notes:AppendToNote",
    "notes-delete": "turngym.envs.gui.tasks.notes:DeleteNote",
    "notes-rename": "turngym.envs.gui.tasks.notes:RenameNote",
    "files-delete": "turngym.envs.gui.tasks.files:DeleteFile",
    "files-mkdir": "turngym.envs.gui.tasks.files:MakeFolder",
    "files-move": "turngym.envs.gui.tasks.files:MoveFile",
    "files-rename": "turngym.envs.gui.tasks.files:RenameFile",
    "settings-profile": "turngym.envs.gui.tasks.settings:ChangeProfile",
    "settings-theme": "turngym.envs.gui.tasks.settings:ChangeTheme",
    "settings-language": "turngym.envs.gui.tasks.settings:ChangeLanguage",
    "settings-font": "turngym.envs.gui.tasks.settings:ChangeFontSize",
    "calc-add": "turngym.envs.gui.tasks.calculator:AddNumbers",
    "calc-expression": "turngym.envs.gui.tasks.calculator:ChainExpression",
    "calc-divide": "turngym.envs.gui.tasks.calculator:DivideNumbers",
    "terminal-file": "turngym.envs.gui.tasks.terminal:TerminalFile",
    "terminal-count": "turngym.envs.gui.tasks.terminal:CountWithTerminal",
    "terminal-notes": "turngym.envs.gui.tasks.terminal:TerminalThenNotes",
}
"""Template name -> ``module:Class`` of its ``GUITask``."""


def load_task(name: str) -> GUITask:
    """The template called ``name``; ``ValueError`` lists the known ones."""
    if name not in TASKS:
        raise ValueError(f"unknown GUI task {name!r}; known tasks: {', '.join(sorted(TASKS))}")
    module, _, cls = TASKS[name].partition(":")
    task: GUITask = getattr(importlib.import_module(module), cls)()
    return task

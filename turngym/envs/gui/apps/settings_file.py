"""The ``settings.json`` format, shared by the Settings app and its task templates.

A settings file is one JSON object with exactly the keys of ``FIELDS``: ``full_name``
and ``email`` (str), ``language`` (one of ``LANGUAGES``), ``theme`` (one of
``THEMES``), ``font_size`` (int in ``FONT_SIZES``) and the ``CHECKBOXES`` (bool).
This module imports no Tk, so the task catalog can read it without a display.

The file lies in the agent's folder: it is read and written through `confined.Folder`
(never through a link, never a FIFO or a device, at most `FILE_LIMIT` bytes read).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from turngym.host.confined import Folder, PathRefused

__all__ = [
    "CHECKBOXES",
    "DEFAULTS",
    "FIELDS",
    "FILENAME",
    "FONT_SIZES",
    "LABELS",
    "LANGUAGES",
    "THEMES",
    "dumps",
    "email_error",
    "font_size_error",
    "read",
    "read_why",
    "write",
]

FILENAME = "settings.json"
"""The file's name in the workdir."""
FILE_LIMIT = 64_000
"""The largest settings file (bytes) that is read."""
LANGUAGES = ("English", "French", "German", "Spanish", "Italian", "Portuguese")
"""The Language menu's entries, in menu order."""
THEMES = ("Light", "Dark", "System")
"""The Theme radio buttons, left to right."""
FONT_SIZES = range(8, 33)
"""Allowed font sizes (8..32)."""
CHECKBOXES = {
    "email_notifications": "Email notifications",
    "auto_save": "Auto-save",
    "show_line_numbers": "Show line numbers",
}
"""Boolean key -> its checkbox's label."""
LABELS = {
    "full_name": "Full name",
    "email": "Email",
    "language": "Language",
    "theme": "Theme",
    "font_size": "Font size",
    **CHECKBOXES,
}
"""Every key -> the label the form shows for it."""
FIELDS = tuple(LABELS)
"""The file's keys, in the order they are written."""
DEFAULTS: dict[str, Any] = {
    "full_name": "",
    "email": "",
    "language": "English",
    "theme": "System",
    "font_size": 11,
    "email_notifications": True,
    "auto_save": False,
    "show_line_numbers": False,
}
"""What the form shows when there is no (usable) file."""


def dumps(settings: Mapping[str, Any]) -> str:
    """The file's text for ``settings`` (keys in ``FIELDS`` order, two-space indent)."""
    return json.dumps({k: settings[k] for k in FIELDS}, indent=2, ensure_ascii=False) + "\n"


def read_why(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The JSON object in ``path``, or None and why not (one line, fit for a status line).

    Only a regular file of at most `FILE_LIMIT` bytes is read, never through a link.
    """
    try:
        text = Folder(path.parent).read_bytes(path.name, FILE_LIMIT).decode("utf-8")
    except PathRefused as refused:
        return None, str(refused)
    except UnicodeDecodeError:
        return None, f"{path.name} is not UTF-8 text"
    try:
        data = json.loads(text)
    except ValueError as error:
        return None, f"{path.name} is not JSON ({error})"
    except RecursionError:
        return None, f"{path.name} is nested too deeply"
    if not isinstance(data, dict):
        return None, f"{path.name} does not hold a JSON object"
    return data, ""


def read(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``; None when it is missing, refused or not an object.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write(Path(folder, FILENAME), DEFAULTS)
    ...     read(Path(folder, FILENAME)) == DEFAULTS, read(Path(folder, "missing.json"))
    (True, None)
    """
    return read_why(path)[0]


def write(path: Path, settings: Mapping[str, Any]) -> None:
    """Write ``settings`` to ``path`` atomically; `PathRefused` through a link or a FIFO."""
    Folder(path.parent).write_text(path.name, dumps(settings))


def email_error(email: str) -> str | None:
    """Why ``email`` is not an address (one "@", a dot in the part after it), or None.

    >>> email_error("ada@example.org") is None
    True
    >>> email_error("ada.example.org")
    'needs exactly one "@"'
    """
    if any(c.isspace() for c in email):
        return "must not contain spaces"
    if email.count("@") != 1:
        return 'needs exactly one "@"'
    local, domain = email.split("@")
    if not local:
        return 'needs a name before the "@"'
    if "." not in domain.strip("."):
        return 'needs a dot in the domain after the "@" (like "example.org")'
    return None


def font_size_error(text: str) -> str | None:
    """Why ``text`` is not an allowed font size (a whole number 8..32), or None.

    >>> font_size_error("12") is None
    True
    >>> font_size_error("40")
    'must be a whole number from 8 to 32'
    """
    text = text.strip()
    ok = text.isascii() and text.isdigit() and len(text) <= 3 and int(text) in FONT_SIZES
    return None if ok else f"must be a whole number from {FONT_SIZES[0]} to {FONT_SIZES[-1]}"

"""Task templates on the Notes app: create, append to, delete and rename a note."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.gui.tasks.base import GUITask, pick, words

__all__ = ["AppendToNote", "CreateNote", "DeleteNote", "RenameNote"]

_LINES = (
    "buy {a} and {b}",
    "call {a} about the {b} report",
    "meeting at {n}:00 in room {b}",
    "pack the {a} bag before {n} pm",
    "{a} recipe needs {n} cups of {b}",
)


def _line(rng: np.random.Generator) -> str:
    a, b = words(rng, 2)
    return str(pick(rng, _LINES)).format(a=a, b=b, n=int(rng.integers(2, 12)))


def _write_notes(workdir: Path, notes: Mapping[str, str]) -> None:
    folder = workdir / "notes"
    folder.mkdir(parents=True, exist_ok=True)
    for title, body in notes.items():
        (folder / f"{title}.txt").write_text(body, encoding="utf-8")


def _saved(state: Mapping[str, Any]) -> dict[str, Any]:
    """The Notes app's notes on disk, a trailing newline ignored (editors add one)."""
    notes = state["notes"]["notes"]
    return {k: v.rstrip("\n") if isinstance(v, str) else v for k, v in notes.items()}


def _existing(rng: np.random.Generator, n: int) -> dict[str, str]:
    return {title: _line(rng) for title in words(rng, n)}


class _NotesTask(GUITask):
    """A template on the Notes app that starts from the notes in ``params["notes"]``."""

    apps = ("notes",)

    def setup(self, params: Mapping[str, Any], workdir: Path) -> None:
        """The notes already there."""
        _write_notes(workdir, params["notes"])


class CreateNote(_NotesTask):
    """Create a note with a given title and body, and save it."""

    name = "notes-create"
    max_turns = 15
    description = "create and save a note with a given title and body"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """Two or three notes already there, and a new title and one- or two-line body."""
        notes = _existing(rng, int(rng.integers(2, 4)))
        title = next(w for w in words(rng, 6) if w not in notes)
        body = "\n".join(_line(rng) for _ in range(int(rng.integers(1, 3))))
        return {"notes": notes, "title": title, "body": body}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement: the title and the text to save."""
        body = params["body"].replace("\n", "\\n")
        return (
            f'In the Notes app, create a new note titled "{params["title"]}" whose text is '
            f'"{body}" (\\n: a new line), and save it.'
        )

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """The note is saved with exactly that text; the other notes are untouched."""
        return _saved(state) == {**params["notes"], params["title"]: params["body"]}


class AppendToNote(_NotesTask):
    """Open a note and add a line at its end."""

    name = "notes-append"
    max_turns = 15
    description = "open an existing note, add a line at its end, save"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """Three to five notes; one of them gets a new line."""
        notes = _existing(rng, int(rng.integers(3, 6)))
        return {"notes": notes, "title": pick(rng, sorted(notes)), "line": _line(rng)}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement: the note and the line to add."""
        return (
            f'In the Notes app, add the line "{params["line"]}" at the end of the note '
            f'"{params["title"]}" (as a new last line) and save it.'
        )

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """The note is its old text plus the new line; nothing else changed."""
        title = params["title"]
        return _saved(state) == {
            **params["notes"],
            title: f"{params['notes'][title]}\n{params['line']}",
        }


class DeleteNote(_NotesTask):
    """Delete one note of several."""

    name = "notes-delete"
    max_turns = 10
    description = "delete one named note of several"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """Three to six notes, one to delete."""
        notes = _existing(rng, int(rng.integers(3, 7)))
        return {"notes": notes, "title": pick(rng, sorted(notes))}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement, e.g. ``Delete the note "cedar".``."""
        return f'In the Notes app, delete the note "{params["title"]}" and keep the others.'

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """Exactly that note is gone."""
        want = {k: v for k, v in params["notes"].items() if k != params["title"]}
        return dict(state["notes"]["notes"]) == want


class RenameNote(_NotesTask):
    """Give a note a new title, keeping its text."""

    name = "notes-rename"
    max_turns = 12
    description = "retitle a note, keeping its text"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """Two to five notes; one gets a new title not in use."""
        notes = _existing(rng, int(rng.integers(2, 6)))
        new = next(w for w in words(rng, 8) if w not in notes)
        return {"notes": notes, "title": pick(rng, sorted(notes)), "new": f"{new} {_suffix(rng)}"}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement, e.g. ``Rename the note "cedar" to "olive plan".``."""
        return (
            f'In the Notes app, rename the note "{params["title"]}" to "{params["new"]}" '
            "(keep its text) and save it."
        )

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """The note has the new title and its old text; the others are untouched."""
        notes = dict(params["notes"])
        notes[params["new"]] = notes.pop(params["title"])
        return _saved(state) == notes


def _suffix(rng: np.random.Generator) -> str:
    return str(pick(rng, ("plan", "ideas", "list", "draft", "log")))

"""Hybrid templates: a sandboxed terminal beside (or instead of) a desktop app.

The terminal's shell starts in the episode's folder (``/testbed`` in the sandbox), so
files it writes are the ones the apps show and the checks read. The checks read them
through `confined.Folder`: a link, a FIFO or a file over `CHECK_LIMIT` bytes is "not
done", never followed, waited on or read whole.

A template whose instruction gives a step to the Notes app checks that the app did it:
the shell can write a note's file as well as the app, so the file alone proves nothing.
The app reports, in its state, digests of the text it saved and of the text it opened
from another program's file; the sandboxed shell cannot reach the app's window or its
socket, so it cannot forge them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.gui.apps import text_digest
from turngym.envs.gui.tasks.base import TERMINAL, GUITask, pick, words
from turngym.host.confined import Folder, PathRefused

__all__ = ["CHECK_LIMIT", "CountWithTerminal", "TerminalFile", "TerminalThenNotes"]

CHECK_LIMIT = 64_000
"""The most bytes a check reads of a file (the expected ones are a line or two)."""


def _sentence(rng: np.random.Generator) -> str:
    a, b, c = words(rng, 3)
    return str(pick(rng, ("{a} and {b} near the {c}", "the {a} {b} of {c}", "{a} {b} {c}"))).format(
        a=a, b=b, c=c
    )


def _read(workdir: Path, path: str) -> str | None:
    """The UTF-8 text of the regular file ``path`` in ``workdir``; None for anything else."""
    try:
        return Folder(workdir).read_bytes(path, CHECK_LIMIT).decode("utf-8")
    except (PathRefused, UnicodeDecodeError):
        return None


def _saved_by_notes(state: Mapping[str, Any], title: str, text: str) -> bool:
    """Whether the Notes app wrote ``text`` (a note's file now) as ``title``.

    That is: it is what the app last saved under that title, and not a text the app had
    only opened from another program's file and saved again.
    """
    notes = state.get("notes", {})
    digest = text_digest(text)
    return (
        notes.get("saved", {}).get(title) == digest and notes.get("opened", {}).get(title) != digest
    )


class TerminalFile(GUITask):
    """Create a file with given contents from the terminal."""

    name = "terminal-file"
    apps = (TERMINAL,)
    max_turns = 10
    description = "create a file with a given line of text using the terminal"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """A file name and one line of text."""
        name = f"{words(rng, 1)[0]}.{pick(rng, ('txt', 'md', 'log'))}"
        return {"file": name, "line": _sentence(rng)}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The file's name and its one line."""
        return (
            f'Using the terminal, create the file "{params["file"]}" in the folder the shell '
            f'starts in, containing the single line "{params["line"]}".'
        )

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """The file holds exactly that line (one trailing newline allowed)."""
        text = _read(workdir, params["file"])
        return text is not None and text.removesuffix("\n") == params["line"]


class CountWithTerminal(GUITask):
    """Count a file's lines in the terminal, then record the number in a note."""

    name = "terminal-count"
    apps = (TERMINAL, "notes")
    max_turns = 15
    description = "count a CSV's lines in the terminal, save the count as a note"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """A CSV of 40-400 rows; the note's title."""
        rows = int(rng.integers(40, 401))
        return {
            "rows": rows,
            "title": f"{words(rng, 1)[0]} count",
            "seed": int(rng.integers(2**31)),
        }

    def setup(self, params: Mapping[str, Any], workdir: Path) -> None:
        """Write ``data/records.csv`` (rows of a word and two numbers) and an empty notes folder."""
        rng = np.random.default_rng(params["seed"])
        names = words(rng, 20)
        lines = [
            f"{pick(rng, names)},{int(rng.integers(1000))},{int(rng.integers(1000))}"
            for _ in range(params["rows"])
        ]
        (workdir / "data").mkdir()
        (workdir / "data" / "records.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (workdir / "notes").mkdir()

    def instruction(self, params: Mapping[str, Any]) -> str:
        """Where the file is and how to report its count."""
        return (
            "The file data/records.csv (in the terminal's starting folder) has one record per "
            "line. Count its lines using the terminal, then in the Notes app create a note "
            f'titled "{params["title"]}" whose text is just that number, and save it.'
        )

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """The only note is the count, and the Notes app wrote it (not the shell)."""
        notes = state.get("notes", {}).get("notes", {})
        title = params["title"]
        text = notes.get(title)
        return (
            len(notes) == 1
            and isinstance(text, str)
            and text.strip() == str(params["rows"])
            and _saved_by_notes(state, title, text)
        )


class TerminalThenNotes(GUITask):
    """Write a note file from the terminal, then open and extend it in the Notes app."""

    name = "terminal-notes"
    apps = (TERMINAL, "notes")
    max_turns = 15
    description = "create a note file in the terminal, open it in Notes, add a line, save"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """The note's title and its two lines."""
        return {"title": words(rng, 1)[0], "first": _sentence(rng), "second": _sentence(rng)}

    def setup(self, params: Mapping[str, Any], workdir: Path) -> None:
        """An empty notes folder."""
        (workdir / "notes").mkdir()

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The file to write, then the line to add in Notes."""
        return (
            f"Using the terminal, create the file notes/{params['title']}.txt containing the "
            f'line "{params["first"]}". Then open that note in the Notes app (Refresh lists '
            f'new files), add the line "{params["second"]}" at its end, and save it.'
        )

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """The note holds both lines, in order, and nothing else, saved by the Notes app.

        The app must have opened it from a file (the shell's) holding the first line only.
        """
        title = params["title"]
        text = _read(workdir, f"notes/{title}.txt")
        want = f"{params['first']}\n{params['second']}"
        first = {text_digest(params["first"] + end) for end in ("", "\n")}
        return (
            text is not None
            and text.removesuffix("\n") == want
            and _saved_by_notes(state, title, text)
            and state.get("notes", {}).get("opened", {}).get(title) in first
        )

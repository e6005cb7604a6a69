"""Notes: a small notes editor whose notes are text files in ``<workdir>/notes``.

A list of notes on the left; a title field, a text area and New / Save / Delete /
Refresh on the right; Ctrl+S saves. Saving writes ``<title>.txt`` (renaming a note's file when its
title changed); a status line says what happened or what went wrong.

The folder is the agent's (a terminal task's shell writes in it), and the app runs on
the host: every file access goes through `EpisodeFolder`. A ``.txt`` entry that is not
a regular file (a link, a FIFO, a folder) or is over `NOTE_LIMIT` bytes is listed, but
opening it says why it is refused, saving over it is refused, and its text in
``state()`` is None; a link's target is never read nor written.

Since any program may write the folder, ``state()`` also says what went through the app
itself this episode (digests, see `text_digest`): ``saved``, the text it last wrote for
each title, and ``opened``, the text it last read for a title when that text was not its
own save (a file another program wrote). The agent's terminal runs in a sandbox with no
way to the X server or the app's socket, so only input to this window changes these.
"""

from __future__ import annotations

import contextlib
import tkinter as tk
from typing import Any

from turngym.envs.gui.apps import text_digest
from turngym.envs.gui.apps.base import TkApp
from turngym.envs.gui.episode_folder import EpisodeFolder, PathRefused, is_text

__all__ = ["MAX_NOTES", "NOTE_LIMIT", "NotesApp"]

FOLDER = "notes"
"""The notes' folder inside the workdir."""
NOTE_LIMIT = 64_000
"""The largest note (bytes) the app opens."""
MAX_NOTES = 200
"""The most notes listed (the first, by title)."""
STATE_LIMIT = 1_000_000
"""Bytes of note text ``state()`` reports in all; notes past it are reported as None."""


class NotesApp(TkApp):
    """The notes editor (``notes``)."""

    title = "Notes"

    def build(self) -> None:
        """Lay out the list, the editor and the buttons."""
        root = self.root
        left = tk.Frame(root)
        left.pack(side="left", fill="y", padx=8, pady=8)
        tk.Label(left, text="Notes").pack(anchor="w")
        self.listbox = tk.Listbox(left, width=28, height=24, exportselection=False)
        self.listbox.pack(fill="y", expand=True)
        self.name(self.listbox, "Notes")
        self.listbox.bind("<<ListboxSelect>>", self._open_selected)
        right = tk.Frame(root)
        right.pack(side="left", fill="both", expand=True, padx=8, pady=8)
        bar = tk.Frame(right)
        bar.pack(fill="x")
        tk.Button(bar, text="New", command=self.new).pack(side="left")
        tk.Button(bar, text="Save", command=self.save).pack(side="left", padx=4)
        tk.Button(bar, text="Delete", command=self.delete).pack(side="left")
        tk.Button(bar, text="Refresh", command=self.refresh).pack(side="left", padx=4)
        tk.Label(right, text="Title").pack(anchor="w", pady=(8, 0))
        self.title_entry = tk.Entry(right, width=60)
        self.title_entry.pack(fill="x")
        self.name(self.title_entry, "Title")
        tk.Label(right, text="Body").pack(anchor="w", pady=(8, 0))
        self.body = tk.Text(right, height=20, width=60, undo=True)
        self.body.pack(fill="both", expand=True)
        self.name(self.body, "Body")
        self.status = tk.Label(right, text="", anchor="w")
        self.status.pack(fill="x")
        root.bind_all("<Control-s>", lambda _e: self.save())
        self.current: str | None = None
        self.files = EpisodeFolder(self.workdir)
        self.saved: dict[str, str] = {}
        self.opened: dict[str, str] = {}

    def load(self, config: dict[str, Any]) -> None:
        """Show the notes on disk and an empty editor."""
        with contextlib.suppress(PathRefused):  # the refresh below says why
            self.files.makedirs(FOLDER)
        self.current = None
        self.saved.clear()
        self.opened.clear()
        self.title_entry.delete(0, "end")
        self.body.delete("1.0", "end")
        self.body.edit_reset()
        problem = self._refresh()
        self.status.config(text=f"Error: {problem}" if problem else "")
        self.title_entry.focus_set()

    def _titles(self) -> tuple[list[str], str]:
        """The titles of the ``.txt`` entries (any kind), and why the folder is unreadable."""
        try:
            entries = self.files.listdir(FOLDER)
        except PathRefused as refused:
            return [], str(refused)
        names = [name for name, _ in entries if name.endswith(".txt") and is_text(name)]
        return [name[: -len(".txt")] for name in names][:MAX_NOTES], ""

    def _path(self, title: str) -> str:
        return f"{FOLDER}/{title}.txt"

    def _read(self, title: str, limit: int = NOTE_LIMIT) -> str:
        """The note's text; `PathRefused` (with the reason) for anything but a UTF-8 file."""
        data = self.files.read_bytes(self._path(title), limit)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise PathRefused(f"{self._path(title)} is not UTF-8 text") from None

    def _refresh(self) -> str:
        """Fill the list from disk; returns why the folder could not be read ("" if it was)."""
        titles, problem = self._titles()
        self.listbox.delete(0, "end")
        for title in titles:
            self.listbox.insert("end", title)
        if self.current in titles:
            self.listbox.selection_set(titles.index(self.current))
        return problem

    def refresh(self) -> None:
        """Read the notes folder again (files written by other programs show up)."""
        problem = self._refresh()
        self.status.config(text=f"Error: {problem}" if problem else "Refreshed")

    def _open_selected(self, _event: object = None) -> None:
        chosen = self.listbox.curselection()
        if not chosen:
            return
        title = str(self.listbox.get(chosen[0]))
        try:
            text = self._read(title)
        except PathRefused as refused:
            self.status.config(text=f"Error: cannot open {title}: {refused}")
            self._refresh()
            return
        digest = text_digest(text)
        if self.saved.get(title) != digest:
            self.opened[title] = digest
        self.current = title
        self.title_entry.delete(0, "end")
        self.title_entry.insert(0, title)
        self.body.delete("1.0", "end")
        self.body.insert("1.0", text)
        self.status.config(text=f"Opened {title}")

    def new(self) -> None:
        """Start an unsaved note."""
        self.current = None
        self.listbox.selection_clear(0, "end")
        self.title_entry.delete(0, "end")
        self.body.delete("1.0", "end")
        self.status.config(text="New note")
        self.title_entry.focus_set()

    def save(self) -> None:
        """Write the note to ``<title>.txt``; refuse titles that are not plain names."""
        title = self.title_entry.get().strip()
        if not title or "/" in title or title.startswith("."):
            self.status.config(text="Error: a title is needed (no '/', not starting with '.')")
            return
        text = self.body.get("1.0", "end-1c")
        try:
            # written before the old file goes: a refused save loses nothing
            self.files.write_text(self._path(title), text, make_parents=True)
            if self.current is not None and self.current != title:
                self.files.remove(self._path(self.current))
        except PathRefused as refused:
            self.status.config(text=f"Error: cannot save {title}: {refused}")
            return
        self.saved[title] = text_digest(text)
        self.current = title
        self._refresh()
        self.status.config(text=f"Saved {title}")

    def delete(self) -> None:
        """Delete the open note's file."""
        if self.current is None:
            self.status.config(text="Error: no note is open")
            return
        try:
            self.files.remove(self._path(self.current))
        except PathRefused as refused:
            self.status.config(text=f"Error: cannot delete {self.current}: {refused}")
            return
        self.status.config(text=f"Deleted {self.current}")
        self.new()
        self._refresh()

    def state(self) -> dict[str, Any]:
        """The notes on disk, the editor, and what went through the app this episode.

        A note refused or past `STATE_LIMIT` reads None; ``saved`` and ``opened`` map a
        title to a `text_digest` (see the module's docstring).
        """
        notes: dict[str, str | None] = {}
        left = STATE_LIMIT
        for title in self._titles()[0]:
            try:
                notes[title] = self._read(title, min(NOTE_LIMIT, left))
                left -= len(notes[title] or "")
            except PathRefused:  # a link, a FIFO, too big, not UTF-8, or gone
                notes[title] = None
        return {
            "notes": notes,
            "current": self.current,
            "title": self.title_entry.get(),
            "body": self.body.get("1.0", "end-1c"),
            "status": str(self.status.cget("text")),
            "saved": dict(self.saved),
            "opened": dict(self.opened),
        }

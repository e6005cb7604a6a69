"""Notes: a small notes editor whose notes are text files in ``<workdir>/notes``.

A list of notes on the left; a title field, a text area and New / Save / Delete /
Refresh on the right; Ctrl+S saves. Saving writes ``<title>.txt`` (renaming a note's file when its
title changed); a status line says what happened or what went wrong.
"""

from __future__ import annotations

import tkinter as tk
from pathlib import Path
from typing import Any

from turngym.envs.gui.apps.base import TkApp

__all__ = ["NotesApp"]


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

    @property
    def folder(self) -> Path:
        """Where the notes live."""
        return self.workdir / "notes"

    def load(self, config: dict[str, Any]) -> None:
        """Show the notes on disk and an empty editor."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.current = None
        self.title_entry.delete(0, "end")
        self.body.delete("1.0", "end")
        self.body.edit_reset()
        self.status.config(text="")
        self._refresh()
        self.title_entry.focus_set()

    def _titles(self) -> list[str]:
        return sorted(p.stem for p in self.folder.glob("*.txt"))

    def _refresh(self) -> None:
        self.listbox.delete(0, "end")
        for title in self._titles():
            self.listbox.insert("end", title)
        if self.current in self._titles():
            index = self._titles().index(self.current)
            self.listbox.selection_set(index)

    def refresh(self) -> None:
        """Read the notes folder again (files written by other programs show up)."""
        self._refresh()
        self.status.config(text="Refreshed")

    def _open_selected(self, _event: object = None) -> None:
        chosen = self.listbox.curselection()
        if not chosen:
            return
        title = str(self.listbox.get(chosen[0]))
        path = self.folder / f"{title}.txt"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            self.status.config(text=f"Error: cannot open {title}: {type(error).__name__}")
            self._refresh()
            return
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
        if self.current is not None and self.current != title:
            (self.folder / f"{self.current}.txt").unlink(missing_ok=True)
        (self.folder / f"{title}.txt").write_text(text, encoding="utf-8")
        self.current = title
        self._refresh()
        self.status.config(text=f"Saved {title}")

    def delete(self) -> None:
        """Delete the open note's file."""
        if self.current is None:
            self.status.config(text="Error: no note is open")
            return
        (self.folder / f"{self.current}.txt").unlink(missing_ok=True)
        self.status.config(text=f"Deleted {self.current}")
        self.new()
        self._refresh()

    def state(self) -> dict[str, Any]:
        """The notes on disk and the editor's contents."""
        notes: dict[str, str | None] = {}
        for title in self._titles():
            try:
                notes[title] = (self.folder / f"{title}.txt").read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):  # written by someone else, or gone
                notes[title] = None
        return {
            "notes": notes,
            "current": self.current,
            "title": self.title_entry.get(),
            "body": self.body.get("1.0", "end-1c"),
            "status": str(self.status.cget("text")),
        }

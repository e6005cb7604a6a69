"""Files: a small file manager over ``<workdir>/files``.

The window shows the current folder's path (``files/`` or ``files/reports/``), a row of
buttons (Up, Open, New folder, Rename, Delete, Move to...), a ``Name`` field that New
folder and Rename read, a status line and the folder's entries (folders first, each with
a trailing ``/``, then files, each group sorted). Double-clicking a folder (or selecting
it and pressing Open or Return) enters it. Move to... opens a dialog that lists every
folder (``files/``, ``files/reports/``, ...) with Move and Cancel buttons.

Delete removes a file or an EMPTY folder; a folder with something in it is refused with
an error on the status line, so one click never loses a whole subtree. Every refusal
(nothing selected, empty name, ``/`` in a name, a name that exists...) says why on the
status line and changes nothing on disk.
"""

from __future__ import annotations

import os
import tkinter as tk
from pathlib import Path
from typing import Any

from turngym.envs.gui.apps.base import TkApp

__all__ = ["FilesApp"]

ROOT = "files"
"""The folder (inside the workdir) the app shows; paths are shown relative to the workdir."""
DOUBLE_CLICK_MS = 500
"""Two presses on one row of one listing this close together (X server time) open it."""


class FilesApp(TkApp):
    """The file manager (``files``)."""

    title = "Files"

    def build(self) -> None:
        """Lay out the path, the buttons, the name field, the status line and the list."""
        root = self.root
        frame = tk.Frame(root)
        frame.pack(side="left", fill="y", padx=8, pady=8)
        top = tk.Frame(frame)
        top.pack(fill="x")
        tk.Label(top, text="Folder:").pack(side="left")
        self.path_label = tk.Label(top, text=f"{ROOT}/", anchor="w")
        self.path_label.pack(side="left")
        bar = tk.Frame(frame)
        bar.pack(fill="x", pady=(8, 0))
        for text, command in (
            ("Up", self.up),
            ("Open", self.open_selected),
            ("New folder", self.new_folder),
            ("Rename", self.rename),
            ("Delete", self.delete),
            ("Move to...", self.open_move_dialog),
        ):
            tk.Button(bar, text=text, command=command).pack(side="left", padx=(0, 4))
        row = tk.Frame(frame)
        row.pack(fill="x", pady=(8, 0))
        tk.Label(row, text="Name:").pack(side="left")
        self.name_entry = tk.Entry(row, width=40)
        self.name_entry.pack(side="left", fill="x", expand=True)
        self.name(self.name_entry, "Name")
        self.status = tk.Label(frame, text="", anchor="w")
        self.status.pack(fill="x", pady=(4, 0))
        self.listbox = tk.Listbox(frame, width=48, height=20, exportselection=False)
        self.listbox.pack(fill="both", expand=True, pady=(4, 0))
        self.name(self.listbox, "Entries")
        # Our press handler runs before the Listbox class binding (bindtags order) and
        # stands in for it: it opens a folder on the second press of a double-click
        # (before any selection in the new listing) and otherwise selects the row itself.
        self.listbox.bind("<ButtonPress-1>", self._press)
        self.listbox.bind("<Return>", lambda _e: self.open_selected())
        self.cwd = Path()
        """The shown folder, relative to ``files/`` (``Path()`` is ``files/`` itself)."""
        self.dialog: tk.Toplevel | None = None
        self.destinations: tk.Listbox | None = None
        self.moving: Path | None = None
        """What the open Move dialog moves, relative to ``files/``."""
        self._listing = 0
        """Bumped whenever the list is refilled: a double-click needs both presses on one."""
        self._last_press: tuple[int, int, int] | None = None

    @property
    def folder(self) -> Path:
        """The folder the app manages (``<workdir>/files``)."""
        return self.workdir / ROOT

    # -- starting state ---------------------------------------------------------------

    def load(self, config: dict[str, Any]) -> None:
        """Show ``files/`` with nothing selected, an empty name field and no dialog."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.dialog = self.destinations = None  # close_popups has destroyed it
        self.moving = None
        self.cwd = Path()
        self._last_press = None
        self.name_entry.delete(0, "end")
        self.name_entry.selection_clear()
        self.name_entry.icursor(0)
        self.name_entry.xview_moveto(0)
        self.status.config(text="")
        self._refresh()
        self.name_entry.focus_set()

    # -- listing ----------------------------------------------------------------------

    def _shown(self, relative: Path) -> str:
        """A folder as the app shows it: ``files/`` or ``files/reports/``."""
        return f"{(Path(ROOT) / relative).as_posix()}/"

    def _entries(self) -> list[str]:
        """The current folder's rows: folders (with ``/``) first, then files, sorted."""
        try:
            children = list((self.folder / self.cwd).iterdir())
        except OSError:
            return []
        folders = sorted(f"{p.name}/" for p in children if p.is_dir())
        files = sorted(p.name for p in children if not p.is_dir())
        return folders + files

    def _refresh(self, select: str | None = None) -> None:
        """Refill the list from disk, selecting the row ``select`` if it is there."""
        rows = self._entries()
        self.listbox.delete(0, "end")
        for row in rows:
            self.listbox.insert("end", row)
        self.listbox.selection_clear(0, "end")
        index = rows.index(select) if select in rows else 0
        if select in rows:
            self.listbox.selection_set(index)
        self.listbox.activate(index)
        self.listbox.selection_anchor(index)
        self.listbox.yview_moveto(0)
        self.listbox.see(index)
        self.path_label.config(text=self._shown(self.cwd))
        self._listing += 1
        self._last_press = None

    def _selected_row(self) -> str | None:
        chosen = self.listbox.curselection()
        return str(self.listbox.get(chosen[0])) if chosen else None

    def _selected(self) -> tuple[str, bool] | None:
        """The selected entry's name and whether it is a folder; None (and an error) if none."""
        row = self._selected_row()
        if row is None:
            self._error("select an entry in the list first")
            return None
        return row.rstrip("/"), row.endswith("/")

    def _press(self, event: tk.Event) -> str:
        """A press on the list: the second one on a folder row in a double-click opens it."""
        index = self.listbox.nearest(event.y)
        box = self.listbox.bbox(index)
        last, self._last_press = self._last_press, None
        if box and box[1] <= event.y < box[1] + box[3] + 2:  # on a row, not below the last
            self._last_press = (self._listing, index, int(event.time))
            if (
                last is not None
                and last[:2] == (self._listing, index)
                and (int(event.time) - last[2]) % 2**32 <= DOUBLE_CLICK_MS
            ):
                row = str(self.listbox.get(index))
                if row.endswith("/"):
                    self._enter(self.cwd / row.rstrip("/"))
                    return "break"
        # Select as the Listbox class binding does, but on every press: Tk counts a
        # press soon after a double-click (even on a new listing) as a triple-click,
        # which the class binding ignores.
        under = self.listbox.index(f"@{event.x},{event.y}")
        self.listbox.tk.call("tk::ListboxBeginSelect", self.listbox, under, 1)
        return "break"

    # -- the actions ------------------------------------------------------------------

    def _error(self, message: str) -> None:
        self.status.config(text=f"Error: {message}")

    def _enter(self, relative: Path) -> None:
        self.cwd = relative
        self._refresh()
        self.status.config(text=f"Opened {self._shown(relative)}")

    def up(self) -> None:
        """Go to the parent folder (not above ``files/``)."""
        if self.cwd == Path():
            self._error(f"already at the top folder ({ROOT}/)")
            return
        child = f"{self.cwd.name}/"
        self.cwd = self.cwd.parent
        self._refresh(select=child)
        self.status.config(text=f"Opened {self._shown(self.cwd)}")

    def open_selected(self) -> None:
        """Enter the selected folder."""
        chosen = self._selected()
        if chosen is None:
            return
        name, is_folder = chosen
        if not is_folder:
            self._error(f"{name} is a file, not a folder")
            return
        self._enter(self.cwd / name)

    def _typed_name(self) -> str | None:
        """The name field's text if it is a valid new name; else None and an error."""
        name = self.name_entry.get().strip()
        if not name:
            self._error("type a name in the Name field first")
        elif "/" in name:
            self._error("a name cannot contain '/'")
        elif name.startswith("."):
            self._error("a name cannot start with '.'")
        elif (self.folder / self.cwd / name).exists():
            self._error(f"{(Path(ROOT) / self.cwd / name).as_posix()} already exists")
        else:
            return name
        return None

    def _done(self, message: str, select: str | None) -> None:
        """After a change on disk: clear the name field, refill the list, say what was done."""
        self.name_entry.delete(0, "end")
        self._refresh(select=select)
        self.status.config(text=message)

    def new_folder(self) -> None:
        """Create the folder named in the Name field inside the current folder."""
        name = self._typed_name()
        if name is None:
            return
        try:
            (self.folder / self.cwd / name).mkdir()
        except OSError as error:
            self._error(f"could not create {name}/: {error.strerror}")
            return
        self._done(f"Created folder {name}/", select=f"{name}/")

    def rename(self) -> None:
        """Give the selected entry the name in the Name field."""
        chosen = self._selected()
        if chosen is None:
            return
        old, is_folder = chosen
        new = self._typed_name()
        if new is None:
            return
        try:
            (self.folder / self.cwd / old).rename(self.folder / self.cwd / new)
        except OSError as error:
            self._error(f"could not rename {old}: {error.strerror}")
            return
        self._done(f"Renamed {old} to {new}", select=f"{new}/" if is_folder else new)

    def delete(self) -> None:
        """Delete the selected file or empty folder; a non-empty folder is refused."""
        chosen = self._selected()
        if chosen is None:
            return
        name, is_folder = chosen
        path = self.folder / self.cwd / name
        try:
            if is_folder:
                if any(path.iterdir()):
                    self._error(f"folder {name}/ is not empty (delete what is in it first)")
                    return
                path.rmdir()
            else:
                path.unlink()
        except OSError as error:
            self._error(f"could not delete {name}: {error.strerror}")
            return
        self._refresh()
        self.status.config(text=f"Deleted {name}{'/' if is_folder else ''}")

    # -- moving -----------------------------------------------------------------------

    def _folders(self) -> list[Path]:
        """Every folder under ``files/`` (``files/`` itself first), relative to it, sorted."""
        found = [Path()]
        for top, dirs, _files in os.walk(self.folder):
            dirs.sort()
            base = Path(top).relative_to(self.folder)
            found.extend(base / d for d in dirs)
        return sorted(found, key=lambda p: p.parts)

    def open_move_dialog(self) -> None:
        """Open the Move dialog for the selected entry (replacing one already open)."""
        chosen = self._selected()
        if chosen is None:
            return
        self._close_dialog()
        name, _ = chosen
        self.moving = self.cwd / name
        # A ridge stands in for the frame a window manager would draw.
        dialog = tk.Toplevel(self.root, borderwidth=2, relief="ridge")
        dialog.title("Move")
        # No window manager places it: put it right of the list, over nothing.
        dialog.geometry(f"+{self.root.winfo_rootx() + 600}+{self.root.winfo_rooty() + 80}")
        tk.Label(dialog, text=f"Move {name} to:").pack(anchor="w", padx=8, pady=(8, 0))
        destinations = tk.Listbox(dialog, width=36, height=12, exportselection=False)
        destinations.pack(padx=8, pady=4)
        self.name(destinations, "Destination")
        for folder in self._folders():
            destinations.insert("end", self._shown(folder))
        buttons = tk.Frame(dialog)
        buttons.pack(fill="x", padx=8, pady=(0, 8))
        tk.Button(buttons, text="Move", command=self.move).pack(side="left")
        tk.Button(buttons, text="Cancel", command=self._cancel_move).pack(side="left", padx=4)
        self.dialog, self.destinations = dialog, destinations
        self.status.config(text=f"Choose where to move {name}")

    def _close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.destroy()
        self.dialog = self.destinations = None
        self.moving = None

    def _cancel_move(self) -> None:
        self._close_dialog()
        self.status.config(text="Move cancelled")

    def move(self) -> None:
        """Move the dialog's entry into the chosen folder (keeping its name)."""
        if self.destinations is None or self.moving is None:
            return
        chosen = self.destinations.curselection()
        if not chosen:
            self._error("choose a destination folder in the Move dialog")
            return
        shown = str(self.destinations.get(chosen[0]))
        target = Path(shown.rstrip("/")).relative_to(ROOT)
        source = self.moving
        name = source.name
        if not (self.folder / source).exists():
            self._error(f"{(Path(ROOT) / source).as_posix()} no longer exists")
            return
        if target == source.parent:
            self._error(f"{name} is already in {shown}")
            return
        if target == source or source in target.parents:
            self._error(f"cannot move the folder {name}/ into itself")
            return
        if not (self.folder / target).is_dir():  # renamed or deleted since the dialog opened
            self._error(f"the folder {shown} no longer exists")
            return
        if (self.folder / target / name).exists():
            self._error(f"{shown}{name} already exists")
            return
        try:
            # One file system: a rename, never a copy that could half-happen.
            (self.folder / source).rename(self.folder / target / name)
        except OSError as error:
            self._error(f"could not move {name}: {error.strerror}")
            return
        self._close_dialog()
        self._refresh()
        self.status.config(text=f"Moved {name} to {shown}")

    # -- what rewards read ------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The shown folder, the selected row, every path under ``files/`` and the status.

        ``tree`` maps each path relative to the workdir (``files/reports/a.txt``) to
        ``"dir"`` or the file's size in bytes.
        """
        tree: dict[str, str | int] = {}
        for top, dirs, files in os.walk(self.folder):
            base = Path(top).relative_to(self.workdir)
            for d in dirs:
                tree[(base / d).as_posix()] = "dir"
            for f in files:
                path = Path(top) / f
                tree[(base / f).as_posix()] = path.stat().st_size if path.exists() else 0
        return {
            "cwd": self._shown(self.cwd),
            "selected": self._selected_row(),
            "tree": dict(sorted(tree.items())),
            "status": str(self.status.cget("text")),
            "dialog": self.dialog is not None,
        }

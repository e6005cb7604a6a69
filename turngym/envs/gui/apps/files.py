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

The folder is the agent's and the app runs on the host, so every access goes through
`EpisodeFolder`, which never follows a link. An entry that is neither a file nor a
folder is listed as ``name (link)`` or ``name (special file)``: it cannot be opened,
renamed, moved or chosen as a destination; Delete removes the entry itself (never what
a link points to). ``state()["tree"]`` gives such entries as ``"link"`` or ``"special"``.
"""

from __future__ import annotations

import contextlib
import tkinter as tk
from pathlib import Path
from typing import Any

from turngym.envs.gui.apps.base import TkApp
from turngym.envs.gui.episode_folder import EpisodeFolder, PathRefused, is_text

__all__ = ["FilesApp"]

ROOT = "files"
"""The folder (inside the workdir) the app shows; paths are shown relative to the workdir."""
DOUBLE_CLICK_MS = 500
"""Two presses on one row of one listing this close together (X server time) open it."""
_REFUSED = {"link": "link", "other": "special file"}
"""Kinds of entries shown but never opened, and how a row names them."""


def _row(name: str, kind: str) -> str:
    """How the list shows an entry: ``name/`` for a folder, ``name (link)`` for a link.

    >>> _row("docs", "dir"), _row("a.txt", "file"), _row("x", "link")
    ('docs/', 'a.txt', 'x (link)')
    """
    name = name.encode("utf-8", "replace").decode()  # undecodable bytes: shown as "?"
    if kind == "dir":
        return f"{name}/"
    return name if kind == "file" else f"{name} ({_REFUSED[kind]})"


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
        self._rows: list[tuple[str, str]] = []
        """(name, kind) of each row of the list, in order."""
        self.files = EpisodeFolder(self.workdir)

    def _path(self, relative: Path) -> str:
        """``relative`` (to ``files/``) as a path from the workdir, for `EpisodeFolder`."""
        return (Path(ROOT) / relative).as_posix()

    # -- starting state ---------------------------------------------------------------

    def load(self, config: dict[str, Any]) -> None:
        """Show ``files/`` with nothing selected, an empty name field and no dialog."""
        with contextlib.suppress(PathRefused):  # the empty list and the status line say so
            self.files.makedirs(ROOT)
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

    def _entries(self) -> list[tuple[str, str]]:
        """The current folder's (name, kind): folders first, then the rest, each sorted.

        A name that is not text is shown as a special file (it is never opened).
        """
        try:
            listed = self.files.listdir(self._path(self.cwd))
        except PathRefused as refused:
            self._error(str(refused))
            return []
        entries = [(n, k if is_text(n) else "other") for n, k in listed]
        return sorted(entries, key=lambda entry: (entry[1] != "dir", entry[0]))

    def _refresh(self, select: str | None = None) -> None:
        """Refill the list from disk, selecting the row ``select`` if it is there."""
        self._rows = self._entries()
        rows = [_row(name, kind) for name, kind in self._rows]
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

    def _selected(self) -> tuple[str, str] | None:
        """The selected entry's name and kind; None (and an error) if none is selected."""
        chosen = self.listbox.curselection()
        if not chosen or chosen[0] >= len(self._rows):
            self._error("select an entry in the list first")
            return None
        return self._rows[chosen[0]]

    def _refuse(self, name: str, kind: str) -> bool:
        """Say why a link or special file cannot be acted on; False for a file or folder."""
        if kind not in _REFUSED:
            return False
        self._error(f"{name} is a {_REFUSED[kind]}; only files and folders can be used")
        return True

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
                name, kind = self._rows[index] if index < len(self._rows) else ("", "")
                if kind == "dir":
                    self._enter(self.cwd / name)
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
        name, kind = chosen
        if self._refuse(name, kind):
            return
        if kind != "dir":
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
        elif not is_text(name):
            self._error("a name must be printable text")
        elif self.files.exists(self._path(self.cwd / name)):
            self._error(f"{self._path(self.cwd / name)} already exists")
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
            self.files.mkdir(self._path(self.cwd / name))
        except PathRefused as refused:
            self._error(f"could not create {name}/: {refused}")
            return
        self._done(f"Created folder {name}/", select=f"{name}/")

    def rename(self) -> None:
        """Give the selected entry the name in the Name field."""
        chosen = self._selected()
        if chosen is None:
            return
        old, kind = chosen
        if self._refuse(old, kind):
            return
        new = self._typed_name()
        if new is None:
            return
        try:
            self.files.rename(self._path(self.cwd / old), self._path(self.cwd / new))
        except PathRefused as refused:
            self._error(f"could not rename {old}: {refused}")
            return
        self._done(f"Renamed {old} to {new}", select=_row(new, kind))

    def delete(self) -> None:
        """Delete the selected file or empty folder; a non-empty folder is refused."""
        chosen = self._selected()
        if chosen is None:
            return
        name, kind = chosen
        path = self._path(self.cwd / name)
        try:
            if kind == "dir":
                if self.files.listdir(path):
                    self._error(f"folder {name}/ is not empty (delete what is in it first)")
                    return
                self.files.rmdir(path)
            else:  # a file, or a link or special file itself (never what a link points to)
                self.files.remove(path)
        except PathRefused as refused:
            self._error(f"could not delete {name}: {refused}")
            return
        self._refresh()
        self.status.config(text=f"Deleted {_row(name, kind)}")

    # -- moving -----------------------------------------------------------------------

    def _folders(self) -> list[Path]:
        """Every folder under ``files/`` (``files/`` itself first), relative to it, sorted.

        Real folders only: a link to a folder is not one (nothing is moved through it).
        """
        try:
            entries, _ = self.files.tree(ROOT)
        except PathRefused:
            return [Path()]
        found = [Path(path).relative_to(ROOT) for path, kind in entries if kind == "dir"]
        return sorted([Path(), *found], key=lambda p: p.parts)

    def open_move_dialog(self) -> None:
        """Open the Move dialog for the selected entry (replacing one already open)."""
        chosen = self._selected()
        if chosen is None:
            return
        name, kind = chosen
        if self._refuse(name, kind):
            return
        self._close_dialog()
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
        if self.files.kind(self._path(source)) not in ("file", "dir"):
            self._error(f"{self._path(source)} no longer exists")
            return
        if target == source.parent:
            self._error(f"{name} is already in {shown}")
            return
        if target == source or source in target.parents:
            self._error(f"cannot move the folder {name}/ into itself")
            return
        if self.files.kind(self._path(target)) != "dir":  # gone or swapped since it opened
            self._error(f"the folder {shown} no longer exists")
            return
        if self.files.exists(self._path(target / name)):
            self._error(f"{shown}{name} already exists")
            return
        try:
            # One file system: a rename, never a copy that could half-happen.
            self.files.rename(self._path(source), self._path(target / name))
        except PathRefused as refused:
            self._error(f"could not move {name}: {refused}")
            return
        self._close_dialog()
        self._refresh()
        self.status.config(text=f"Moved {name} to {shown}")

    # -- what rewards read ------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The shown folder, the selected row, every path under ``files/`` and the status.

        ``tree`` maps each path relative to the workdir (``files/reports/a.txt``) to
        ``"dir"``, the file's size in bytes, ``"link"`` or ``"special"`` (at most
        `episode_folder.MAX_ENTRIES` paths).
        """
        tree: dict[str, str | int] = {}
        try:
            entries, _ = self.files.tree(ROOT)
        except PathRefused:
            entries = []
        for path, kind in entries:
            shown = path.encode("utf-8", "replace").decode()
            if kind == "file":
                found = self.files.stat(path)
                tree[shown] = found.st_size if found is not None else 0
            else:
                tree[shown] = {"dir": "dir", "link": "link"}.get(kind, "special")
        return {
            "cwd": self._shown(self.cwd),
            "selected": self._selected_row(),
            "tree": dict(sorted(tree.items())),
            "status": str(self.status.cget("text")),
            "dialog": self.dialog is not None,
        }

"""The side of a bundled Tk app that talks to its env: widget tree, state, task config.

Every bundled app is a ``TkApp`` subclass that builds its window in ``build``, puts
itself in a task's starting state in ``load(config)``, and reports what a reward
checks in ``state()``. ``serve`` runs an app as its own process on the env's display
and answers the env over a Unix socket, one JSON line per request:

- ``{"op": "load", "config": {...}}``: start a task; answers ``{"ok": true}``;
- ``{"op": "observe"}``: drains the X events the env's input produced (a round trip
  to the X server, then ``update``, which redraws and syncs), answers
  ``{"drawn": true}`` so the env can grab the screen, then sends a second line with
  the widget tree and the state;
- ``{"op": "quit"}``: exit.

The widget tree lists what a user can see and act on, in a stable order: role (button,
entry, text, checkbox, radio, listitem, menuitem, label, ...), accessible name, screen
box and value. Nothing here is trusted by the env beyond the reward's inputs: the
app is the env's own code.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tkinter as tk
import traceback
from pathlib import Path
from typing import Any, ClassVar

__all__ = ["TkApp", "serve"]

_ROLES = {
    "Button": "button",
    "TButton": "button",
    "Entry": "entry",
    "TEntry": "entry",
    "Text": "text",
    "Checkbutton": "checkbox",
    "TCheckbutton": "checkbox",
    "Radiobutton": "radio",
    "TRadiobutton": "radio",
    "Spinbox": "spinbox",
    "TSpinbox": "spinbox",
    "Scale": "slider",
    "Menubutton": "menubutton",
    "TMenubutton": "menubutton",
    "Label": "label",
    "TLabel": "label",
    "Listbox": "list",
}
MAX_VALUE_CHARS = 400
"""A longer widget value (a text area) is cut in the tree."""


class TkApp:
    """A bundled desktop app: its window, its task config, its state for rewards.

    Subclasses set ``title``, write ``build`` (the widgets, once), ``load`` (a task's
    starting state, on every reset) and ``state`` (JSON for the reward). Widgets that
    show no text of their own (an entry, a text area) get an accessible name with
    ``name(widget, "Title")``.
    """

    title: ClassVar[str] = "App"

    def __init__(self, root: tk.Tk, workdir: Path) -> None:
        self.root = root
        self.workdir = workdir
        self._names: dict[str, str] = {}
        root.title(self.title)
        self.build()

    # -- what a subclass writes ------------------------------------------------------

    def build(self) -> None:
        """Create the widgets (called once)."""
        raise NotImplementedError

    def load(self, config: dict[str, Any]) -> None:
        """Put the app in a task's starting state (called on every reset)."""
        raise NotImplementedError

    def state(self) -> dict[str, Any]:
        """What a reward reads: JSON-serialisable."""
        return {}

    # -- helpers for subclasses -----------------------------------------------------

    def name(self, widget: tk.Misc, text: str) -> None:
        """Give ``widget`` the accessible name ``text`` (shown in the widget tree)."""
        self._names[str(widget)] = text

    def close_popups(self) -> None:
        """Destroy every extra toplevel and unpost menus (a reset starts clean)."""
        # A menu posted from a menubutton holds a global grab and Tk's record of the
        # posted button: Tk's own routine releases both (a bare ``unpost`` would not).
        if self.root.tk.eval("info exists ::tk::Priv(postedMb)") == "1" and str(
            self.root.tk.eval("set ::tk::Priv(postedMb)")
        ):
            self.root.tk.call("::tk::MenuUnpost", "")
        for child in self.root.winfo_children():
            if isinstance(child, tk.Toplevel):
                child.destroy()
            elif isinstance(child, tk.Menu):
                child.unpost()

    # -- the widget tree ------------------------------------------------------------

    def widgets(self) -> list[dict[str, Any]]:
        """Every visible widget a user can read or act on, in a stable order."""
        out: list[dict[str, Any]] = []
        focus = self.root.focus_get()
        self._walk(self.root, out, focus)
        return out

    def _walk(self, widget: tk.Misc, out: list[dict[str, Any]], focus: tk.Misc | None) -> None:
        for child in widget.winfo_children():
            if isinstance(child, tk.Menu):
                if child.winfo_ismapped():
                    self._menu(child, out)
                continue
            if not child.winfo_ismapped():
                continue
            role = _ROLES.get(child.winfo_class())
            if role == "list":
                self._list(child, out)  # type: ignore[arg-type]
            elif role is not None:
                out.append(self._describe(child, role, focus))
            self._walk(child, out, focus)

    def _box(self, widget: tk.Misc) -> tuple[int, int, int, int]:
        return (
            widget.winfo_rootx(),
            widget.winfo_rooty(),
            widget.winfo_width(),
            widget.winfo_height(),
        )

    def _describe(self, widget: tk.Misc, role: str, focus: tk.Misc | None) -> dict[str, Any]:
        x, y, w, h = self._box(widget)
        item: dict[str, Any] = {"role": role, "name": self._name_of(widget), "x": x, "y": y}
        item.update(w=w, h=h)
        value = _value(widget, role)
        if value is None and role == "label" and str(widget) in self._names:
            # A named label (a calculator's display) is read by its name: show its text too.
            value = str(widget.cget("text"))
        if value is not None:
            item["value"] = (
                value if len(value) <= MAX_VALUE_CHARS else value[:MAX_VALUE_CHARS] + "..."
            )
        try:
            if str(widget.cget("state")) == "disabled":
                item["disabled"] = True
        except tk.TclError:
            pass
        if focus is not None and widget == focus:
            item["focused"] = True
        return item

    def _name_of(self, widget: tk.Misc) -> str:
        if str(widget) in self._names:
            return self._names[str(widget)]
        try:
            return str(widget.cget("text"))
        except tk.TclError:
            return ""

    def _list(self, box: tk.Listbox, out: list[dict[str, Any]]) -> None:
        rx, ry = box.winfo_rootx(), box.winfo_rooty()
        selected = set(box.curselection())
        name = self._names.get(str(box), "")
        for i in range(box.size()):
            bbox = box.bbox(i)
            if not bbox:
                continue  # scrolled out of view
            x, y, _, h = bbox
            item = {"role": "listitem", "name": str(box.get(i)), "x": rx + x, "y": ry + y}
            item.update(w=box.winfo_width() - 2 * x, h=h + 2)
            if name:
                item["list"] = name
            if i in selected:
                item["selected"] = True
            out.append(item)

    def _menu(self, menu: tk.Menu, out: list[dict[str, Any]]) -> None:
        last = menu.index("end")
        if last is None:
            return
        rx, ry, width = menu.winfo_rootx(), menu.winfo_rooty(), menu.winfo_width()
        for i in range(int(last) + 1):
            if menu.type(i) not in ("command", "radiobutton", "checkbutton", "cascade"):
                continue
            top = menu.yposition(i)
            bottom = menu.yposition(i + 1) if i < int(last) else menu.winfo_height()
            label = str(menu.entrycget(i, "label"))
            out.append(
                {
                    "role": "menuitem",
                    "name": label,
                    "x": rx,
                    "y": ry + top,
                    "w": width,
                    "h": bottom - top,
                }
            )


def _value(widget: tk.Misc, role: str) -> str | None:
    if role in ("entry", "spinbox"):
        return str(widget.get())  # type: ignore[attr-defined]
    if role == "text":
        return str(widget.get("1.0", "end-1c"))  # type: ignore[attr-defined]
    if role == "slider":
        return str(widget.get())  # type: ignore[attr-defined]
    if role in ("checkbox", "radio"):
        variable = str(widget.cget("variable"))
        if not variable:
            return None
        current = widget.getvar(variable)
        on = widget.cget("onvalue") if role == "checkbox" else widget.cget("value")
        return "checked" if str(current) == str(on) else "unchecked"
    return None


# -- the process side -----------------------------------------------------------------


def serve(app_class: type[TkApp], sock_path: str, workdir: str, geometry: str) -> None:
    """Run ``app_class`` on ``$DISPLAY``, answering the env on the socket ``sock_path``."""
    root = tk.Tk()
    # A blinking cursor would make two screenshots of one state differ.
    root.option_add("*insertOffTime", 0)
    root.option_add("*Font", "{DejaVu Sans} 11")
    root.geometry(geometry)
    app = app_class(root, Path(workdir))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(1)
    root.update()
    # Tell the env the window is up: it waits for this line on our stdout.
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    conn, _ = listener.accept()
    listener.close()
    reader = conn.makefile("rb")

    def answer(_fd: int, _mask: int) -> None:
        line = reader.readline()
        if not line:
            root.destroy()
            return
        try:
            reply = _handle(app, json.loads(line))
        except Exception as error:  # the app's bug must reach the env as an error reply
            reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
            traceback.print_exc()
        if reply.get("quit"):
            conn.sendall(b'{"ok": true}\n')
            root.destroy()
            return
        conn.sendall(json.dumps(reply).encode() + b"\n")
        if reply.get("drawn"):
            # The screen is drawn: the env grabs it while we read the widgets.
            try:
                tree = {"ok": True, "widgets": app.widgets(), "state": app.state()}
            except Exception as error:
                tree = {"ok": False, "error": f"{type(error).__name__}: {error}"}
                traceback.print_exc()
            conn.sendall(json.dumps(tree).encode() + b"\n")

    root.createfilehandler(conn.fileno(), tk.READABLE, answer)
    try:
        root.mainloop()
    finally:
        conn.close()
        if os.path.exists(sock_path):
            os.unlink(sock_path)


def _drain(root: tk.Tk) -> None:
    """Handle every X event the env's input has produced so far, and redraw."""
    root.winfo_pointerxy()  # a round trip: the server's events before its reply are queued
    root.update()


def _handle(app: TkApp, request: dict[str, Any]) -> dict[str, Any]:
    op = request.get("op")
    if op == "load":
        _drain(app.root)
        app.close_popups()
        app.load(dict(request.get("config") or {}))
        app.root.update()
        return {"ok": True}
    if op == "observe":
        _drain(app.root)
        _drain(app.root)  # a click that opened a window: draw the window too
        return {"ok": True, "drawn": True}
    if op == "quit":
        return {"ok": True, "quit": True}
    return {"ok": False, "error": f"unknown op {op!r}"}

"""Settings: a preferences form that reads and writes ``<workdir>/settings.json``.

Fields: "Full name" and "Email" (entries), "Language" (an option menu), "Theme"
(Light / Dark / System radio buttons), "Font size" (a spinbox) and three checkboxes.
"Save" (or Ctrl+S) writes the file only when every field is valid (the email has one
"@" and a dot after it, the font size is a whole number 8..32); otherwise the status
line names the field and the reason and the file stays as it was. "Reset" shows the
file's values again. The format lives in ``settings_file``, which reads and writes the
file without following a link and reads only a regular file of bounded size: a
refused file shows the defaults (and why, on Reset) and is never saved over.
"""

from __future__ import annotations

import tkinter as tk
from typing import Any

from turngym.envs.gui.apps import settings_file as fmt
from turngym.envs.gui.apps.base import TkApp
from turngym.host.confined import PathRefused

__all__ = ["SettingsApp"]

_ERROR_COLOR = "#b00020"


class SettingsApp(TkApp):
    """The settings form (``settings``)."""

    title = "Settings"

    def build(self) -> None:
        """Lay out the form: one labelled row per setting, then the buttons and status."""
        form = tk.Frame(self.root, padx=16, pady=16)
        form.pack(anchor="nw")
        self.full_name = self._entry(form, 0, "full_name")
        self.email = self._entry(form, 1, "email")

        self._label(form, 2, "language")
        self.language = tk.StringVar(self.root, value=fmt.DEFAULTS["language"])
        self.language_menu = tk.OptionMenu(form, self.language, *fmt.LANGUAGES)
        self.language_menu.config(width=12, anchor="w")
        self.language_menu.grid(row=2, column=1, sticky="w", pady=4)

        self._label(form, 3, "theme")
        self.theme = tk.StringVar(self.root, value=fmt.DEFAULTS["theme"])
        themes = tk.Frame(form)
        themes.grid(row=3, column=1, sticky="w", pady=4)
        for theme in fmt.THEMES:
            tk.Radiobutton(themes, text=theme, value=theme, variable=self.theme).pack(
                side="left", padx=(0, 12)
            )

        self._label(form, 4, "font_size")
        first, last = fmt.FONT_SIZES[0], fmt.FONT_SIZES[-1]
        self.font_size = tk.Spinbox(form, from_=first, to=last, increment=1, width=5)
        self.font_size.grid(row=4, column=1, sticky="w", pady=4)
        self.name(self.font_size, fmt.LABELS["font_size"])

        self.checks: dict[str, tk.IntVar] = {}
        for row, (key, label) in enumerate(fmt.CHECKBOXES.items(), start=5):
            self.checks[key] = tk.IntVar(self.root, value=0)
            box = tk.Checkbutton(form, text=label, variable=self.checks[key])
            box.grid(row=row, column=1, sticky="w")

        buttons = tk.Frame(form)
        buttons.grid(row=5 + len(fmt.CHECKBOXES), column=1, sticky="w", pady=(12, 4))
        tk.Button(buttons, text="Save", command=self.save).pack(side="left")
        tk.Button(buttons, text="Reset", command=self.reset).pack(side="left", padx=8)
        # Below the grid, not in it: a long message must not widen the label column.
        self.status = tk.Label(self.root, text="", anchor="w", justify="left", wraplength=600)
        self.status.pack(anchor="nw", padx=16)
        self._status_fg = str(self.status.cget("fg"))
        self.root.bind_all("<Control-s>", lambda _e: self.save())

    def _label(self, form: tk.Frame, row: int, key: str) -> None:
        label = tk.Label(form, text=fmt.LABELS[key], anchor="w")
        label.grid(row=row, column=0, sticky="w", padx=(0, 12))

    def _entry(self, form: tk.Frame, row: int, key: str) -> tk.Entry:
        self._label(form, row, key)
        entry = tk.Entry(form, width=40)
        entry.grid(row=row, column=1, sticky="w", pady=4)
        self.name(entry, fmt.LABELS[key])
        return entry

    # -- starting state -------------------------------------------------------------

    def load(self, config: dict[str, Any]) -> None:
        """Show ``settings.json`` (the defaults if there is none) with nothing pending."""
        self._show_file()
        self._set_status("")
        self.full_name.focus_set()

    def _show_file(self) -> str:
        """Fill the form from the file; the defaults and why when it is unusable ("" if not)."""
        saved, why = fmt.read_why(self.workdir / fmt.FILENAME)
        values = dict(fmt.DEFAULTS)
        if saved is not None:
            values.update({k: saved[k] for k in fmt.FIELDS if k in saved})
        for entry, key in ((self.full_name, "full_name"), (self.email, "email")):
            _set_text(entry, str(values[key]))
        _set_text(self.font_size, str(values["font_size"]))
        self.language.set(str(values["language"]))
        self.theme.set(str(values["theme"]))
        for key, var in self.checks.items():
            var.set(1 if values[key] else 0)
        return why

    # -- the buttons ----------------------------------------------------------------

    def form(self) -> dict[str, Any]:
        """The form's values as shown (the font size as typed, maybe not a number)."""
        values: dict[str, Any] = {
            "full_name": self.full_name.get(),
            "email": self.email.get(),
            "language": self.language.get(),
            "theme": self.theme.get(),
            "font_size": self.font_size.get(),
        }
        values.update({key: bool(var.get()) for key, var in self.checks.items()})
        return values

    def save(self) -> None:
        """Write ``settings.json`` if every field is valid, else say what is wrong."""
        values = self.form()
        errors = []
        email = values["email"].strip()
        why = fmt.email_error(email)
        if why is not None:
            errors.append(f"{fmt.LABELS['email']} {why}")
        why = fmt.font_size_error(values["font_size"])
        if why is not None:
            errors.append(f"{fmt.LABELS['font_size']} {why}")
        if errors:
            self._set_status("Not saved: " + "; ".join(errors) + ".", error=True)
            return
        values.update(
            full_name=values["full_name"].strip(),
            email=email,
            font_size=int(values["font_size"]),
        )
        try:
            fmt.write(self.workdir / fmt.FILENAME, values)
        except PathRefused as refused:
            self._set_status(f"Not saved: {refused}.", error=True)
            return
        self._set_status(f"Saved {fmt.FILENAME}.")

    def reset(self) -> None:
        """Throw away the form's edits: show the file's values again."""
        why = self._show_file()
        if not why:
            self._set_status(f"Reset to the values in {fmt.FILENAME}.")
        else:
            self._set_status(f"No usable {fmt.FILENAME} ({why}): showing the defaults.", error=True)

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self.status.config(text=text, fg=_ERROR_COLOR if error else self._status_fg)

    def state(self) -> dict[str, Any]:
        """The file's contents (None if missing or not JSON), the form, the status line."""
        return {
            "saved": fmt.read(self.workdir / fmt.FILENAME),
            "form": self.form(),
            "status": str(self.status.cget("text")),
        }


def _set_text(entry: tk.Entry | tk.Spinbox, text: str) -> None:
    """Replace an entry's text, with no selection, the cursor at the end, scrolled home."""
    entry.selection_clear()
    entry.delete(0, "end")
    entry.insert(0, text)
    entry.icursor("end")
    entry.xview_moveto(0)

"""Calculator: a desk calculator with a memory and a history tape.

A display, a keypad (digits, ``.``, ``+ - × ÷``, ``=``, ``C``, ``⌫``, ``±``), a memory
row (``MC``, ``MR``, ``M+``) and a History list with one line per ``=``, e.g.
``12 + 5 = 17`` or ``7 × 8 - 5 = 51`` for a chain of operations. The keyboard works
too, anywhere in the window: digits, ``.``, ``+ - * /`` (and ``× ÷``), ``=`` or
Return for equals, BackSpace, Escape for clear.

Operations run left to right as they are entered (``2 + 3 × 4 = 20``), the way a desk
calculator does. Arithmetic is ``decimal.Decimal`` rounded to ``DIGITS`` significant
digits (half-even), so results are exact whenever they fit and always deterministic.
A result of magnitude ``10**DIGITS`` or more, and a division by zero, show ``Error``
until ``C``.
"""

from __future__ import annotations

import decimal
import tkinter as tk
from decimal import Decimal
from typing import Any

from turngym.envs.gui.apps.base import TkApp

__all__ = ["DIGITS", "ERROR", "CalculatorApp", "format_number"]

DIGITS = 16
"""Significant digits of every result, and the most digits an entry takes."""
_CONTEXT = decimal.Context(
    prec=DIGITS,
    rounding=decimal.ROUND_HALF_EVEN,
    traps=[decimal.DivisionByZero, decimal.InvalidOperation, decimal.Overflow],
)
_LIMIT = Decimal(10) ** DIGITS
ERROR = "Error"
"""What the display shows after a division by zero or an overflow."""

_OPERATORS = ("+", "-", "×", "÷")
_KEYPAD = (
    ("C", "⌫", "±", "÷"),
    ("7", "8", "9", "×"),
    ("4", "5", "6", "-"),
    ("1", "2", "3", "+"),
    ("0", ".", "=", ""),
)
_KEYSYMS = {"Return": "=", "KP_Enter": "=", "BackSpace": "⌫", "Escape": "C"}
"""Keyboard keys that press a keypad key of another name."""
_CHARS = {"*": "×", "/": "÷", **{c: c for c in "0123456789.=+-×÷"}}
"""Typed characters that press a keypad key (letters do not: "C" typed is no clear)."""
_CONTROL_OR_ALT = 0x4 | 0x8
"""X modifier bits of Control and Mod1 (Alt) in a key event's ``state``."""


def format_number(value: Decimal) -> str:
    """The display form of ``value``: no exponent, no trailing zeros, no ``-0``.

    >>> format_number(Decimal("17.500"))
    '17.5'
    >>> format_number(Decimal("1.7E+3"))
    '1700'
    """
    if value == 0:
        return "0"
    return format(value.normalize(_CONTEXT), "f")


def _compute(left: Decimal, op: str, right: Decimal) -> Decimal:
    """``left op right`` in the calculator's context; ``ArithmeticError`` on Error."""
    if op == "+":
        result = _CONTEXT.add(left, right)
    elif op == "-":
        result = _CONTEXT.subtract(left, right)
    elif op == "×":
        result = _CONTEXT.multiply(left, right)
    else:
        result = _CONTEXT.divide(left, right)
    if abs(result) >= _LIMIT:
        raise ArithmeticError("overflow")
    return result


class CalculatorApp(TkApp):
    """The desk calculator (``calculator``).

    ``load`` accepts ``{"history": [lines], "memory": "12.5", "display": "17"}``: past
    tape lines, the memory, and a number shown as the last result (all optional).
    """

    title = "Calculator"

    def build(self) -> None:
        """Lay out the display, the memory row, the keypad and the history."""
        root = self.root
        pad = tk.Frame(root)
        pad.pack(side="left", anchor="n", padx=16, pady=16)
        self.display = tk.Label(
            pad,
            text="0",
            anchor="e",
            width=18,
            relief="sunken",
            bg="white",
            font="{DejaVu Sans Mono} 24",
            padx=8,
            pady=8,
        )
        self.display.grid(row=0, column=0, columnspan=4, sticky="ew", pady=(0, 8))
        self.name(self.display, "Display")
        tk.Label(pad, text="Memory:", anchor="w").grid(row=1, column=0, sticky="w")
        self.memory_label = tk.Label(pad, text="0", anchor="w")
        self.memory_label.grid(row=1, column=1, columnspan=3, sticky="w")
        self.name(self.memory_label, "Memory")
        for column, key in enumerate(("MC", "MR", "M+")):
            self._button(pad, key).grid(row=2, column=column, sticky="nsew", padx=2, pady=2)
        for row, keys in enumerate(_KEYPAD, start=3):
            for column, key in enumerate(keys):
                if key:
                    self._button(pad, key).grid(
                        row=row, column=column, sticky="nsew", padx=2, pady=2
                    )
        side = tk.Frame(root)
        side.pack(side="left", fill="y", padx=16, pady=16)
        tk.Label(side, text="History").pack(anchor="w")
        self.history = tk.Listbox(side, width=40, height=24, exportselection=False)
        self.history.pack(fill="y", expand=True)
        self.name(self.history, "History")
        # On the window's own binding tag: keys work whichever widget has the focus.
        root.bind("<Key>", self._on_key)
        self.memory = Decimal(0)
        self._reset_calculation()

    def _button(self, parent: tk.Misc, key: str) -> tk.Button:
        return tk.Button(
            parent,
            text=key,
            width=4,
            height=1,
            font="{DejaVu Sans} 18",
            command=lambda: self.press(key),
        )

    def _reset_calculation(self, shown: str = "0") -> None:
        """Forget the calculation in progress (not the memory, not the history)."""
        self._shown = shown
        # The number being typed, as typed; None when the display shows a result.
        self._entry: str | None = None
        # Whether the display holds a new operand (typed, recalled or negated): if not,
        # a second operator in a row replaces the first instead of computing.
        self._operand = False
        self._left: Decimal | None = None
        self._op: str | None = None
        # The chain so far, numbers and operators, for the history line.
        self._tape: list[str] = []
        self._error = False

    def load(self, config: dict[str, Any]) -> None:
        """Clear the calculation; set the history, memory and shown number from ``config``."""
        shown = format_number(Decimal(str(config.get("display", "0"))))
        self._reset_calculation(shown)
        self.memory = Decimal(str(config.get("memory", "0")))
        self.history.delete(0, "end")
        for line in config.get("history", []):
            self.history.insert("end", str(line))
        self.history.selection_clear(0, "end")
        self.history.activate(0)
        self.history.selection_anchor(0)
        self.history.yview_moveto(0)
        self.history.see("end")
        self._redraw()
        self.root.focus_set()

    # -- the keys -----------------------------------------------------------------

    def press(self, key: str) -> None:
        """Act on one keypad key (``"7"``, ``"+"``, ``"="``, ``"MR"``...)."""
        if key == "C":
            self._reset_calculation()
        elif self._error:
            pass  # only C leaves the Error state
        elif key.isdigit() or key == ".":
            self._digit(key)
        elif key in _OPERATORS:
            self._operator(key)
        elif key == "=":
            self._equals()
        elif key == "⌫":
            self._backspace()
        elif key == "±":
            self._negate()
        elif key in ("MC", "MR", "M+"):
            self._memory_key(key)
        self._redraw()

    def _on_key(self, event: tk.Event) -> None:
        if int(event.state) & _CONTROL_OR_ALT:
            return  # a chord such as alt+/ is a shortcut, not a typed ÷
        key = _KEYSYMS.get(event.keysym) or _CHARS.get(event.char)
        if key is not None:
            self.press(key)

    def _digit(self, key: str) -> None:
        entry = self._entry
        if entry is None:
            entry = "0"
        if key == ".":
            if "." not in entry:
                entry += "."
        elif sum(c.isdigit() for c in entry) >= DIGITS:
            pass  # the display is full
        elif entry in ("0", "-0"):
            entry = entry[:-1] + key
        else:
            entry += key
        self._entry = entry
        self._shown = entry
        self._operand = True

    def _operator(self, op: str) -> None:
        if self._op is not None and not self._operand:
            # Two operators in a row: the second one replaces the first.
            self._op = op
            self._tape[-1] = op
            return
        value = Decimal(self._shown)
        if self._op is None or self._left is None:
            self._left = value
            self._tape = [format_number(value), op]
        else:
            try:
                self._left = _compute(self._left, self._op, value)
            except ArithmeticError:
                self._fail()
                return
            self._tape += [format_number(value), op]
            self._shown = format_number(self._left)
        self._op = op
        self._entry = None
        self._operand = False

    def _equals(self) -> None:
        if self._op is None or self._left is None:
            return  # nothing pending: a number alone is not a calculation
        value = Decimal(self._shown)
        try:
            result = _compute(self._left, self._op, value)
        except ArithmeticError:
            self._fail()
            return
        line = " ".join([*self._tape, format_number(value), "=", format_number(result)])
        self.history.insert("end", line)
        self.history.see("end")
        self._reset_calculation(format_number(result))

    def _backspace(self) -> None:
        if self._entry is None:
            return  # a result is not edited digit by digit
        entry = self._entry[:-1]
        self._entry = "0" if entry in ("", "-") else entry
        self._shown = self._entry

    def _negate(self) -> None:
        text = self._entry if self._entry is not None else self._shown
        if Decimal(text) == 0:
            return
        negated = text[1:] if text.startswith("-") else "-" + text
        if self._entry is not None:
            self._entry = negated
        self._shown = negated
        self._operand = True

    def _memory_key(self, key: str) -> None:
        if key == "MC":
            self.memory = Decimal(0)
        elif key == "MR":
            self._shown = format_number(self.memory)
            self._entry = None
            self._operand = True
        else:
            try:
                total = _CONTEXT.add(self.memory, Decimal(self._shown))
            except ArithmeticError:
                total = _LIMIT
            if abs(total) >= _LIMIT:
                self._fail()
                return
            self.memory = total
            self._entry = None  # the next digit starts a new number

    def _fail(self) -> None:
        self._reset_calculation(ERROR)
        self._error = True

    def _redraw(self) -> None:
        self.display.config(text=self._shown)
        self.memory_label.config(text=format_number(self.memory))

    def state(self) -> dict[str, Any]:
        """The display's text, the memory and the history lines (oldest first)."""
        return {
            "display": self._shown,
            "memory": format_number(self.memory),
            "history": [str(line) for line in self.history.get(0, "end")],
        }

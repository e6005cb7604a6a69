"""Mouse and keyboard input to an X display, and screenshots of it.

``XTestInput`` fakes input through the XTEST extension over python-xlib (one round
trip per action); ``XdotoolInput`` runs ``xdotool`` for the same actions where
python-xlib or XTEST is missing; ``make_input`` picks. ``keysyms`` reads a chord such
as ``"ctrl+shift+s"``. ``ScreenCapture`` grabs the screen as an RGB array, through
``mss`` (shared memory, ~0.5 ms for 1280x800) or, without it, ``XGetImage``. Each takes
the display's cookie file (``xauthority``): the env's X server refuses clients without it.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from turngym.envs.gui.display import using_xauthority

__all__ = [
    "InputDevice",
    "ScreenCapture",
    "XTestInput",
    "XdotoolInput",
    "keysym_names",
    "make_input",
]

_KEY_ALIASES = {
    "ctrl": "Control_L",
    "control": "Control_L",
    "shift": "Shift_L",
    "alt": "Alt_L",
    "meta": "Meta_L",
    "super": "Super_L",
    "win": "Super_L",
    "cmd": "Super_L",
    "enter": "Return",
    "return": "Return",
    "esc": "Escape",
    "escape": "Escape",
    "tab": "Tab",
    "backspace": "BackSpace",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "space": "space",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "home": "Home",
    "end": "End",
    "pageup": "Prior",
    "pagedown": "Next",
    "plus": "plus",
    "minus": "minus",
    **{f"f{i}": f"F{i}" for i in range(1, 13)},
}
_CHAR_NAMES = {"\n": "Return", "\t": "Tab", " ": "space"}


def keysym_names(chord: str) -> list[str]:
    """The X keysym names of a ``+``-joined chord; ``ValueError`` says which key is unknown.

    >>> keysym_names("ctrl+S")
    ['Control_L', 's']
    >>> keysym_names("Return")
    ['Return']
    """
    from Xlib import XK

    parts = [p.strip() for p in chord.strip().split("+")] if chord.strip() != "+" else ["plus"]
    if any(not p for p in parts):
        raise ValueError(f"key: {chord!r} has an empty key; write e.g. ctrl+s")
    if len(parts) > 5:
        raise ValueError(f"key: at most 5 keys in a chord, got {len(parts)}")
    names = []
    for part in parts:
        name = _KEY_ALIASES.get(part.lower())
        if name is None:
            name = part.lower() if len(part) == 1 and part.isalpha() else part
            if XK.string_to_keysym(name) == 0 and len(part) != 1:
                raise ValueError(
                    f"key: unknown key {part!r}; use a character or a name such as Return, "
                    "Escape, Tab, BackSpace, Delete, Up, Home, F2, with ctrl/shift/alt"
                )
        names.append(name)
    return names


class InputDevice(Protocol):
    """What the env needs from an input backend."""

    def click(self, x: int, y: int, button: int = 1, count: int = 1) -> None:
        """Move to (x, y) and click ``count`` times with ``button``."""

    def move(self, x: int, y: int) -> None:
        """Move the pointer."""

    def drag(self, x1: int, y1: int, x2: int, y2: int) -> None:
        """Press at the first point, move to the second, release."""

    def scroll(self, x: int, y: int, dy: int) -> None:
        """Turn the wheel ``dy`` notches (negative: up) at (x, y)."""

    def key(self, chord: str) -> None:
        """Press and release a chord (``ctrl+s``)."""

    def type(self, text: str) -> None:
        """Type ``text``."""

    def close(self) -> None:
        """Release the connection."""


class XTestInput:
    """Fake input through the XTEST extension (python-xlib); one round trip per action.

    Characters the keymap lacks are typed on borrowed spare keycodes, remapped as
    needed. An app reads a key event's symbol when it handles the event, and a mapping
    change makes it refetch the keymap, so no keycode is remapped while a borrowed
    key's press may be unread: ``settle()`` (the env sets it to drain its apps' X
    events) runs first.
    """

    settle: Callable[[], None] | None = None
    """Called before a remap when a borrowed keycode was pressed since the last settle."""

    def __init__(self, display_name: str, *, xauthority: str | None = None) -> None:
        from Xlib import XK, X, display
        from Xlib.ext import xtest

        self._X, self._XK, self._xtest = X, XK, xtest
        with using_xauthority(xauthority):
            self.dpy = display.Display(display_name)
        if not self.dpy.has_extension("XTEST"):
            self.dpy.close()
            raise RuntimeError(f"the X server {display_name} has no XTEST extension")
        low, high = self.dpy.display.info.min_keycode, self.dpy.display.info.max_keycode
        mapping = self.dpy.get_keyboard_mapping(low, high - low + 1)
        # Keycodes with no symbols (19 on Xvfb): borrowed to type what the keymap lacks,
        # least recently used first.
        self._spare = [low + i for i, syms in enumerate(mapping) if not any(syms)]
        self._borrowed: dict[int, int] = {}
        self._pressed: set[int] = set()  # borrowed keycodes pressed since the last settle

    def settled(self) -> None:
        """The apps have handled every event sent so far (the env observed them)."""
        self._pressed.clear()

    def _fake(self, kind: int, detail: int = 0, x: int = 0, y: int = 0) -> None:
        self._xtest.fake_input(self.dpy, kind, detail, x=x, y=y)

    def move(self, x: int, y: int) -> None:
        """Move the pointer to (x, y)."""
        self._fake(self._X.MotionNotify, x=x, y=y)
        self.dpy.sync()

    def click(self, x: int, y: int, button: int = 1, count: int = 1) -> None:
        """Move to (x, y) and click ``count`` times with ``button``."""
        self._fake(self._X.MotionNotify, x=x, y=y)
        for _ in range(count):
            self._fake(self._X.ButtonPress, button)
            self._fake(self._X.ButtonRelease, button)
        self.dpy.sync()

    def drag(self, x1: int, y1: int, x2: int, y2: int) -> None:
        """Press at (x1, y1), move there in steps, release at (x2, y2)."""
        self._fake(self._X.MotionNotify, x=x1, y=y1)
        self._fake(self._X.ButtonPress, 1)
        for k in range(1, 5):
            self._fake(self._X.MotionNotify, x=x1 + (x2 - x1) * k // 4, y=y1 + (y2 - y1) * k // 4)
        self._fake(self._X.ButtonRelease, 1)
        self.dpy.sync()

    def scroll(self, x: int, y: int, dy: int) -> None:
        """Turn the wheel at (x, y): buttons 4 (up) and 5 (down)."""
        self._fake(self._X.MotionNotify, x=x, y=y)
        button = 4 if dy < 0 else 5
        for _ in range(abs(dy)):
            self._fake(self._X.ButtonPress, button)
            self._fake(self._X.ButtonRelease, button)
        self.dpy.sync()

    def _keycode(self, keysym: int) -> tuple[int, bool]:
        """A keycode for ``keysym`` and whether Shift is needed, borrowing one if absent."""
        for keycode, index in self.dpy.keysym_to_keycodes(keysym):
            if index in (0, 1):
                return keycode, index == 1
        for keycode, borrowed in self._borrowed.items():
            if borrowed == keysym:
                self._spare.remove(keycode)
                self._spare.append(keycode)
                return keycode, False
        if not self._spare:
            raise RuntimeError("no spare keycode to type this character")
        keycode = self._spare.pop(0)
        self._spare.append(keycode)
        if self._pressed:
            # An app may still hold a borrowed key's press unread: let it catch up first,
            # or it could read that press against the changed keymap.
            self.dpy.sync()
            if self.settle is not None:
                self.settle()
            self.settled()
        self.dpy.change_keyboard_mapping(keycode, [(keysym, keysym)])
        self.dpy.sync()
        self._borrowed[keycode] = keysym
        return keycode, False

    def key(self, chord: str) -> None:
        """Press the chord's keys in order, release them in reverse."""
        codes = []
        for name in keysym_names(chord):
            keysym = self._XK.string_to_keysym(name) or ord(name)
            codes.append(self._keycode(keysym)[0])
        self._pressed.update(code for code in codes if code in self._borrowed)
        for code in codes:
            self._fake(self._X.KeyPress, code)
        for code in reversed(codes):
            self._fake(self._X.KeyRelease, code)
        self.dpy.sync()

    def type(self, text: str) -> None:
        """Type ``text`` one character at a time (Shift where the keymap needs it)."""
        shift = self._keycode(self._XK.string_to_keysym("Shift_L"))[0]
        for char in text:
            keysym = _char_keysym(char, self._XK)
            code, shifted = self._keycode(keysym)
            if code in self._borrowed:
                self._pressed.add(code)
            if shifted:
                self._fake(self._X.KeyPress, shift)
            self._fake(self._X.KeyPress, code)
            self._fake(self._X.KeyRelease, code)
            if shifted:
                self._fake(self._X.KeyRelease, shift)
        self.dpy.sync()

    def close(self) -> None:
        """Close the X connection."""
        with contextlib.suppress(Exception):  # a dead server: nothing left to close
            self.dpy.close()


def _char_keysym(char: str, XK: Any) -> int:
    if char in _CHAR_NAMES:
        return int(XK.string_to_keysym(_CHAR_NAMES[char]))
    code = ord(char)
    # Latin-1 printable characters are their own keysyms; the rest are Unicode keysyms.
    return code if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF else 0x01000000 | code


class XdotoolInput:
    """The same actions through the ``xdotool`` command (slower: a process per action)."""

    def __init__(self, display_name: str, *, xauthority: str | None = None) -> None:
        if shutil.which("xdotool") is None:
            raise RuntimeError("xdotool is not installed (apt-get install xdotool)")
        self.display_name = display_name
        self.xauthority = xauthority

    def _run(self, *args: str) -> None:
        env = {"DISPLAY": self.display_name, "PATH": "/usr/bin:/bin"}
        if self.xauthority is not None:
            env["XAUTHORITY"] = self.xauthority
        subprocess.run(["xdotool", *args], env=env, check=True, capture_output=True, timeout=10)

    def move(self, x: int, y: int) -> None:
        """Move the pointer."""
        self._run("mousemove", str(x), str(y))

    def click(self, x: int, y: int, button: int = 1, count: int = 1) -> None:
        """Move and click."""
        self._run("mousemove", str(x), str(y), "click", "--repeat", str(count), str(button))

    def drag(self, x1: int, y1: int, x2: int, y2: int) -> None:
        """Press, move, release."""
        self._run("mousemove", str(x1), str(y1), "mousedown", "1")
        self._run("mousemove", str(x2), str(y2), "mouseup", "1")

    def scroll(self, x: int, y: int, dy: int) -> None:
        """Wheel clicks at (x, y)."""
        button = "4" if dy < 0 else "5"
        self._run("mousemove", str(x), str(y), "click", "--repeat", str(abs(dy)), button)

    def key(self, chord: str) -> None:
        """A chord such as ``ctrl+s``."""
        self._run("key", "--clearmodifiers", "+".join(keysym_names(chord)))

    def type(self, text: str) -> None:
        """Type text."""
        self._run("type", "--delay", "0", "--", text)

    def close(self) -> None:
        """Nothing to release."""


def make_input(
    display_name: str, backend: str = "auto", *, xauthority: str | None = None
) -> InputDevice:
    """An input backend for ``display_name``: ``"xtest"``, ``"xdotool"`` or ``"auto"``."""
    if backend not in ("auto", "xtest", "xdotool"):
        raise ValueError(f"input backend must be 'auto', 'xtest' or 'xdotool', got {backend!r}")
    if backend in ("auto", "xtest"):
        try:
            return XTestInput(display_name, xauthority=xauthority)
        except (ImportError, RuntimeError):
            if backend == "xtest":
                raise
    return XdotoolInput(display_name, xauthority=xauthority)


def _bgra_to_rgb(bgra: np.ndarray, rgb: np.ndarray) -> None:
    rgb[..., 0] = bgra[..., 2]
    rgb[..., 1] = bgra[..., 1]
    rgb[..., 2] = bgra[..., 0]


class ScreenCapture:
    """Screenshots of a display as ``(H, W, 3)`` uint8 RGB arrays (mss, else XGetImage)."""

    def __init__(
        self, display_name: str, size: tuple[int, int], *, xauthority: str | None = None
    ) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.size = size
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="turngym-screen")
        self._mss: Any = None
        self._root: Any = None
        try:
            import mss

            with using_xauthority(xauthority):
                self._mss = (
                    mss.MSS(display=display_name)
                    if hasattr(mss, "MSS")
                    else mss.mss(display=display_name)
                )
            self._monitor = {"left": 0, "top": 0, "width": size[0], "height": size[1]}
        except ImportError:
            from Xlib import display

            with using_xauthority(xauthority):
                self._dpy = display.Display(display_name)
            self._root = self._dpy.screen().root

    def grab(self) -> np.ndarray:
        """The whole screen now, RGB."""
        width, height = self.size
        if self._mss is not None:
            raw = self._mss.grab(self._monitor).raw
        else:
            from Xlib import X

            raw = self._root.get_image(0, 0, width, height, X.ZPixmap, 0xFFFFFFFF).data
        bgra = np.frombuffer(raw, np.uint8).reshape(height, width, 4)
        rgb = np.empty((height, width, 3), np.uint8)
        # NumPy lets go of the GIL while it copies: two halves convert at once.
        half = height // 2
        top = self._pool.submit(_bgra_to_rgb, bgra[:half], rgb[:half])
        _bgra_to_rgb(bgra[half:], rgb[half:])
        top.result()
        return rgb

    def close(self) -> None:
        """Release the X connection and the conversion thread."""
        self._pool.shutdown(wait=False)
        try:
            if self._mss is not None:
                self._mss.close()
            elif self._root is not None:
                self._dpy.close()
        except Exception:  # a dead server: nothing left to close
            pass

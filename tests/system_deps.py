"""Skip markers for tests that need a system package, and CI's guard against skipping.

CI (``.ci/run``) sets ``TURNGYM_REQUIRE_SYSTEM_DEPS=1``: there a missing package makes
its tests fail instead of skip, so nothing is silently left untested. ``make check``
(the inner loop) sets ``TURNGYM_CHECK=1``: there Chromium, Xvfb, bubblewrap and
Stockfish count as missing even where installed, so the loop needs none of them.
"""

from __future__ import annotations

import os

import pytest

REQUIRED = bool(os.environ.get("TURNGYM_REQUIRE_SYSTEM_DEPS"))
INNER_LOOP = bool(os.environ.get("TURNGYM_CHECK"))
"""``make check``: every system package counts as missing (those tests skip)."""


def needs(found: object, what: str, install: str) -> pytest.MarkDecorator:
    """Skip unless ``found`` (a path, a module...) is truthy, or CI requires ``what``."""
    if INNER_LOOP:
        return pytest.mark.skip(
            reason=f"make check leaves out what needs {what} (make test runs it)"
        )
    return pytest.mark.skipif(
        not found and not REQUIRED,
        reason=f"{what} is not installed ({install}; `make test` installs it as root)",
    )


def stockfish() -> pytest.MarkDecorator:
    """Skip unless the Stockfish binary is found."""
    from turngym.envs.text.chess_engine import find_stockfish

    return needs(find_stockfish(), "Stockfish", "apt-get install stockfish")


def chromium_found() -> bool:
    """Whether Playwright imports and a Chromium binary is found (Debian's or $TURNGYM_CHROMIUM)."""
    import importlib.util

    from turngym.envs.web.browser import BrowserError, find_chromium

    if INNER_LOOP:
        return False
    try:
        return importlib.util.find_spec("playwright") is not None and find_chromium() is not None
    except BrowserError:
        return False


def chromium() -> pytest.MarkDecorator:
    """Skip unless Playwright and Chromium are installed (the web envs' browser)."""
    return needs(
        chromium_found(),
        "Chromium (+ Playwright)",
        "apt-get install chromium; pip install 'turngym[web]'",
    )


def bubblewrap() -> pytest.MarkDecorator:
    """Skip unless bubblewrap is installed and can make its namespaces (the SWE sandbox)."""
    from turngym.host.sandbox import bwrap_available

    if INNER_LOOP:
        return pytest.mark.skip(reason="make check leaves out the SWE sandbox (make test runs it)")
    ok, why = bwrap_available()
    return pytest.mark.skipif(
        not ok and not REQUIRED,
        reason=f"{why}; `make test` installs bubblewrap as root",
    )


def x11_found() -> bool:
    """Whether Xvfb, python-xlib and Tk are there (the desktop envs' X server and apps)."""
    import importlib.util
    import shutil

    if INNER_LOOP:
        return False
    modules = ("Xlib", "mss", "tkinter")
    return shutil.which("Xvfb") is not None and all(importlib.util.find_spec(m) for m in modules)


def x11() -> pytest.MarkDecorator:
    """Skip unless Xvfb, python-xlib, mss and Tk are installed (the desktop envs)."""
    return needs(
        x11_found(),
        "Xvfb (+ python-xlib, mss, Tk)",
        "apt-get install xvfb xterm; pip install 'turngym[gui]'",
    )

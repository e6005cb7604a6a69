"""Old import paths of modules that moved, kept for one release as modules that warn.

A moved module's old file holds only ``__getattr__ = moved_to(__name__, "its.new.home")``:
any name read from it (``from <old module> import <name>``) is the new module's,
with a ``DeprecationWarning`` that names the new home.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["moved_to"]


def moved_to(old: str, new: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` that hands out module ``new``'s names, warning each time.

    >>> import warnings
    >>> getattr_ = moved_to("turngym.old_tables", "turngym.tables")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     getattr_("format_table").__name__
    'format_table'
    >>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
    turngym.old_tables.format_table moved to turngym.tables.format_table;
    this alias goes in the next release
    """

    def __getattr__(name: str) -> Any:
        # Tools probe modules for dunders (doctest, inspect, copy); those are no moved API.
        if name.startswith("__"):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(new), name, _MISSING)
        if value is _MISSING:
            raise AttributeError(f"module {old!r} has no attribute {name!r} (it moved to {new})")
        warnings.warn(
            f"{old}.{name} moved to {new}.{name}; this alias goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    return __getattr__


_MISSING = object()

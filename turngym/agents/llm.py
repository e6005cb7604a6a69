"""Deprecated: the LLM agents moved to ``turngym.sdk.agents.llm`` (the sdk layer).

Its names still import from here for one release, each with a ``DeprecationWarning``.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NEW = "turngym.sdk.agents.llm"


def __getattr__(name: str) -> Any:
    # importlib, not an import statement: the sdk layer is above this one.
    module = importlib.import_module(_NEW)
    if name.startswith("__") or not hasattr(module, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"{__name__}.{name} moved to {_NEW}.{name}; this alias goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(module, name)

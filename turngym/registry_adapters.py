"""Deprecated: the adapters' rows now live one module per suite in ``turngym.registry``.

``turngym.registry.openspiel``, ``babyai``, ``crafter``, ``nethack``, ``textworld`` and
``reasoning_gym`` hold them; ``turngym.registry.table.ADAPTERS`` is all of them in
order. ``adapter_rows`` still works for one release, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings
from typing import Any

from turngym.registry.base import EnvEntry

__all__ = ["adapter_rows"]


def adapter_rows(*_builders: Any) -> tuple[EnvEntry, ...]:
    """Deprecated: ``turngym.registry.table.ADAPTERS`` (the row builders are not needed)."""
    from turngym.registry.table import ADAPTERS

    warnings.warn(
        "turngym.registry_adapters.adapter_rows moved to turngym.registry.table.ADAPTERS; "
        "this alias goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return ADAPTERS

"""transformers as turngym calls it: the KV cache's name across versions, quiet loading.

transformers 5 renamed ``past_key_values`` to ``cache`` (the old name warns and goes
in 5.40); turngym supports ``transformers>=4.45``, so every forward that passes or
reads a cache goes through ``cache_kwargs`` and ``output_cache``. ``quiet()`` hides the
"Loading weights" / "Writing model shards" bars of library calls (a trainer's
checkpoint, a policy's load) unless ``TURNGYM_HF_PROGRESS=1`` asks for them. Nothing
here imports transformers until it is first called.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["cache_kwargs", "output_cache", "quiet"]

_QUIET_LOCK = threading.Lock()
_quiet_depth = 0  # nested and concurrent quiet() blocks: the bars return after the last
_bars_were_on = True


@functools.cache
def _name() -> str:
    """``"cache"`` where this transformers' outputs carry that field, else the old name."""
    from transformers.modeling_outputs import BaseModelOutputWithPast

    fields = getattr(BaseModelOutputWithPast, "__dataclass_fields__", {})
    return "cache" if "cache" in fields else "past_key_values"


def cache_kwargs(cache: Any) -> dict[str, Any]:
    """The keyword argument that hands ``cache`` to a model's ``forward``."""
    return {_name(): cache}


def output_cache(output: Any) -> Any:
    """The KV cache a forward with ``use_cache=True`` returned."""
    return getattr(output, _name())


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Transformers' progress bars off inside (as they were after), unless asked for.

    >>> with quiet():
    ...     pass
    """
    global _quiet_depth, _bars_were_on
    if os.environ.get("TURNGYM_HF_PROGRESS", "") not in ("", "0"):
        yield
        return
    from transformers.utils import logging as hf_logging

    with _QUIET_LOCK:
        if _quiet_depth == 0:
            _bars_were_on = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()
        _quiet_depth += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _quiet_depth -= 1
            if _quiet_depth == 0 and _bars_were_on:
                hf_logging.enable_progress_bar()

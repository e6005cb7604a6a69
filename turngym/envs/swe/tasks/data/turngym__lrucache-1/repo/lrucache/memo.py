"""Memoize a one-argument function in an LRUCache."""

import functools
from collections.abc import Callable, Hashable
from typing import Any

from lrucache.cache import LRUCache

_MISSING = object()


def memoize(capacity: int) -> Callable[[Callable[[Hashable], Any]], Callable[[Hashable], Any]]:
    """Cache the latest ``capacity`` results of a one-argument function."""

    def decorate(fn: Callable[[Hashable], Any]) -> Callable[[Hashable], Any]:
        cache = LRUCache(capacity)

        @functools.wraps(fn)
        def wrapper(arg: Hashable) -> Any:
            value = cache.get(arg, _MISSING)
            if value is _MISSING:
                value = fn(arg)
                cache.put(arg, value)
            return value

        wrapper.cache = cache  # type: ignore[attr-defined]
        return wrapper

    return decorate

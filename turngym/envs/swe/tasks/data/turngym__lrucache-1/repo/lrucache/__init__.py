"""A least-recently-used cache and a memoizing decorator built on it."""

from lrucache.cache import LRUCache
from lrucache.memo import memoize

__all__ = ["LRUCache", "memoize"]

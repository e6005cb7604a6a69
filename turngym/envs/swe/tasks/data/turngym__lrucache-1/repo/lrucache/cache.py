"""A bounded mapping that evicts the least recently used key."""

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any


class LRUCache:
    """At most ``capacity`` entries; reads and writes refresh a key."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self.capacity = capacity
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The value for ``key`` (now the most recent), or ``default``."""
        if key in self._data:
            self._data.move_to_end(key)
            self.hits += 1
            return self._data[key]
        self.misses += 1
        return default

    def put(self, key: Hashable, value: Any) -> None:
        """Store ``value``, evicting the least recently used key if full."""
        if key in self._data:
            self._data.move_to_end(key)
        elif len(self._data) > self.capacity:
            self._data.popitem(last=False)
        self._data[key] = value

    def __contains__(self, key: Hashable) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

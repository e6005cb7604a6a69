"""An in-memory stock list keyed by SKU."""

from dataclasses import dataclass


@dataclass
class Item:
    """One product line and its units on hand."""

    sku: str
    name: str
    qty: int = 0


class Inventory:
    """Products by SKU."""

    def __init__(self) -> None:
        self._items: dict[str, Item] = {}

    def add(self, sku: str, name: str, qty: int = 0) -> Item:
        """Register ``sku`` if new and add ``qty`` units."""
        if qty < 0:
            raise ValueError("qty must be >= 0")
        item = self._items.get(sku)
        if item is None:
            item = self._items[sku] = Item(sku, name, 0)
        item.qty += qty
        return item

    def remove(self, sku: str, qty: int) -> Item:
        """Take ``qty`` units of ``sku`` out of stock."""
        item = self._items[sku]
        if qty > item.qty:
            raise ValueError(f"only {item.qty} of {sku} in stock")
        item.qty -= qty
        return item

    def quantity(self, sku: str) -> int:
        """Units on hand (0 for an unknown SKU)."""
        item = self._items.get(sku)
        return item.qty if item else 0

    def low_stock(self, threshold: int = 5) -> list[Item]:
        """Items with fewer than ``threshold`` units, sorted by SKU."""
        return sorted(
            (item for item in self._items.values() if item.qty >= threshold),
            key=lambda item: item.sku,
        )

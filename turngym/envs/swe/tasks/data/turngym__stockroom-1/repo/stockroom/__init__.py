"""A tiny stock list with a nightly restock report."""

from stockroom.inventory import Inventory, Item
from stockroom.report import restock_order

__all__ = ["Inventory", "Item", "restock_order"]

"""The nightly restock report."""

from stockroom.inventory import Inventory


def restock_order(inventory: Inventory, threshold: int = 5, target: int = 20) -> dict[str, int]:
    """SKU -> units to order so every low item gets back to ``target``."""
    return {item.sku: target - item.qty for item in inventory.low_stock(threshold)}

"""Merge several shopping lists into one, adding up quantities."""
from shoplist.merge import merge
from shoplist.parse import Item, format_item, parse_line

__all__ = ["Item", "format_item", "merge", "parse_line"]

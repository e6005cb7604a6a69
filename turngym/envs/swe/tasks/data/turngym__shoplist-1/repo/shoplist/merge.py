"""Merge shopping lists: quantities of the same item are added up."""
from shoplist.parse import Item, format_item, parse_line


def _items(text):
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            yield parse_line(line)


def merge(*lists):
    """Return the merged list as lines, in order of each item's first appearance."""
    totals = {}
    for text in lists:
        for item in _items(text):
            if item.name in totals:
                first = totals[item.name]
                item = Item(item.name, first.qty + item.qty, first.unit)
            totals[item.name] = item
    return [format_item(item) for item in totals.values()]

"""Parse and format shopping list lines such as "2 kg flour", "3 eggs" or "milk"."""
from dataclasses import dataclass

_ALIASES = {
    "g": "g", "gram": "g", "grams": "g", "kg": "kg", "kilo": "kg", "kilos": "kg",
    "ml": "ml", "l": "l", "litre": "l", "litres": "l", "liter": "l", "liters": "l",
    "pcs": "pcs", "x": "pcs",
}


@dataclass(frozen=True)
class Item:
    name: str
    qty: float
    unit: str = "pcs"


def parse_line(line):
    """Return the Item for one line; a missing quantity means 1, a missing unit means pieces."""
    words = line.strip().lower().split()
    qty, unit = 1.0, "pcs"
    if words:
        try:
            qty = float(words[0].replace(",", "."))
            words = words[1:]
        except ValueError:
            pass
    if len(words) > 1 and words[0] in _ALIASES:
        unit = _ALIASES[words.pop(0)]
    if not words:
        raise ValueError(f"no item name in {line!r}")
    if qty <= 0:
        raise ValueError(f"quantity must be positive in {line!r}")
    return Item(" ".join(words), qty, unit)


def format_item(item):
    """Format an Item as a line, e.g. "2 kg flour" or "3 eggs"."""
    if item.unit == "pcs":
        return f"{item.qty:g} {item.name}"
    return f"{item.qty:g} {item.unit} {item.name}"

"""Discount codes. A discount computes its amount (in cents) from the cart's subtotal."""
from dataclasses import dataclass

from pricing.money import percent_of


@dataclass(frozen=True)
class PercentOff:
    """pct percent off the lines in category (every line if category is None)."""

    pct: int
    category: str | None = None

    def amount(self, subtotal):
        return percent_of(subtotal, self.pct)


@dataclass(frozen=True)
class AmountOff:
    """A fixed amount off orders of at least min_subtotal cents."""

    cents: int
    min_subtotal: int = 0

    def amount(self, subtotal):
        return min(self.cents, subtotal) if subtotal >= self.min_subtotal else 0


CODES = {
    "SAVE10": PercentOff(10),
    "BOOKS20": PercentOff(20, category="books"),
    "FIVER": AmountOff(500, min_subtotal=2500),
}


def lookup(code):
    """Return the discount for a code (case and surrounding spaces ignored)."""
    try:
        return CODES[code.strip().upper()]
    except KeyError:
        raise KeyError(f"unknown discount code {code!r}; valid codes: {', '.join(CODES)}") from None

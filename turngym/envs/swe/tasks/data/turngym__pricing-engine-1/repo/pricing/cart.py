"""The cart: lines keyed by SKU, applied discount codes, and totals."""
from dataclasses import dataclass

from pricing.discounts import lookup
from pricing.money import format_cents


@dataclass
class Line:
    sku: str
    category: str
    unit_cents: int
    qty: int = 1

    @property
    def total(self):
        return self.unit_cents * self.qty


class Cart:
    def __init__(self):
        self.lines = {}
        self.codes = []

    def add(self, sku, category, unit_cents, qty=1):
        if qty < 1 or unit_cents < 0:
            raise ValueError("qty must be >= 1 and unit_cents >= 0")
        if sku in self.lines:
            self.lines[sku].qty += qty
        else:
            self.lines[sku] = Line(sku, category, unit_cents, qty)

    def remove(self, sku, qty=None):
        line = self.lines[sku]
        if qty is None or qty >= line.qty:
            del self.lines[sku]
        else:
            line.qty -= qty

    def apply_code(self, code):
        discount = lookup(code)
        if discount not in self.codes:
            self.codes.append(discount)

    def subtotal(self):
        return sum(line.total for line in self.lines.values())

    def discount(self):
        """Return the total discount in cents; never more than the subtotal."""
        subtotal = self.subtotal()
        return min(sum(d.amount(subtotal) for d in self.codes), subtotal)

    def total(self):
        return self.subtotal() - self.discount()

    def receipt(self):
        rows = [f"{l.sku} x{l.qty} {format_cents(l.total)}" for l in self.lines.values()]
        if self.codes:
            rows.append(f"discount {format_cents(-self.discount())}")
        rows.append(f"total {format_cents(self.total())}")
        return "\n".join(rows)

"""Price a shopping cart: lines, discount codes and totals, in integer cents."""
from pricing.cart import Cart, Line
from pricing.discounts import CODES, AmountOff, PercentOff, lookup

__all__ = ["CODES", "AmountOff", "Cart", "Line", "PercentOff", "lookup"]

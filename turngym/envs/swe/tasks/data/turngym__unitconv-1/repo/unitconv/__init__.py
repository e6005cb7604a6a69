"""Convert quantities between units of length, mass and temperature."""
from unitconv.convert import convert, convert_delta, parse_quantity
from unitconv.table import UNITS, Unit, UnitError

__all__ = ["UNITS", "Unit", "UnitError", "convert", "convert_delta", "parse_quantity"]

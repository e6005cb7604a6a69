"""The unit table: each unit maps to its dimension's base unit by (value + offset) * factor."""
from dataclasses import dataclass


class UnitError(ValueError):
    """Raised for unknown units or conversions between dimensions."""


@dataclass(frozen=True)
class Unit:
    name: str
    dimension: str
    factor: float
    offset: float = 0.0


UNITS = {u.name: u for u in [
    Unit("m", "length", 1.0), Unit("km", "length", 1000.0), Unit("cm", "length", 0.01),
    Unit("mi", "length", 1609.344), Unit("ft", "length", 0.3048), Unit("in", "length", 0.0254),
    Unit("kg", "mass", 1.0), Unit("g", "mass", 0.001), Unit("lb", "mass", 0.45359237),
    Unit("K", "temperature", 1.0),
    Unit("degC", "temperature", 1.0, 273.15),
    Unit("degF", "temperature", 5 / 9, 459.67),
]}
ALIASES = {"meter": "m", "meters": "m", "celsius": "degC", "fahrenheit": "degF", "kelvin": "K"}


def lookup(name):
    """Return the Unit called name (or one of its aliases)."""
    key = ALIASES.get(name.lower(), name)
    try:
        return UNITS[key]
    except KeyError:
        raise UnitError(f"unknown unit {name!r}; known: {', '.join(sorted(UNITS))}") from None

"""Conversions of absolute values and of differences (deltas)."""
from unitconv.table import UnitError, lookup


def _to_base(value, unit, delta):
    # A difference of temperatures has no zero point, so the offset does not apply.
    if delta and unit.offset == 0:
        return value * unit.factor
    return (value + unit.offset) * unit.factor


def _from_base(value, unit, delta):
    if delta or unit.offset == 0:
        return value / unit.factor
    return value / unit.factor - unit.offset


def _convert(value, src, dst, delta):
    a, b = lookup(src), lookup(dst)
    if a.dimension != b.dimension:
        raise UnitError(f"cannot convert {a.dimension} ({src}) to {b.dimension} ({dst})")
    return _from_base(_to_base(value, a, delta), b, delta)


def convert(value, src, dst):
    """Convert the value of a quantity, e.g. convert(20, "degC", "degF") == 68."""
    return _convert(value, src, dst, delta=False)


def convert_delta(value, src, dst):
    """Convert a difference, e.g. a rise of 10 degC is a rise of 18 degF."""
    return _convert(value, src, dst, delta=True)


def parse_quantity(text):
    """Parse "12.5 km" into (12.5, "km")."""
    number, _, unit = text.strip().partition(" ")
    try:
        value = float(number)
    except ValueError:
        raise UnitError(f"expected '<number> <unit>', got {text!r}") from None
    return value, lookup(unit.strip()).name

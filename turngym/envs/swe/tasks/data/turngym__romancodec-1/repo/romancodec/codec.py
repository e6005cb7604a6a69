"""Integer <-> Roman numeral conversion (standard form, 1..3999)."""
import re

MAX_VALUE = 3999

_PAIRS = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"),
    (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
    (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]
_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_CANONICAL = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")


class RomanError(ValueError):
    """Raised for numbers or numerals outside the standard form."""


def to_roman(number):
    """Return the Roman numeral for an int in 1..3999."""
    if not isinstance(number, int) or isinstance(number, bool):
        raise RomanError(f"expected an int, got {type(number).__name__}")
    if not 1 <= number < MAX_VALUE:
        raise RomanError(f"{number} is outside 1..{MAX_VALUE}")
    parts = []
    for value, symbol in _PAIRS:
        count, number = divmod(number, value)
        parts.append(symbol * count)
    return "".join(parts)


def from_roman(numeral):
    """Return the int for a standard-form Roman numeral (case-insensitive)."""
    text = numeral.strip().upper()
    if not text or not _CANONICAL.match(text):
        raise RomanError(f"not a standard Roman numeral: {numeral!r}")
    total = 0
    for i, ch in enumerate(text):
        value = _VALUES[ch]
        if i + 1 < len(text) and _VALUES[text[i + 1]] > value:
            total -= value
        else:
            total += value
    return total


def is_roman(text):
    """Return True if text is a standard-form Roman numeral."""
    try:
        from_roman(text)
    except (RomanError, AttributeError):
        return False
    return True

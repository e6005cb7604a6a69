"""Turn a percentage into the whole percent shown to students and a letter grade.

Course policy: percentages are rounded to the nearest whole percent, halves
rounding up (86.5 -> 87), before the letter cutoffs are applied.
"""
CUTOFFS = [(93, "A"), (90, "A-"), (87, "B+"), (83, "B"), (80, "B-"),
           (77, "C+"), (73, "C"), (70, "C-"), (60, "D")]


def whole_percent(percent):
    """Return percent rounded to a whole number, halves up."""
    if percent < 0:
        raise ValueError(f"percent cannot be negative: {percent}")
    return round(percent)


def letter_for(percent):
    """Return the letter grade for a percentage."""
    shown = whole_percent(percent)
    for cutoff, letter in CUTOFFS:
        if shown >= cutoff:
            return letter
    return "F"

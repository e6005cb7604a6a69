"""Money helpers; all amounts are integer cents."""


def percent_of(cents, pct):
    """Return pct percent of cents, rounded half up to a whole cent."""
    return (cents * pct + 50) // 100


def format_cents(cents):
    """Format cents as dollars, e.g. 1234 -> "$12.34", -50 -> "-$0.50"."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars}.{rest:02d}"

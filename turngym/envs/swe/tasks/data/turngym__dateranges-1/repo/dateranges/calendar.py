"""Calendar helpers built on DateRange."""

from datetime import date, timedelta

from dateranges.span import DateRange


def month_range(year: int, month: int) -> DateRange:
    """The whole of ``month`` in ``year``."""
    first = date(year, month, 1)
    following = date(year + month // 12, month % 12 + 1, 1)
    return DateRange(first, following - timedelta(days=1))


def weekdays(span: DateRange) -> list[date]:
    """Monday-to-Friday days of ``span``."""
    return [day for day in span.days() if day.weekday() < 5]

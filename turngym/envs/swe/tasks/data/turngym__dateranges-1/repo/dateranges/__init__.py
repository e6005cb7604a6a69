"""Inclusive date ranges and calendar helpers."""

from dateranges.calendar import month_range, weekdays
from dateranges.span import DateRange

__all__ = ["DateRange", "month_range", "weekdays"]

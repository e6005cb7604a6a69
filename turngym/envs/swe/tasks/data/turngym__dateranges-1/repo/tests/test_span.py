from datetime import date

import pytest

from dateranges import DateRange, month_range


def test_len_counts_both_ends():
    assert len(DateRange(date(2024, 3, 1), date(2024, 3, 3))) == 3


def test_contains():
    span = DateRange(date(2024, 3, 1), date(2024, 3, 3))
    assert date(2024, 3, 3) in span
    assert date(2024, 3, 4) not in span


def test_overlaps():
    a = DateRange(date(2024, 1, 1), date(2024, 1, 10))
    assert a.overlaps(DateRange(date(2024, 1, 10), date(2024, 1, 20)))
    assert not a.overlaps(DateRange(date(2024, 1, 11), date(2024, 1, 20)))


def test_end_before_start_raises():
    with pytest.raises(ValueError):
        DateRange(date(2024, 1, 2), date(2024, 1, 1))


def test_month_range_december():
    span = month_range(2023, 12)
    assert (span.start, span.end) == (date(2023, 12, 1), date(2023, 12, 31))
    assert len(month_range(2024, 2)) == 29

from datetime import date

from templog import daily_summaries, parse_log, summary

LOG = """
# kitchen sensor
2024-03-01T08:00 18.0
2024-03-01T12:00 22.0
2024-03-01T18:00 20.0
2024-03-02T08:00 NA
2024-03-02T12:00 19.0
2024-03-02T18:00 21.0
"""


def test_parse_skips_comments_and_na():
    readings = parse_log(LOG)
    assert len(readings) == 5
    assert readings[0].celsius == 18.0


def test_summary():
    s = summary(parse_log(LOG))
    assert s["count"] == 5 and s["min"] == 18.0 and s["max"] == 22.0
    assert s["mean"] == 20.0
    assert s["stdev"] == 1.58


def test_summary_empty():
    assert summary([]) is None


def test_daily_summaries():
    days = daily_summaries(parse_log(LOG))
    assert list(days) == [date(2024, 3, 1), date(2024, 3, 2)]
    assert days[date(2024, 3, 2)]["mean"] == 20.0


def test_parse_error_names_line():
    try:
        parse_log("2024-03-01T08:00 warm")
    except ValueError as exc:
        assert "line 1" in str(exc)
    else:
        raise AssertionError("expected ValueError")

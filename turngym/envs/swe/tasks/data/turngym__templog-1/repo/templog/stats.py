"""Summary statistics over readings, overall and per day."""
import statistics
from collections import defaultdict


def summary(readings):
    """Return count, min, max, mean and sample stdev of the readings (None if there are none)."""
    values = [r.celsius for r in readings]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": round(statistics.fmean(values), 2),
        "stdev": round(statistics.stdev(values), 2),
    }


def daily_summaries(readings):
    """Return {date: summary} for each calendar day that has readings, in date order."""
    by_day = defaultdict(list)
    for r in readings:
        by_day[r.at.date()].append(r)
    return {day: summary(rs) for day, rs in sorted(by_day.items())}

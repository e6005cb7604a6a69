"""Parse a temperature log: one `ISO-timestamp value` pair per line."""
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Reading:
    at: datetime
    celsius: float


def parse_log(text):
    """Return the readings in text; blank lines, `#` comments and `NA` values are skipped."""
    readings = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            stamp, value = line.split()
            if value.upper() == "NA":
                continue
            readings.append(Reading(datetime.fromisoformat(stamp), float(value)))
        except ValueError as exc:
            raise ValueError(f"line {number}: cannot parse {line!r}") from exc
    return readings

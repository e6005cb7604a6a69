"""An inclusive range of calendar days."""

from dataclasses import dataclass
from datetime import date, timedelta


@dataclass(frozen=True)
class DateRange:
    """Days from ``start`` to ``end``, both included."""

    start: date
    end: date

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")

    def __len__(self) -> int:
        return (self.end - self.start).days + 1

    def __contains__(self, day: date) -> bool:
        return self.start <= day <= self.end

    def days(self) -> list[date]:
        """Every day of the range, start and end included."""
        return [self.start + timedelta(days=n) for n in range((self.end - self.start).days)]

    def overlaps(self, other: "DateRange") -> bool:
        """Whether the two ranges share at least one day."""
        return self.start <= other.end and other.start <= self.end

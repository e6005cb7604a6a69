"""Events on a simulated clock, run in time order."""

import heapq
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Event:
    """A callback due at some time, repeating every ``every`` if set."""

    name: str
    callback: Callable[[], None]
    every: float | None = None
    cancelled: bool = False


class Scheduler:
    """Holds pending events; run_until() advances the clock and runs them."""

    def __init__(self) -> None:
        self.now = 0.0
        self._queue: list[tuple[float, Event]] = []

    def at(
        self,
        time: float,
        name: str,
        callback: Callable[[], None] = lambda: None,
        every: float | None = None,
    ) -> Event:
        """Schedule ``callback`` at ``time`` (not in the past)."""
        if time < self.now:
            raise ValueError(f"{time} is in the past (now is {self.now})")
        if every is not None and every <= 0:
            raise ValueError("every must be > 0")
        event = Event(name, callback, every)
        heapq.heappush(self._queue, (time, event))
        return event

    def after(self, delay: float, name: str, callback: Callable[[], None] = lambda: None) -> Event:
        """Schedule ``callback`` ``delay`` after now."""
        return self.at(self.now + delay, name, callback)

    def cancel(self, event: Event) -> None:
        """Stop ``event`` (and its repeats) from running."""
        event.cancelled = True

    def pending(self) -> int:
        """Events still due, cancelled ones excluded."""
        return sum(not event.cancelled for _, event in self._queue)

    def run_until(self, time: float) -> list[str]:
        """Run every event due up to ``time``; the names, in the order run."""
        ran = []
        while self._queue and self._queue[0][0] <= time:
            when, event = heapq.heappop(self._queue)
            if event.cancelled:
                continue
            self.now = when
            event.callback()
            ran.append(event.name)
            if event.every is not None:
                heapq.heappush(self._queue, (when + event.every, event))
        self.now = time
        return ran

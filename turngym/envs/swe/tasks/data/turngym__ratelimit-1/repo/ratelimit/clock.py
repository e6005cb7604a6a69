"""Clocks: the real monotonic clock and a settable one for tests."""
import time


class FakeClock:
    """A clock that only moves when told to."""

    def __init__(self, start=0.0):
        self.now = float(start)

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


monotonic = time.monotonic

"""A sliding-window limiter: at most `limit` hits per key in any `window` seconds."""
from collections import deque

from ratelimit import clock as _clock


class RateLimiter:
    """Allow at most limit hits per key within any window of seconds.

    history, if given, maps keys to the timestamps of earlier hits (e.g. restored
    from a snapshot()).
    """

    def __init__(self, limit, window, clock=None, history={}):
        if limit < 1 or window <= 0:
            raise ValueError("limit must be >= 1 and window > 0")
        self.limit, self.window = limit, window
        self.clock = clock or _clock.monotonic
        self._hits = history
        for key, stamps in history.items():
            history[key] = deque(sorted(stamps))

    def _recent(self, key, now):
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        return hits

    def allow(self, key):
        """Record a hit for key and return True, or return False if key is over its limit."""
        now = self.clock()
        hits = self._recent(key, now)
        if len(hits) >= self.limit:
            return False
        hits.append(now)
        return True

    def remaining(self, key):
        """Return how many more hits key may make right now."""
        return self.limit - len(self._recent(key, self.clock()))

    def retry_after(self, key):
        """Return seconds until key may hit again (0.0 if it may now)."""
        now = self.clock()
        hits = self._recent(key, now)
        if len(hits) < self.limit:
            return 0.0
        return hits[0] + self.window - now

    def snapshot(self):
        """Return {key: [timestamps]} for keys with recent hits."""
        return {k: list(v) for k, v in self._hits.items() if v}

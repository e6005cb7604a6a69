"""Sliding-window rate limiting, per key."""
from ratelimit.clock import FakeClock
from ratelimit.limiter import RateLimiter

__all__ = ["FakeClock", "RateLimiter"]

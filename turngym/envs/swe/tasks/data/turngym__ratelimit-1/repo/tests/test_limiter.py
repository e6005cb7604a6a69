import pytest

from ratelimit import FakeClock, RateLimiter


def test_limit_within_window():
    clock = FakeClock()
    rl = RateLimiter(3, 10, clock=clock)
    assert [rl.allow("a") for _ in range(4)] == [True, True, True, False]
    assert rl.allow("b")


def test_window_slides():
    clock = FakeClock()
    rl = RateLimiter(2, 10, clock=clock)
    rl.allow("w"); clock.advance(6); rl.allow("w")
    assert not rl.allow("w")
    assert rl.retry_after("w") == pytest.approx(4.0)
    clock.advance(4)
    assert rl.allow("w")


def test_remaining():
    clock = FakeClock()
    rl = RateLimiter(5, 1, clock=clock)
    rl.allow("k"); rl.allow("k")
    assert rl.remaining("k") == 3


def test_restore_from_snapshot():
    clock = FakeClock(100)
    rl = RateLimiter(2, 10, clock=clock, history={"a": [95.0, 97.0]})
    assert not rl.allow("a")
    again = RateLimiter(2, 10, clock=clock, history=rl.snapshot())
    assert again.remaining("a") == 0


def test_bad_arguments():
    with pytest.raises(ValueError):
        RateLimiter(0, 10)

import pytest

from scheduler import Scheduler, every_n


def test_runs_in_time_order():
    sched = Scheduler()
    sched.at(30, "b")
    sched.at(10, "a")
    sched.at(50, "c")
    assert sched.run_until(40) == ["a", "b"]
    assert sched.now == 40
    assert sched.pending() == 1


def test_repeating_job():
    sched = Scheduler()
    log = []
    every_n(sched, 15, "poll", log)
    sched.run_until(50)
    assert log == [15, 30, 45]


def test_cancel_stops_repeats():
    sched = Scheduler()
    tick = sched.at(0, "tick", every=10)
    assert sched.run_until(25) == ["tick", "tick", "tick"]
    sched.cancel(tick)
    assert sched.run_until(100) == []


def test_after_is_relative_to_now():
    sched = Scheduler()
    sched.run_until(100)
    sched.after(5, "soon")
    assert sched.run_until(104) == []
    assert sched.run_until(105) == ["soon"]


def test_past_time_raises():
    sched = Scheduler()
    sched.run_until(10)
    with pytest.raises(ValueError):
        sched.at(5, "late")

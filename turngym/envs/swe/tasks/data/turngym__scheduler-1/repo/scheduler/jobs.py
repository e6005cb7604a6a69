"""Ready-made jobs."""

from scheduler.clock import Event, Scheduler


def every_n(sched: Scheduler, n: float, name: str, log: list[float]) -> Event:
    """A job that appends the clock time to ``log`` every ``n``, starting at ``n``."""
    return sched.at(sched.now + n, name, lambda: log.append(sched.now), every=n)

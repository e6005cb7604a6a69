"""A simulated-clock event scheduler with one-off and repeating events."""

from scheduler.clock import Event, Scheduler
from scheduler.jobs import every_n

__all__ = ["Event", "Scheduler", "every_n"]

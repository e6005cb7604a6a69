"""A priority task queue: lower priority numbers run first, ties in push order."""
from taskq.queue import TaskQueue
from taskq.task import Task

__all__ = ["Task", "TaskQueue"]

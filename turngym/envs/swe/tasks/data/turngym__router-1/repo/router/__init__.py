"""Match HTTP method and path to a handler; <name> segments become arguments."""

from router.app import dispatch
from router.routing import MethodNotAllowed, NotFound, Router

__all__ = ["MethodNotAllowed", "NotFound", "Router", "dispatch"]

"""Routes and their resolution."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Handler = Callable[..., Any]


class NotFound(LookupError):
    """No route matches the path."""


class MethodNotAllowed(LookupError):
    """Routes match the path, but none for this method."""

    def __init__(self, path: str, allowed: set[str]) -> None:
        super().__init__(f"{path}: allowed methods are {', '.join(sorted(allowed))}")
        self.allowed = allowed


@dataclass(frozen=True)
class Route:
    """One method + path pattern and its handler."""

    method: str
    pattern: str
    handler: Handler
    regex: re.Pattern[str]


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """A regex for ``pattern``; each <name> segment matches one path segment."""
    parts = []
    for segment in pattern.strip("/").split("/"):
        if segment.startswith("<") and segment.endswith(">"):
            parts.append(f"(?P<{segment[1:-1]}>[^/]+)")
        else:
            parts.append(re.escape(segment))
    return re.compile("^/" + "/".join(parts) + "/?$")


class Router:
    """Routes in registration order."""

    def __init__(self) -> None:
        self.routes: list[Route] = []

    def add(self, method: str, pattern: str, handler: Handler) -> None:
        """Register ``handler`` for ``method`` on ``pattern``."""
        self.routes.append(Route(method.upper(), pattern, handler, compile_pattern(pattern)))

    def route(self, method: str, pattern: str) -> Callable[[Handler], Handler]:
        """Decorator form of add()."""

        def register(handler: Handler) -> Handler:
            self.add(method, pattern, handler)
            return handler

        return register

    def resolve(self, method: str, path: str) -> tuple[Handler, dict[str, str]]:
        """The handler for ``method`` on ``path`` and the path's arguments."""
        method = method.upper()
        for route in self.routes:
            match = route.regex.match(path)
            if match is None:
                continue
            if route.method != method:
                raise MethodNotAllowed(path, {route.method})
            return route.handler, match.groupdict()
        raise NotFound(path)

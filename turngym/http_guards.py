"""Browser guards for turngym's local HTTP servers (``turngym serve``, ``turngym view``).

A server on 127.0.0.1 is still reachable from any web page the user opens: the page's
script can send requests to it. Two ASGI middlewares close the ways in that need no
CORS preflight:

- ``HostGuard``: DNS rebinding. A page of ``evil.example`` whose name was re-pointed at
  127.0.0.1 is same-origin with itself and reads the replies; its requests carry
  ``Host: evil.example``. Only the served names are answered (any port: an
  ``ssh -L`` tunnel may forward another one).
- ``JsonBodies``: cross-site POSTs. A page may POST ``text/plain`` (or a form) to any
  address without a preflight; a JSON API that parses such a body anyway runs the
  request. Every request other than GET, HEAD and OPTIONS must say
  ``Content-Type: application/json``, or it gets a 415.

Both are pure ASGI (Starlette's ``BaseHTTPMiddleware`` would hide a client's disconnect
from the endpoints) and answer through a ``refuse(status, message)`` callable, so each
server keeps its own error shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

__all__ = ["LOOPBACK_NAMES", "HostGuard", "JsonBodies", "host_name", "plain_refusal"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
"""The Host names a loopback server answers to (``[::1]`` is ``::1``)."""

Refuse = Callable[[int, str], Any]
"""``refuse(status, message)``: the ASGI response a guard sends instead of the app's."""


def host_name(header: str | None) -> str | None:
    """The lower-cased name of a ``Host`` header, brackets and port removed; None if unusable.

    >>> [host_name(h) for h in ("LocalHost:8000", "[::1]:80", "evil.example", "a:b", "")]
    ['localhost', '::1', 'evil.example', None, None]
    """
    if not header or any(c in header for c in "/?#@\\ \t"):
        return None
    try:
        parts = urlsplit("//" + header)
        parts.port  # noqa: B018  (raises ValueError on a port that is not a number)
    except ValueError:
        return None
    return parts.hostname or None


def plain_refusal(status: int, message: str) -> Any:
    """A plain-text refusal (the viewer's)."""
    from starlette.responses import PlainTextResponse

    return PlainTextResponse(message, status_code=status)


class HostGuard:
    """ASGI middleware: answer only requests whose ``Host`` names one of ``names``.

    Others get a 400 (``refuse``'s response), whatever their path.

    >>> app.add_middleware(HostGuard, names=LOOPBACK_NAMES)  # doctest: +SKIP
    """

    def __init__(self, app: Any, names: Iterable[str], refuse: Refuse = plain_refusal) -> None:
        self.app = app
        self.names = frozenset(n.lower().strip("[]") for n in names)
        self.refuse = refuse

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Pass a request for one of the names on; refuse any other."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        values = [v for k, v in scope["headers"] if k == b"host"]
        header = values[0].decode("latin-1") if len(values) == 1 else None
        if host_name(header) in self.names:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        shown = ", ".join(sorted(self.names))
        message = (
            f"refused: this server was reached as {(header or '')[:80]!r}; "
            f"call it by one of its names ({shown}), not through another host name"
        )
        await self.refuse(400, message)(scope, receive, send)


class JsonBodies:
    """ASGI middleware: every request but GET, HEAD and OPTIONS must be ``application/json``.

    Others (``text/plain``, forms, no content type) get a 415 before the app reads them.

    >>> app.add_middleware(JsonBodies, refuse=my_error)  # doctest: +SKIP
    """

    def __init__(self, app: Any, refuse: Refuse = plain_refusal) -> None:
        self.app = app
        self.refuse = refuse

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Pass a JSON request (or one without a body) on; refuse any other with 415."""
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        values = [v for k, v in scope["headers"] if k == b"content-type"]
        kind = values[0].split(b";")[0].strip().lower() if len(values) == 1 else b""
        if kind == b"application/json":
            await self.app(scope, receive, send)
            return
        given = kind.decode("latin-1")[:80] or "none"
        message = (
            f"a {scope['method']} body must be JSON: send the header "
            f"Content-Type: application/json (got {given})"
        )
        await self.refuse(415, message)(scope, receive, send)

"""Who may call ``turngym serve``: the API key, and when a server must have one.

Every endpoint checks the key, and a server others can reach, or whose weights clients
can replace, will not start without one. The key comes from ``--api-key`` or
``TURNGYM_API_KEY`` (an environment variable keeps it out of the process list).
Requests carry it as ``Authorization: Bearer KEY``; it is compared in constant time,
and a request without it gets a 401 before any route runs, ``/health`` and unknown
paths included.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from typing import Any

from turngym.sdk.policy import PolicyError

__all__ = [
    "API_KEY_ENV",
    "RequireKey",
    "api_key",
    "check_exposure",
    "checked_key",
    "is_loopback",
]

API_KEY_ENV = "TURNGYM_API_KEY"
"""The environment variable ``turngym serve`` (and ``OpenAIPolicy``) read the key from."""


def api_key(given: str | None) -> str | None:
    """The key to require: ``given``, else ``$TURNGYM_API_KEY``; None if neither is set.

    Raises:
        PolicyError: the key cannot be sent in an HTTP header (empty, spaces, non-ASCII).

    """
    if given is not None:
        return checked_key(given, "--api-key")
    key = os.environ.get(API_KEY_ENV)
    return None if key is None else checked_key(key, API_KEY_ENV)


def checked_key(key: str, source: str = "api_key") -> str:
    """``key``, if an HTTP header can carry it.

    Raises:
        PolicyError: empty, spaces or non-ASCII (``source`` names where it came from).

    """
    if not key or not key.isascii() or not key.isprintable() or " " in key:
        raise PolicyError(
            f"{source} must be a non-empty key of printable ASCII without spaces "
            '(e.g. python -c "import secrets; print(secrets.token_urlsafe(32))")'
        )
    return key


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name other than localhost, or "" (every interface)
        return False


def check_exposure(host: str, key: str | None, accept_weight_updates: bool) -> None:
    """Refuse a server that others can reach or change but that has no key.

    Raises:
        PolicyError: one line naming ``--api-key`` and ``TURNGYM_API_KEY``.

    """
    if key is not None:
        return
    fix = f"set a key with --api-key KEY or the {API_KEY_ENV} environment variable"
    if not is_loopback(host):
        raise PolicyError(
            f"--host {host} lets other machines call the server: {fix} (or serve on 127.0.0.1)"
        )
    if accept_weight_updates:
        raise PolicyError(f"--accept-weight-updates lets clients replace the weights: {fix}")


class RequireKey:
    """ASGI middleware: every request must carry ``Authorization: Bearer KEY``.

    Anything else gets a 401 with an OpenAI-style error (code ``invalid_api_key``).
    Pure ASGI rather than Starlette's ``BaseHTTPMiddleware``, which would hide a
    client's disconnect from the endpoints.

    >>> app.add_middleware(RequireKey, key="s3cret")  # doctest: +SKIP
    """

    def __init__(self, app: Any, key: str) -> None:
        self.app = app
        self._expected = key.encode()

    def _allowed(self, headers: list[tuple[bytes, bytes]]) -> bool:
        values = [v for k, v in headers if k == b"authorization"]
        if len(values) != 1:
            return False
        scheme, _, token = values[0].partition(b" ")
        # compare_digest takes as long whatever the token holds: no prefix oracle.
        return hmac.compare_digest(token, self._expected) and scheme.lower() == b"bearer"

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Pass an authorized request on to the app; answer any other with a 401."""
        if scope["type"] not in ("http", "websocket") or self._allowed(scope["headers"]):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        from fastapi.responses import JSONResponse

        message = "a valid API key is required: send the header Authorization: Bearer KEY"
        error = {"message": message, "type": "invalid_request_error", "param": None}
        response = JSONResponse(
            {"error": {**error, "code": "invalid_api_key"}},
            status_code=401,
            headers={"WWW-Authenticate": "Bearer"},
        )
        await response(scope, receive, send)

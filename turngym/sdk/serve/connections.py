"""How long and how many connections ``turngym serve`` holds: deadlines, a cap, the fd limit.

A client that sends part of a request and waits (half-open: part of the headers, or a
``Content-Length`` and part of the body) holds a socket and a file descriptor; enough of
them would run the server out of descriptors and lock every other client out. uvicorn
bounds only the idle time between requests (``timeout_keep_alive``) and the size of the
headers (h11, 16 KiB), so ``ServeConnections`` adds, in its own protocol class:

- a header deadline: from connecting (or from its previous reply) a client has
  ``header_timeout`` seconds to send a request's headers, however it spaces its bytes;
- a body deadline: from its headers, ``body_timeout`` seconds to send the body;
- a cap: at most ``max_connections`` connections wait on their client (sending a
  request, or idle between requests); one more closes the one that has waited longest
  (counted from its connect or its previous reply, not from its last byte), so half-open
  connections cannot keep an honest client out, however many they are.
  Past ``2 * max_connections`` open connections a request is answered 503 at once.

A connection past its deadline is closed without a reply (its request, if it reached
the app, sees the client leave). ``raise_fd_limit`` lifts the soft ``RLIMIT_NOFILE`` to
the hard limit at start, so the cap, not the descriptors, is what runs out first.

The protocol is uvicorn's h11 one (also where httptools is installed).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

__all__ = ["FD_RESERVE", "ServeConnections", "protocol_class", "raise_fd_limit"]

FD_RESERVE = 256
"""File descriptors kept for what is not a client connection (the model's files, torch)."""


@dataclass(frozen=True)
class ServeConnections:
    """The deadlines and the cap of ``turngym serve``'s connections (each has a CLI flag).

    >>> ServeConnections(header_timeout=5).body_timeout
    60.0
    """

    header_timeout: float = 10.0
    """seconds a client has to send a request's headers (from connecting or its last reply)"""
    body_timeout: float = 60.0
    """seconds a client has to send a request's body, once its headers came"""
    keep_alive_timeout: float = 5.0
    """seconds an idle connection stays open between requests"""
    max_connections: int = 1024
    """connections waiting on their client; one more closes the one that waited longest"""

    def __post_init__(self) -> None:
        for name in ("header_timeout", "body_timeout", "keep_alive_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{name} must be a number of seconds > 0, got {value!r}")
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a number of seconds > 0, got {value!r}")
        value = self.max_connections
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"max_connections must be an int >= 1, got {value!r}")

    def uvicorn_settings(self) -> dict[str, Any]:
        """The ``uvicorn.Config`` arguments that carry these settings."""
        return {
            "http": protocol_class(self),
            "timeout_keep_alive": self.keep_alive_timeout,
            # Waiting connections are capped at max_connections by the protocol, so they
            # alone never reach this: it bounds the requests running at once.
            "limit_concurrency": 2 * self.max_connections,
        }

    def descriptors(self) -> int:
        """The file descriptors the server may need at most (connections plus a reserve)."""
        return 2 * self.max_connections + FD_RESERVE


def raise_fd_limit() -> int:
    """Lift this process's soft ``RLIMIT_NOFILE`` to its hard limit; return the soft limit.

    Where the hard limit is unlimited and the system refuses that (macOS), the soft limit
    goes as high as the system takes. Without the ``resource`` module (Windows) nothing
    changes and the answer is a large number.
    """
    try:
        import resource
    except ImportError:  # Windows: no such limit to raise
        return 1 << 20
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    unlimited = resource.RLIM_INFINITY
    if soft == unlimited:
        return 1 << 20
    # macOS refuses an unlimited soft limit for files: then as many as it takes.
    for target in [hard] if hard != unlimited else [1 << 20, 10240]:
        if soft >= target:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            continue
        return int(target)
    return int(soft)


def protocol_class(settings: ServeConnections) -> type:
    """The h11 protocol of uvicorn, with ``settings``' header and body deadlines and its cap.

    Each call gives a new class whose connections share one register of the connections
    waiting on their client (one server's).
    """
    import asyncio

    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    waiting: OrderedDict[Any, None] = OrderedDict()  # oldest first
    timeouts = {"headers": settings.header_timeout, "body": settings.body_timeout}

    class DeadlineProtocol(H11Protocol):
        """H11Protocol that closes a connection whose client is too slow, or too many."""

        _phase: str | None = None
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._watch()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._watch()

        def connection_lost(self, exc: Exception | None) -> None:
            self._wait(None)
            super().connection_lost(exc)

        def _watch(self) -> None:
            """Start, keep or stop the deadline for what the client owes now."""
            if self.transport.is_closing():
                self._wait(None)
            elif self.conn.their_state is h11.IDLE:
                self._wait("headers")
            elif self.conn.their_state is h11.SEND_BODY:
                self._wait("body")
            else:  # the request is whole: the server owes the reply
                self._wait(None)

        def _wait(self, phase: str | None) -> None:
            if phase == self._phase:
                return  # the same wait goes on: its deadline stands
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            already_waiting, self._phase = self._phase is not None, phase
            if phase is None:
                waiting.pop(self, None)
                return
            self._deadline = self.loop.call_later(timeouts[phase], self._expire)
            if already_waiting:
                # From headers to body the client is still the one that owes: its age
                # counts from its connect (or last reply), however late its headers came.
                return
            waiting[self] = None
            while len(waiting) > settings.max_connections:
                oldest, _ = waiting.popitem(last=False)
                oldest._expire()

        def _expire(self) -> None:
            """Close the connection: its client took too long, or others came after it."""
            self._wait(None)
            if not self.transport.is_closing():
                self.transport.close()

    return DeadlineProtocol

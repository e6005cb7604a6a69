"""Serving a site on 127.0.0.1: a threaded Werkzeug server, and SQLite reset by copying.

``LocalServer`` runs a WSGI app on a free loopback port in a daemon thread of the env's
own process (the pages are small; a thread is cheaper than a process per env).
``prepared_database`` builds a site's database once per machine into the cache
(``TURNGYM_CACHE``, default ``~/.cache/turngym``) and ``SiteDatabase`` gives each env a
private copy that ``reset()`` restores by copying the file again, so every episode starts
from the same state. The copy lives in a ``reaper.temp_dir`` (``turngym-web-<pid>...``),
removed when the env closes or its process dies, however it dies.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from turngym.envs.cache import cache_dir
from turngym.host import reaper

__all__ = ["LocalServer", "SiteDatabase", "cache_dir", "prepared_database"]


def prepared_database(name: str, build: Callable[[Path], None]) -> Path:
    """The prepared database ``<cache>/web/<name>.sqlite``, built by ``build`` if absent.

    ``name`` should carry a version (``shop-v1``) so a changed generator builds a new
    file. The build writes a temporary file and renames it, so concurrent workers never
    see half a database.
    """
    path = cache_dir() / "web" / f"{name}.sqlite"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}-", suffix=".sqlite", dir=path.parent)
    os.close(fd)
    os.unlink(tmp)  # sqlite3 creates it
    try:
        build(Path(tmp))
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return path


class SiteDatabase:
    """An env's private copy of a prepared database, restored on every ``restore()``.

    Args:
        prepared: the prepared database file (never written).

    """

    def __init__(self, prepared: Path) -> None:
        self.prepared = Path(prepared)
        self._dir = reaper.temp_dir("turngym-web-")
        self.path = self._dir / self.prepared.name
        self.restore()

    def restore(self) -> None:
        """Copy the prepared file over the env's copy (the site opens a connection per request)."""
        shutil.copyfile(self.prepared, self.path)

    def connect(self) -> sqlite3.Connection:
        """A new connection to the env's copy (rows as ``sqlite3.Row``); the caller closes it.

        ``with conn:`` only commits; wrap it in ``contextlib.closing`` to close it too.
        """
        conn = sqlite3.connect(self.path)
        conn.row_factory = sqlite3.Row
        return conn

    def close(self) -> None:
        """Delete the copy."""
        reaper.remove_dir(self._dir)


class LocalServer:
    """A WSGI app served on ``http://127.0.0.1:<free port>`` from a daemon thread.

    Example:
        >>> def app(environ, start_response):
        ...     start_response("200 OK", [("Content-Type", "text/plain")])
        ...     return [b"hello"]
        >>> server = LocalServer(app)
        >>> import urllib.request
        >>> urllib.request.urlopen(server.url + "/").read()
        b'hello'
        >>> server.close()

    """

    def __init__(self, app: Callable[..., Any]) -> None:
        from werkzeug.serving import WSGIRequestHandler, make_server

        class _Quiet(WSGIRequestHandler):
            def log_request(self, *args: Any, **kwargs: Any) -> None:
                pass  # one line per request would drown the training logs

        self._server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=_Quiet)
        self.port: int = self._server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop serving and free the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

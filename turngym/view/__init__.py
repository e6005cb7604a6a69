"""``turngym view``: a local, read-only web app over run directories and episode files.

``create_app(roots)`` builds the FastAPI app (``turngym.view.app``); ``turngym view
[PATH ...]`` serves it on loopback. The pages: runs and their metrics charts, a table of
every recorded episode, one episode turn by turn, and two runs side by side. Importing
this package is light: FastAPI is imported when the app is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from turngym.view.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from turngym.view.app import create_app

        return create_app
    raise AttributeError(f"module 'turngym.view' has no attribute {name!r}")

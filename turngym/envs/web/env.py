"""``SiteEnv``: a local web site with tasks (``tasks.Site``) as a Gymnasium text env.

Each env serves its site from its own copy of the site's SQLite database. ``reset()``
restores the database by copying the prepared file, draws a task with the env's RNG and
opens the task's start page. The episode ends when the agent calls ``answer(...)`` or the
site says so (an order placed); the reward is the site's score in [0, 1] and
``success`` means a score of 1. The browser plumbing is ``browser_env.BrowserEnv``'s.
"""

from __future__ import annotations

import contextlib
from typing import Any

from turngym.envs.web.browser import BrowserError
from turngym.envs.web.browser_env import ACTION_HELP, BrowserEnv
from turngym.envs.web.server import SiteDatabase, prepared_database
from turngym.envs.web.tasks import Site, Task, WSGIApp

__all__ = ["ACTION_HELP", "SiteEnv"]


class SiteEnv(BrowserEnv):
    """A task on a local web site in Chromium, acted on with ``click(12)``-style calls.

    Subclasses set ``site`` (a ``tasks.Site``).

    Args:
        template: draw tasks from this template only (None: all of the site's templates).
        **kwargs: ``BrowserEnv``'s (``max_turns``, ``screenshot``, ``set_of_marks``,
            ``viewport``, ``invalid_action_penalty``, ``max_invalid_actions``,
            ``render_mode``).

    """

    site: Site
    """The site; a subclass sets it on the class, or per instance before ``__init__``."""

    def __init__(self, *, template: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if template is not None and template not in self.site.templates:
            raise ValueError(
                f"unknown template {template!r} for {type(self).__name__}; "
                f"use one of {', '.join(self.site.templates)}"
            )
        self.template = template
        self.task: Task | None = None
        self._db: SiteDatabase | None = None

    @property
    def task_or_raise(self) -> Task:
        """The current task (raises before the first reset)."""
        if self.task is None:
            raise RuntimeError("call reset() first")
        return self.task

    def _serve(self) -> WSGIApp:
        self._db = SiteDatabase(prepared_database(self.site.name, self.site.build_database))
        return self.site.app(self._db.path)

    def _begin(self) -> str:
        assert self._db is not None and self._page is not None
        self._db.restore()
        with contextlib.closing(self._db.connect()) as conn:
            self.task = self.site.sample_task(self.np_random, conn, self.template)
        error = self._run(self._page.start(self.task.start_path))
        if error is not None:
            raise BrowserError(f"the site's start page did not open: {error}")
        return self.task.instruction

    def _finished(self) -> float | None:
        assert self._db is not None
        with contextlib.closing(self._db.connect()) as conn:
            if not self.site.finished(self.task_or_raise, conn):
                return None
            return float(self.site.score(self.task_or_raise, conn, None))

    def _answered(self, text: str) -> float:
        assert self._db is not None
        with contextlib.closing(self._db.connect()) as conn:
            return float(self.site.score(self.task_or_raise, conn, text))

    def _release(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _extra_info(self) -> dict[str, Any]:
        return {"template": self.task.template} if self.task is not None else {}

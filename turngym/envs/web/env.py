"""``SiteEnv``: a local web site on a real browser as a Gymnasium text env.

Each env serves its site (``tasks.Site``) on a free loopback port from its own copy of
the site's SQLite database, and drives one tab of the process's shared Chromium
(``browser.BrowserHost``). ``reset()`` restores the database by copying the prepared
file, draws a task with the env's RNG and opens the task's start page; ``step()``
parses a function-call action (``actions.parse_action``), applies it through CDP and
returns the page again as an accessibility tree with ``[N]`` ids. The episode ends when
the agent calls ``answer(...)`` or the site says so (an order placed); the reward is the
site's score in [0, 1] and ``success`` means a score of 1.

With ``screenshot=True`` observations are ``{"text", "screenshot"}`` dicts, and
``set_of_marks=True`` draws each element's id on the screenshot.
"""

from __future__ import annotations

import contextlib
import urllib.parse
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.web.actions import ACTIONS, WebAction, parse_action
from turngym.envs.web.browser import BrowserError, BrowserHost
from turngym.envs.web.page import WebPage
from turngym.envs.web.server import LocalServer, SiteDatabase, prepared_database
from turngym.envs.web.tasks import Site, Task
from turngym.spaces import Unicode

__all__ = ["ACTION_HELP", "SiteEnv"]

ACTION_HELP = (
    'Act with one call per turn: click(id), fill(id, "text"), select(id, "option"), '
    'press("Enter"), scroll(dx, dy), goto("/path"), back(), answer("..."), noop(). '
    "The ids are the [N] numbers of the page below."
)
MAX_PAGE_CHARS = 24_000
"""A longer accessibility tree is cut (and says so) to keep observations bounded."""


class SiteEnv(TextEnv[WebAction]):
    """A task on a local web site in Chromium, acted on with ``click(12)``-style calls.

    Subclasses set ``site`` (a ``tasks.Site``). Web envs need ``turngym[web]`` and a
    Chromium (``apt-get install chromium``, or ``$TURNGYM_CHROMIUM``).

    Args:
        template: draw tasks from this template only (None: all of the site's templates).
        max_turns: truncate after this many turns.
        screenshot: observations become ``{"text", "screenshot"}`` dicts.
        set_of_marks: draw the ``[N]`` ids on the screenshot (implies ``screenshot``).
        viewport: page size in CSS pixels (width, height).
        invalid_action_penalty: reward of an action that cannot be applied (<= 0).
        max_invalid_actions: truncate after this many invalid actions in a row.
        render_mode: ``"ansi"`` (the last observation's text) or ``"human"``.

    """

    site: ClassVar[Site]
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012
    max_obs_length: ClassVar[int] = MAX_PAGE_CHARS + 4_096

    def __init__(
        self,
        *,
        template: str | None = None,
        max_turns: int = 30,
        screenshot: bool = False,
        set_of_marks: bool = False,
        viewport: tuple[int, int] = (1024, 768),
        invalid_action_penalty: float = 0.0,
        max_invalid_actions: int | None = 10,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            invalid_action_penalty=invalid_action_penalty,
            max_invalid_actions=max_invalid_actions,
            render_mode=render_mode,
        )
        if template is not None and template not in self.site.templates:
            raise ValueError(
                f"unknown template {template!r} for {type(self).__name__}; "
                f"use one of {', '.join(self.site.templates)}"
            )
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
        width, height = (int(v) for v in viewport)
        if not (64 <= width <= 4096 and 64 <= height <= 4096):
            raise ValueError(f"viewport must be (width, height) in 64..4096, got {viewport!r}")
        self.template = template
        self.max_turns = max_turns
        self.set_of_marks = bool(set_of_marks)
        self.screenshot = bool(screenshot) or self.set_of_marks
        self.viewport = (width, height)
        if self.screenshot:
            # The text base class types its space as text; pixels make it a Dict.
            self.observation_space = spaces.Dict(  # type: ignore[assignment]
                {
                    "text": Unicode(self.max_obs_length),
                    "screenshot": spaces.Box(0, 255, (height, width, 3), np.uint8),
                }
            )
        self.task: Task | None = None
        self._host: BrowserHost | None = None
        self._db: SiteDatabase | None = None
        self._server: LocalServer | None = None
        self._page: WebPage | None = None
        self._text = ""
        self._error: str | None = None
        self._score = 0.0

    # -- plumbing ------------------------------------------------------------------

    def _start(self) -> None:
        """Serve the site and open a tab (first reset, or after the browser died)."""
        if self._host is None:
            self._host = BrowserHost.shared()
            self._host.acquire()
        if self._db is None:
            site = self.site
            self._db = SiteDatabase(prepared_database(site.name, site.build_database))
        if self._server is None:
            self._server = LocalServer(self.site.app(self._db.path))
        if self._page is None or not self._page.usable:
            if self._page is not None:
                self._host.run(self._page.close())
            page = WebPage(self._host, [self._server.url], self.viewport)
            self._host.run(page.open())
            self._page = page

    def close(self) -> None:
        """Close the tab, stop the site, delete the database copy, release the browser."""
        if self._page is not None and self._host is not None:
            with contextlib.suppress(BrowserError):  # a dead browser has no tab to close
                self._host.run(self._page.close())
        if self._server is not None:
            self._server.close()
        if self._db is not None:
            self._db.close()
        if self._host is not None:
            self._host.release()
        self._page = self._server = self._db = self._host = None
        super().close()

    @property
    def url(self) -> str:
        """The site's base URL (``http://127.0.0.1:<port>``), once reset."""
        return self._server.url if self._server is not None else ""

    def _path(self) -> str:
        """The page's address without the per-env origin, so observations are reproducible."""
        url = self._page.url if self._page is not None else ""
        parts = urllib.parse.urlsplit(url)
        query = f"?{parts.query}" if parts.query else ""
        fragment = f"#{parts.fragment}" if parts.fragment else ""
        return (parts.path or "/") + query + fragment

    # -- the TextEnv hooks -----------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        self._start()
        assert self._db is not None and self._page is not None and self._host is not None
        self._db.restore()
        with contextlib.closing(self._db.connect()) as conn:
            self.task = self.site.sample_task(self.np_random, conn, self.template)
        self.instruction = self.task.instruction
        self._page.ax.reset()
        self._page.blocked.clear()
        self._error = None
        self._score = 0.0
        error = self._host.run(self._page.start(self.task.start_path))
        if error is not None:
            raise BrowserError(f"the site's start page did not open: {error}")
        return f"Task: {self.task.instruction}\n{ACTION_HELP}\n{self._observe()}"

    def _parse(self, action: str) -> WebAction | Invalid:
        parsed = parse_action(action)
        if isinstance(parsed, Invalid) or self._page is None:
            return parsed
        if ACTIONS[parsed.name] and ACTIONS[parsed.name][0][1] == "element id":
            element_id = parsed.args[0]
            if element_id not in self._page.ax.shown_ids:
                return Invalid(f"{parsed.name}: no element [{element_id}] on this page")
        return parsed

    def _apply(self, action: WebAction) -> Outcome:
        assert self._page is not None and self._host is not None and self._db is not None
        if action.name == "answer":
            with contextlib.closing(self._db.connect()) as conn:
                self._score = float(self.site.score(self.task_or_raise, conn, action.args[0]))
            obs = f"You answered {action.args[0]!r}. The episode is over."
            return self._end(obs)
        try:
            self._error, tree = self._host.run(self._page.act(action))
            text = self._observe(tree)
        except BrowserError as error:
            return self._browser_died(error)
        with contextlib.closing(self._db.connect()) as conn:
            finished = self.site.finished(self.task_or_raise, conn)
            if finished:
                self._score = float(self.site.score(self.task_or_raise, conn, None))
        if finished:
            return self._end(f"{text}\nThe task is finished.")
        return Outcome(text, info=self._page_info())

    def _end(self, obs: str) -> Outcome:
        success = self._score >= 1.0 - 1e-9
        info = {**self._page_info(), "score": self._score}
        return Outcome(obs, reward=self._score, terminated=True, success=success, info=info)

    def _browser_died(self, error: BrowserError) -> Outcome:
        gym.logger.warn(f"{type(self).__name__}: {error}; the episode is truncated")
        message = f"{error}. The episode is truncated; reset() starts a new browser."
        return Outcome(message, truncated=True, info={"browser_error": str(error)})

    @property
    def task_or_raise(self) -> Task:
        """The current task (raises before the first reset)."""
        if self.task is None:
            raise RuntimeError("call reset() first")
        return self.task

    def _observe(self, tree: str | None = None) -> str:
        assert self._page is not None and self._host is not None
        if tree is None:
            tree = self._host.run(self._page.observe())
        if len(tree) > MAX_PAGE_CHARS:
            cut = tree.rfind("\n", 0, MAX_PAGE_CHARS)
            tree = tree[: max(cut, 0)] + f"\n... (page cut at {MAX_PAGE_CHARS} characters)"
        lines = [f"URL: {self._path()}"]
        if self._error:
            lines.append(f"Error: {self._error}")
        lines.extend(f"Dialog: {d}" for d in self._page.dialogs)
        lines.append(tree)
        self._text = "\n".join(lines)
        return self._text

    def _page_info(self) -> dict[str, Any]:
        page = self._page
        return {
            "url": self._path(),
            "last_action_error": self._error or "",
            "blocked_requests": list(page.blocked) if page is not None else [],
        }

    def _extra_info(self) -> dict[str, Any]:
        return {"template": self.task.template} if self.task is not None else {}

    def _render(self) -> str:
        return self._text

    # -- screenshots -----------------------------------------------------------------

    def _with_screenshot(self, obs: Any) -> Any:
        if not self.screenshot:
            return obs
        width, height = self.viewport
        image = np.zeros((height, width, 3), np.uint8)
        if self._page is not None and self._page.usable and self._host is not None:
            with contextlib.suppress(BrowserError):  # the text already says it died
                image = self._host.run(self._page.screenshot(self.set_of_marks))
        return {"text": obs, "screenshot": image}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode: fresh database, a task drawn from ``seed``, its start page."""
        obs, info = super().reset(seed=seed, options=options)
        return self._with_screenshot(obs), info

    def step(self, action: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Apply one action; a malformed one comes back as ``invalid_action``."""
        obs, reward, terminated, truncated, info = super().step(action)
        return self._with_screenshot(obs), reward, terminated, truncated, info

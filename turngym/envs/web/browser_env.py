"""``BrowserEnv``: the plumbing every Chromium-backed text env shares.

A ``BrowserEnv`` serves its own WSGI app on a free loopback port (``server.LocalServer``),
opens one tab of the process's shared Chromium (``browser.BrowserHost``), parses
function-call actions (``actions.parse_action``), applies them through CDP
(``page.WebPage``) and returns the page as an accessibility tree with ``[N]`` ids. A
subclass says what to serve and how an episode starts and ends:

- ``_serve()``: the WSGI app (called once per env);
- ``_begin()``: start an episode on the open tab; returns the instruction;
- ``_finished()``: after each action, the score if the episode just ended, else None;
- ``_answered(text)``: the score of an ``answer(...)`` (which always ends the episode).

With ``screenshot=True`` observations are ``{"text", "screenshot"}`` dicts, and
``set_of_marks=True`` draws each element's id on the screenshot.
"""

from __future__ import annotations

import contextlib
import os
import urllib.parse
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.web.actions import ACTIONS, ELEMENT_ID, WebAction, parse_action
from turngym.envs.web.browser import DEFAULT_TIMEOUT_S, BrowserError, BrowserHost, find_chromium
from turngym.envs.web.page import WebPage
from turngym.envs.web.server import LocalServer
from turngym.envs.web.tasks import WSGIApp
from turngym.extras import require_installed
from turngym.spaces import Unicode

__all__ = ["ACTION_HELP", "MAX_PAGE_CHARS", "BrowserEnv"]

ACTION_HELP = (
    'Act with one call per turn: click(id), fill(id, "text"), select(id, "option"), '
    'press("Enter"), scroll(dx, dy), goto("/path"), back(), answer("..."), noop(). '
    "The ids are the [N] numbers of the page below."
)
MAX_PAGE_CHARS = 24_000
"""A longer accessibility tree is cut (and says so) to keep observations bounded."""


class BrowserEnv(TextEnv[WebAction]):
    """A text env on a page of a local app in Chromium, acted on with ``click(12)``-style calls.

    Web envs need ``turngym[web]`` and a Chromium (``apt-get install chromium``, or
    ``$TURNGYM_CHROMIUM``).

    Args:
        max_turns: truncate after this many turns.
        screenshot: observations become ``{"text", "screenshot"}`` dicts.
        set_of_marks: draw the ``[N]`` ids of what an action can target (links, buttons,
            fields, elements with a click handler) on the screenshot, each tag outside
            its element's box (implies ``screenshot``); ``marks`` holds where they are.
        viewport: page size in CSS pixels (width, height).
        invalid_action_penalty: reward of an action that cannot be applied (<= 0).
        max_invalid_actions: truncate after this many invalid actions in a row.
        render_mode: ``"ansi"`` (the last observation's text), ``"human"`` (printed) or
            ``"rgb_array"`` (the last observation's screenshot, taken also without
            ``screenshot``).

    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}  # noqa: RUF012
    max_obs_length: ClassVar[int] = MAX_PAGE_CHARS + 4_096
    concurrent_steps: ClassVar[bool] = True
    """envs of this class gain from being stepped at once on threads (``Collector``)"""
    settle_script: ClassVar[str | None] = None
    """a JavaScript promise awaited after each input before the page is read"""
    action_timeout_s: float = DEFAULT_TIMEOUT_S
    """how long one action (with the page read after it) may take; then the episode is
    truncated and the next reset opens a new page (a script that never returns)"""
    probe: ClassVar[str | None] = None
    """a JavaScript expression read with every observation (``self._page.probe_value``)"""

    def __init__(
        self,
        *,
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
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
        width, height = (int(v) for v in viewport)
        if not (64 <= width <= 4096 and 64 <= height <= 4096):
            raise ValueError(f"viewport must be (width, height) in 64..4096, got {viewport!r}")
        pixels = bool(screenshot) or bool(set_of_marks) or render_mode == "rgb_array"
        _check_browser(screenshot=pixels)
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
        self._host: BrowserHost | None = None
        self._server: LocalServer | None = None
        self._page: WebPage | None = None
        self._text = ""
        self._error: str | None = None
        self._score = 0.0
        self._image: np.ndarray | None = None

    # -- what a subclass says --------------------------------------------------------

    def _serve(self) -> WSGIApp:
        raise NotImplementedError

    def _begin(self) -> str:
        raise NotImplementedError

    def _finished(self) -> float | None:
        return None

    def _answered(self, text: str) -> float:
        raise NotImplementedError

    # -- plumbing ------------------------------------------------------------------

    def _start(self) -> None:
        """Serve the app and open a tab (first reset, or after the browser died)."""
        if self._host is None:
            self._host = BrowserHost.shared()
            self._host.acquire()
        if self._server is None:
            self._server = LocalServer(self._serve())
        if self._page is None or not self._page.usable:
            if self._page is not None:
                self._host.run(self._page.close())
            page = WebPage(self._host, [self._server.url], self.viewport)
            page.probe = self.probe
            page.settle_script = self.settle_script
            self._host.run(page.open())
            self._page = page

    def _release(self) -> None:
        """Free what a subclass holds besides the browser (called by ``close``)."""

    def close(self) -> None:
        """Close the tab, stop the app, release the browser."""
        if self._page is not None and self._host is not None:
            with contextlib.suppress(BrowserError):  # a dead browser has no tab to close
                self._host.run(self._page.close())
        if self._server is not None:
            self._server.close()
        self._release()
        if self._host is not None:
            self._host.release()
        self._page = self._server = self._host = None
        super().close()

    @property
    def url(self) -> str:
        """The app's base URL (``http://127.0.0.1:<port>``), once reset."""
        return self._server.url if self._server is not None else ""

    def _path(self) -> str:
        """The page's address without the per-env origin, so observations are reproducible."""
        url = self._page.url if self._page is not None else ""
        parts = urllib.parse.urlsplit(url)
        query = f"?{parts.query}" if parts.query else ""
        fragment = f"#{parts.fragment}" if parts.fragment else ""
        return (parts.path or "/") + query + fragment

    def _run(self, work: Any) -> Any:
        """Run a coroutine of the tab on the browser thread."""
        assert self._host is not None
        return self._host.run(work, self.action_timeout_s)

    # -- the TextEnv hooks -----------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        try:
            return self._start_episode()
        except Exception:
            # The browser or its driver died since the last step and no step saw it:
            # start new ones, once. A page that fails on a live browser raises.
            if self._page is None or self._page.usable:
                raise
            return self._start_episode()

    def _start_episode(self) -> str:
        self._start()
        assert self._page is not None
        self._page.ax.reset()
        self._page.blocked.clear()
        self._error = None
        self._score = 0.0
        self.instruction = self._begin()
        return f"Task: {self.instruction}\n{ACTION_HELP}\n{self._observe()}"

    def _parse(self, action: str) -> WebAction | Invalid:
        parsed = parse_action(action)
        if isinstance(parsed, Invalid) or self._page is None:
            return parsed
        if ACTIONS[parsed.name] and ACTIONS[parsed.name][0].kind is ELEMENT_ID:
            element_id = parsed.args[0]
            if element_id not in self._page.ax.shown_ids:
                return Invalid(f"{parsed.name}: no element [{element_id}] on this page")
        return parsed

    def _apply(self, action: WebAction) -> Outcome:
        assert self._page is not None
        if action.name == "answer":
            self._score = float(self._answered(action.args[0]))
            return self._end(f"You answered {action.args[0]!r}. The episode is over.")
        try:
            self._error, tree = self._run(self._page.act(action))
            text = self._observe(tree)
        except BrowserError as error:
            return self._browser_died(error)
        except Exception:
            # Playwright's own error for a browser or driver that went away mid-call.
            reason = self._page.failure()
            if reason is None:
                raise
            return self._browser_died(BrowserError(reason))
        score = self._finished()
        if score is not None:
            self._score = float(score)
            return self._end(f"{text}\nThe task is finished.")
        return Outcome(text, info=self._page_info())

    def _is_success(self, score: float) -> bool:
        """Whether an episode that ended with ``score`` solved the task (a full score)."""
        return score >= 1.0 - 1e-9

    def _end(self, obs: str) -> Outcome:
        success = self._is_success(self._score)
        info = {**self._page_info(), "score": self._score}
        return Outcome(obs, reward=self._score, terminated=True, success=success, info=info)

    def _browser_died(self, error: BrowserError) -> Outcome:
        # The page is given up even where the browser lives (a script that spins forever
        # timed the step out): the next reset opens a new one, not the stuck one again.
        if self._page is not None:
            self._page.abandon(str(error))
        gym.logger.warn(f"{type(self).__name__}: {error}; the episode is truncated")
        message = f"{error}. The episode is truncated; reset() starts a new page (and browser)."
        return Outcome(message, truncated=True, info={"browser_error": str(error)})

    def _observe(self, tree: str | None = None) -> str:
        assert self._page is not None and self._host is not None
        if tree is None:
            tree = self._run(self._page.observe())
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

    @property
    def marks(self) -> dict[int, tuple[tuple[int, int, int, int], tuple[float, ...]]]:
        """The last screenshot's marks, in its pixels ({} without ``set_of_marks``).

        id -> (its tag's rectangle x0, y0, x1, y1; its element's box x, y, w, h).
        """
        return dict(self._page.marks) if self._page is not None else {}

    def _page_info(self) -> dict[str, Any]:
        page = self._page
        return {
            "url": self._path(),
            "last_action_error": self._error or "",
            "blocked_requests": list(page.blocked) if page is not None else [],
        }

    def _render(self) -> str:
        return self._text

    # -- screenshots -----------------------------------------------------------------

    def _with_screenshot(self, obs: Any) -> Any:
        if not self.screenshot and self.render_mode != "rgb_array":
            return obs
        width, height = self.viewport
        image = np.zeros((height, width, 3), np.uint8)
        if self._page is not None and self._page.usable and self._host is not None:
            with contextlib.suppress(BrowserError):  # the text already says it died
                image = self._host.run(self._page.screenshot(self.set_of_marks))
        self._image = image
        return {"text": obs, "screenshot": image} if self.screenshot else obs

    def render(self) -> Any:
        """``rgb_array``: the last observation's screenshot; ``ansi``/``human``: its text."""
        if self.render_mode == "rgb_array":
            if self._image is None:
                width, height = self.viewport
                return np.zeros((height, width, 3), np.uint8)
            return self._image.copy()
        return super().render()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode (the same seed gives the same episode)."""
        obs, info = super().reset(seed=seed, options=options)
        return self._with_screenshot(obs), info

    def step(self, action: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Apply one action; a malformed one comes back as ``invalid_action``."""
        obs, reward, terminated, truncated, info = super().step(action)
        return self._with_screenshot(obs), reward, terminated, truncated, info


def _check_browser(screenshot: bool = False) -> None:
    """Refuse to make a web env that could never start a browser here, naming the fix."""
    # the sites import werkzeug when they are built; Playwright starts with the first reset
    require_installed("web", "a web env", ("werkzeug", "playwright"))
    if screenshot:
        require_installed("web", "a web env with screenshots", ("PIL",))
    if find_chromium() is None and not any(
        Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH", Path.home() / ".cache/ms-playwright")).glob(
            "chromium*"
        )
    ):
        raise BrowserError(
            "web envs need Chromium, which is not installed: apt-get install chromium "
            "(or point TURNGYM_CHROMIUM at a Chromium binary)"
        )

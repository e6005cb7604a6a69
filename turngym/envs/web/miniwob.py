"""``turngym/miniwob.<task>-v0``: the MiniWoB++ tasks on turngym's Chromium layer.

The HTML tasks ship inside the PyPI package ``miniwob`` (Farama's MiniWoB++); this env
serves that package's ``html/`` folder on 127.0.0.1 and drives the page with turngym's
actions and accessibility-tree observations (the package's own Selenium driver is not
used). Each ``reset(seed)`` loads the task page afresh, seeds its random generator from the
env's RNG (``Math.seedrandom``) and starts the episode with the task's own
``core.startEpisodeReal()``; the instruction is the task's utterance. The reward is read
from the task's JavaScript: its raw reward (``WOB_RAW_REWARD_GLOBAL``, usually 1 for
right and -1 for wrong, partial credit for some) when the task says it is done. MiniWoB
scales rewards down with wall time; turngym turns that clock off (``core.EPISODE_MAX_TIME``
is made very long), so an episode replays the same way however slowly the agent thinks.

An episode that ends before the page does gets MiniWoB's timeout reward, -1
(``TIMEOUT_REWARD``), as MiniWoB gives when its clock runs out: ``answer(...)`` (MiniWoB
has no such action), running out of ``max_turns`` (after ``noop()`` or anything else),
too many invalid actions in a row (added to the last one's penalty), leaving the
episode's page (``goto``, ``back``, a reload: another task's page, or a fresh copy of
this one, cannot pay for this episode) and a browser error or a stuck action (flagged
``info["browser_error"]``, for trainers that drop such episodes). So quitting never
beats a wrong answer, and ``info["reward_reason"]`` says which ending it was. A
``TimeLimit`` shorter than ``max_turns`` (``gym.make(..., max_episode_steps=n)``) ends
episodes outside the env, with the step's own reward: set ``max_turns`` instead (the
registered ``TimeLimit`` equals it).

``info["success"]`` means the task's full reward: a raw reward of 1 (not a partial one,
such as click-checkboxes' share of right boxes or find-greatest's 0.1 for a wrong card),
or for the geometry tasks graded by a click's distance (``MINIWOB_GRADED``), at least
the reward listed there, since a click lands on whole pixels.

``data_mode`` picks the problem distribution as the package's ``data_mode`` does:
``"train"`` (the default) or ``"test"``, the held-out split of the ``-transfer`` tasks and
of the natural-language ones (``email-inbox-nl-turk``, ``email-inbox-forward-nl(-turk)``),
whose test utterance is plain text without its slots.

``MINIWOB_TASKS`` lists the registered tasks: every task of the package that the action
set can finish (no drag-and-drop, drawing or text selection by dragging).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from turngym.core import Outcome
from turngym.envs.web.browser import BrowserError
from turngym.envs.web.browser_env import BrowserEnv
from turngym.envs.web.miniwob_tasks import MINIWOB_GRADED, MINIWOB_TASKS
from turngym.envs.web.tasks import WSGIApp
from turngym.extras import needs_extra, require_installed

__all__ = ["DATA_MODES", "MINIWOB_TASKS", "TIMEOUT_REWARD", "MiniWoBEnv", "miniwob_html"]

TIMEOUT_REWARD = -1.0
"""The reward of an episode that ends before its page does (MiniWoB's timeout)."""

DATA_MODES = ("train", "test")
"""The problem distributions of ``data_mode`` (the package's default is ``"train"``)."""


# MiniWoB's score board and its "START" cover are chrome around the task, not the task.
# terminal's caret blinks on an 800 ms timer: it stays shown, so what a read sees does not
# depend on when it comes.
_HIDE_CHROME = """(() => {
  const style = document.createElement('style');
  style.textContent = '#reward-display, #sync-task-cover { display: none !important; } ' +
    '#input-flicker { display: inline !important; }';
  document.head.appendChild(style);
})()"""

# The episode's page carries its episode number (set by _START, read-only): a page
# without it (another task's, a reload of this one, a page from the history) is not the
# episode's, and its WOB_* globals say nothing about this episode.
_PROBE = """(window.__turngymEpisode === undefined ? null :
  [window.__turngymEpisode, WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_REASON])"""

# Many tasks animate with jQuery (collapsibles, tabs, menus): the page is read once the
# animation an input started has ended (at most 2 s), as a person would look.
# After each input: the searches jQuery UI's autocompletes have pending ran (a widget
# searches its `delay` ms after the last key, 300 by default: book-flight and
# use-autocomplete, unlike their -nodelay twins), then the animations ended. Without the
# first, whether the suggestions showed depended on the wall clock. A search is pending
# while the widget's last searched term is not the input's value; bounded at 2 s.
_SETTLE = """(async () => {
  const pending = () => {
    try {
      return !!(window.jQuery && jQuery.ui && jQuery.ui.autocomplete) &&
        jQuery(':ui-autocomplete').toArray().some(el => {
          const w = jQuery(el).autocomplete('instance');
          return w && !w.options.disabled && w.term !== w._value() &&
            w._value().length >= w.options.minLength && el === document.activeElement;
        });
    } catch (e) { return false; }  // a page's own jQuery UI of another shape: no wait
  };
  for (let i = 0; i < 100 && pending(); i++) await new Promise(r => setTimeout(r, 20));
  for (let i = 0; i < 100 && window.jQuery && jQuery(':animated').length; i++)
    await new Promise(r => setTimeout(r, 20));
})()"""


# Starts the episode and answers its utterance once the page has settled: the timers of up
# to 1 s the task set while starting have run (terminal focuses its prompt after 200 ms;
# under load a read could come before or after that), then one frame is rendered, so the
# tree is read after the new problem is laid out.
_START = (
    _HIDE_CHROME
    + """;
(async () => {
  core.EPISODE_MAX_TIME = 1e9;
  core.setDataMode(__DATA_MODE__);
  Object.defineProperty(window, '__turngymEpisode', {value: __EPISODE__});
  Math.seedrandom(__SEED__);
  const setT = window.setTimeout, clearT = window.clearTimeout, due = new Set();
  window.setTimeout = function (fn, ms, ...args) {
    if (typeof fn !== 'function' || !(ms <= 1000)) return setT(fn, ms, ...args);
    const id = setT(() => { due.delete(id); fn(...args); }, ms);
    due.add(id);
    return id;
  };
  window.clearTimeout = id => { due.delete(id); clearT(id); };
  try { core.startEpisodeReal(); } finally { window.setTimeout = setT; }
  for (let i = 0; i < 200 && due.size; i++) await new Promise(r => setT(r, 10));
  window.clearTimeout = clearT;
  await new Promise(r => requestAnimationFrame(r));
  return core.getUtterance();
})()"""
)


def miniwob_html() -> Path:
    """The ``html/`` folder of the installed ``miniwob`` package.

    Raises:
        MissingExtra: ``miniwob`` is not installed (says how to install it).

    """
    with needs_extra("web", "a MiniWoB env"):
        import miniwob
    return Path(miniwob.__file__).resolve().parent / "html"


class MiniWoBEnv(BrowserEnv):
    """One MiniWoB++ task in Chromium; the reward is the task's own raw reward.

    An episode that ends before the page does (``answer(...)``, out of turns, too many
    invalid actions, leaving the page, a browser error) gets MiniWoB's timeout reward,
    -1; ``success`` means the task's full reward (see the module docstring).

    Args:
        task: the task's name (one of ``MINIWOB_TASKS``), e.g. ``"click-test"``.
        max_turns: truncate after this many turns (reward -1, MiniWoB's timeout).
        data_mode: ``"train"`` or ``"test"``, the problem split of the tasks that have one
            (the ``-transfer`` and natural-language tasks), as in the ``miniwob`` package.
        **kwargs: ``BrowserEnv``'s (``screenshot``, ``set_of_marks``, ``viewport``,
            ``invalid_action_penalty``, ``max_invalid_actions``, ``render_mode``).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/miniwob.click-test-v0")  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)  # doctest: +SKIP
        >>> info["instruction"]  # doctest: +SKIP
        'Click the button.'

    """

    probe = _PROBE
    settle_script = _SETTLE

    def __init__(
        self,
        *,
        task: str = "click-test",
        max_turns: int = 20,
        data_mode: str = "train",
        **kwargs: Any,
    ) -> None:
        if task not in MINIWOB_TASKS:
            raise ValueError(
                f"unknown MiniWoB task {task!r}; use one of {', '.join(MINIWOB_TASKS)}"
            )
        if data_mode not in DATA_MODES:
            raise ValueError(f"data_mode must be 'train' or 'test', got {data_mode!r}")
        require_installed("web", "a MiniWoB env", ("miniwob",))
        # MiniWoB pages are laid out for a 160x210 task area; a small viewport keeps
        # screenshots small and the layout the tasks were made for.
        kwargs.setdefault("viewport", (500, 400))
        super().__init__(max_turns=max_turns, **kwargs)
        self.task = task
        self.data_mode = data_mode
        self.raw_reward = 0.0
        self.reason: str | None = None
        self._episode = 0

    def _serve(self) -> WSGIApp:
        from werkzeug.exceptions import NotFound
        from werkzeug.middleware.shared_data import SharedDataMiddleware

        return SharedDataMiddleware(NotFound(), {"/": str(miniwob_html())})

    def _begin(self) -> str:
        assert self._page is not None
        # A fresh page every episode: focus, scroll, text typed and state a task keeps in
        # its globals would otherwise leak from one episode into the next.
        error = self._run(self._page.start(f"/miniwob/{self.task}.html"))
        if error is not None:
            raise BrowserError(f"the MiniWoB page did not open: {error}")
        seed = int(self.np_random.integers(2**31 - 1))
        self._episode += 1
        start = (
            _START.replace("__SEED__", str(seed))
            .replace("__EPISODE__", str(self._episode))
            .replace("__DATA_MODE__", json.dumps(self.data_mode))
        )
        utterance = self._run(self._page.evaluate(start))
        self.raw_reward, self.reason = 0.0, None
        # The natural-language tasks (``email-inbox-nl-turk``...) give the utterance with
        # its slots in the train split, ``{"utterance": ..., "fields": {...}}``: the
        # instruction is the text.
        if isinstance(utterance, dict):
            utterance = utterance.get("utterance", "")
        return str(utterance)

    def _timeout(self, why: str) -> float:
        """End the episode the way MiniWoB's clock does: reward -1, ``why`` as the reason."""
        self.raw_reward, self.reason = TIMEOUT_REWARD, f"timed out: {why}"
        return TIMEOUT_REWARD

    def _finished(self) -> float | None:
        assert self._page is not None
        probe = self._page.probe_value
        if not isinstance(probe, list) or len(probe) != 4 or probe[0] != self._episode:
            return self._timeout("left the task's page, which can no longer finish")
        _, done, raw, reason = probe
        if not done:
            return None
        self.raw_reward, self.reason = float(raw), reason
        return self.raw_reward

    def _answered(self, text: str) -> float:
        # MiniWoB has no answer action: ending with one is quitting before the page did.
        return self._timeout("answered before the task finished")

    def _end_of_turns(
        self, obs: str, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> tuple[str, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = super()._end_of_turns(
            obs, reward, terminated, truncated, info
        )
        reward += self._timeout(f"out of turns ({self.max_turns})")
        info.update(self._extra_info())
        return obs, reward, terminated, truncated, info

    def _invalid_step(self, action: Any, reason: str) -> tuple[str, float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = super()._invalid_step(action, reason)
        if truncated:  # a string of invalid actions must not end the episode above -1
            reward += self._timeout("too many invalid actions in a row")
            info.update(self._extra_info())
        return obs, reward, terminated, truncated, info

    def _browser_died(self, error: BrowserError) -> Outcome:
        # The same -1 whether the agent's action hung the page or the browser failed on
        # its own: info["browser_error"] lets a trainer drop the episode instead.
        outcome = super()._browser_died(error)
        outcome.reward = self._timeout(f"the browser failed ({error})")
        return outcome

    def _is_success(self, score: float) -> bool:
        return score >= MINIWOB_GRADED.get(self.task, 1.0) - 1e-9

    def _extra_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"task": self.task}
        if self.reason is not None:
            info["reward_reason"] = (
                json.dumps(self.reason) if not isinstance(self.reason, str) else self.reason
            )
        return info

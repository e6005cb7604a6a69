"""``turngym/miniwob.<task>-v0``: the MiniWoB++ tasks on turngym's Chromium layer.

The HTML tasks ship inside the PyPI package ``miniwob`` (Farama's MiniWoB++); this env
serves that package's ``html/`` folder on 127.0.0.1 and drives the page with turngym's
actions and accessibility-tree observations (the package's own Selenium driver is not
used). Each ``reset(seed)`` loads the task page afresh, seeds its random generator from the
env's RNG (``Math.seedrandom``) and starts the episode with the task's own
``core.startEpisodeReal()``; the instruction is the task's utterance. The reward is read
from the task's JavaScript: its raw reward (``WOB_RAW_REWARD_GLOBAL``, usually 1 for
right and -1 for wrong) when the task says it is done. MiniWoB scales rewards down with
wall time; turngym turns that clock off (``core.EPISODE_MAX_TIME`` is made very long),
so an episode replays the same way however slowly the agent thinks.

``MINIWOB_TASKS`` lists the registered tasks: every task of the package that the action
set can finish (no drag-and-drop, drawing or text selection by dragging).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from turngym.envs.web.browser import BrowserError
from turngym.envs.web.browser_env import BrowserEnv
from turngym.envs.web.miniwob_tasks import MINIWOB_TASKS
from turngym.envs.web.tasks import WSGIApp

__all__ = ["MINIWOB_TASKS", "MiniWoBEnv", "miniwob_html"]


# MiniWoB's score board and its "START" cover are chrome around the task, not the task.
# terminal's caret blinks on an 800 ms timer: it stays shown, so what a read sees does not
# depend on when it comes.
_HIDE_CHROME = """(() => {
  const style = document.createElement('style');
  style.textContent = '#reward-display, #sync-task-cover { display: none !important; } ' +
    '#input-flicker { display: inline !important; }';
  document.head.appendChild(style);
})()"""

_PROBE = "[WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_REASON]"

# Many tasks animate with jQuery (collapsibles, tabs, menus): the page is read once the
# animation an input started has ended (at most 2 s), as a person would look.
_SETTLE = """(async () => {
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
  Math.seedrandom(SEED);
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
        BrowserError: ``miniwob`` is not installed (says how to install it).

    """
    try:
        import miniwob
    except ImportError as exc:
        raise BrowserError(
            "MiniWoB tasks need the miniwob package: pip install 'turngym[web]'"
        ) from exc
    return Path(miniwob.__file__).resolve().parent / "html"


class MiniWoBEnv(BrowserEnv):
    """One MiniWoB++ task in Chromium; the reward is the task's own raw reward.

    ``success`` means a positive raw reward (MiniWoB's convention); ``answer(...)``
    gives up the episode (reward 0) unless the task had already ended.

    Args:
        task: the task's name (one of ``MINIWOB_TASKS``), e.g. ``"click-test"``.
        **kwargs: ``BrowserEnv``'s (``max_turns``, ``screenshot``, ``set_of_marks``,
            ``viewport``, ``invalid_action_penalty``, ``max_invalid_actions``,
            ``render_mode``).

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

    def __init__(self, *, task: str = "click-test", max_turns: int = 20, **kwargs: Any) -> None:
        if task not in MINIWOB_TASKS:
            raise ValueError(
                f"unknown MiniWoB task {task!r}; use one of {', '.join(MINIWOB_TASKS)}"
            )
        # MiniWoB pages are laid out for a 160x210 task area; a small viewport keeps
        # screenshots small and the layout the tasks were made for.
        kwargs.setdefault("viewport", (500, 400))
        super().__init__(max_turns=max_turns, **kwargs)
        self.task = task
        self.raw_reward = 0.0
        self.reason: str | None = None

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
        start = _START.replace("SEED", str(seed))
        utterance = self._run(self._page.evaluate(start))
        self.raw_reward, self.reason = 0.0, None
        # The natural-language tasks (``email-inbox-nl-turk``...) give the utterance with
        # its slots, ``{"utterance": ..., "fields": {...}}``: the instruction is the text.
        if isinstance(utterance, dict):
            utterance = utterance.get("utterance", "")
        return str(utterance)

    def _finished(self) -> float | None:
        assert self._page is not None
        done, raw, reason = self._page.probe_value or (False, 0.0, None)
        if not done:
            return None
        self.raw_reward, self.reason = float(raw), reason
        return self.raw_reward

    def _answered(self, text: str) -> float:
        return self.raw_reward

    def _is_success(self, score: float) -> bool:
        return score > 0

    def _extra_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"task": self.task}
        if self.reason is not None:
            info["reward_reason"] = (
                json.dumps(self.reason) if not isinstance(self.reason, str) else self.reason
            )
        return info

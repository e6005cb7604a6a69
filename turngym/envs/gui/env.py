"""``DesktopEnv``: desktop tasks on a real X server, acted on with computer-use actions.

Each env owns a private Xvfb (``display.Display``), the bundled Tk apps its task needs
(``apps.client.AppProcess``, kept across resets when the task's apps stay the same)
and, for hybrid tasks, an ``xterm`` whose shell runs in the SWE envs' bubblewrap
sandbox with only the episode's folder writable. An action is faked through XTEST
(``xtest.XTestInput``; ``xdotool`` where XTEST is missing), then every app drains the
X events it caused and reports its widget tree and state over its side channel, and
the screen is grabbed (``mss``). The observation is ``{"text", "screenshot"}``: the
text holds the task (first turn), the widget tree (``[N] role "name" (x, y, wxh)``,
``[N]`` usable as ``click(N)``) and the last action's error. ``set_of_marks=True``
also draws those ``[N]`` on the screenshot (``turngym.envs.marks``) for every widget a
click acts on (labels, which only show text, are left bare).

A task ends when its check passes (reward 1), on ``done()`` (reward 1 if it passes, else
0), on ``fail()`` (0) or when the turns run out. If an app or the X server dies, the
episode is truncated with a message that says so and the next ``reset`` restarts what
died.

The episode's folder belongs to the agent (its terminal writes there); the apps and
the checks touch it only through `confined.Folder`, so a link, a FIFO or a huge file
there is refused (a check that meets one says "not done"). The terminal is bounded by
``terminal_limits``; on reset it is stopped (every process of it killed) before the
folder is emptied and the task's setup writes the new files. The folder is a
`reaper.temp_dir` and every process a `reaper.spawn`: nothing outlives the env's
process, even one killed by SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.gui.actions import ACTION_HELP, GUIAction, parse_action
from turngym.envs.gui.apps.client import AppError, AppProcess
from turngym.envs.gui.display import DEFAULT_SIZE, Display, DisplayError, xvfb_available
from turngym.envs.gui.tasks import TASKS, load_task
from turngym.envs.gui.tasks.base import TERMINAL, GUITask
from turngym.envs.gui.terminal import SANDBOXES as TERMINAL_SANDBOXES
from turngym.envs.gui.terminal import Terminal, TerminalLimits, terminal_available
from turngym.envs.gui.terminal import check_sandbox as check_terminal_sandbox
from turngym.extras import require_installed
from turngym.host import reaper
from turngym.host.confined import PathRefused
from turngym.host.quota import mount_quota
from turngym.spaces import Unicode

__all__ = ["DesktopEnv"]

MAX_TEXT = 32_000
"""A longer observation text is cut (and says so)."""


class GUIError(RuntimeError):
    """The X server or an app failed in a way the episode cannot go on from."""


class DesktopEnv(TextEnv[GUIAction]):
    """A desktop task (``TASKS`` template) on a private X server with bundled apps.

    Needs ``turngym[gui]`` and Debian's ``xvfb`` (and ``xterm``, ``bubblewrap`` for the
    terminal tasks).

    Args:
        task: the task template's name (``tasks.TASKS``).
        size: the screen's (width, height).
        max_turns: truncate after this many turns (default: the template's).
        screenshot: observations are ``{"text", "screenshot"}`` dicts (else text only).
        set_of_marks: outline every widget but labels on the screenshot and tag it with
            its ``[N]`` (``click(N)`` clicks it), each tag outside the widget; implies
            ``screenshot``; ``marks`` holds where they are.
        input_backend: ``"auto"`` (XTEST, else xdotool), ``"xtest"`` or ``"xdotool"``.
        wait_seconds: how long ``wait()`` lets the desktop run (a command in the
            terminal, say) before the screen is read.
        invalid_action_penalty: reward of an action that cannot be applied (<= 0).
        max_invalid_actions: truncate after this many invalid actions in a row.
        render_mode: ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        terminal_limits: what the terminal's shell and its processes may use (wall-clock
            time per command, CPU time and file size per process, memory and processes
            in all); default ``TerminalLimits()``.
        terminal_sandbox: where the terminal's shell runs: ``"bwrap"`` (refused, naming
            the fix, where bubblewrap cannot run) or ``"local"``, the bare host, for a
            trusted agent only (it warns every reset).

    Example:
        >>> import gymnasium as gym
        >>> env = gym.make("turngym/gui.notes-create-v0")  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)  # doctest: +SKIP
        >>> obs["screenshot"].shape  # doctest: +SKIP
        (800, 1280, 3)

    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}  # noqa: RUF012
    max_obs_length: ClassVar[int] = MAX_TEXT + 1024

    def __init__(
        self,
        task: str = "notes-create",
        *,
        size: tuple[int, int] = DEFAULT_SIZE,
        max_turns: int | None = None,
        screenshot: bool = True,
        set_of_marks: bool = False,
        input_backend: str = "auto",
        wait_seconds: float = 0.5,
        invalid_action_penalty: float = 0.0,
        max_invalid_actions: int | None = 10,
        render_mode: str | None = None,
        terminal_limits: TerminalLimits | None = None,
        terminal_sandbox: str = "bwrap",
    ) -> None:
        super().__init__(
            invalid_action_penalty=invalid_action_penalty,
            max_invalid_actions=max_invalid_actions,
            render_mode=render_mode,
        )
        if task not in TASKS:
            raise ValueError(f"unknown GUI task {task!r}; known tasks: {', '.join(sorted(TASKS))}")
        width, height = (int(v) for v in size)
        if not (320 <= width <= 4096 and 240 <= height <= 4096):
            raise ValueError(
                f"size must be (width, height) within 320x240..4096x4096, got {size!r}"
            )
        if max_turns is not None and (not isinstance(max_turns, int) or max_turns < 1):
            raise ValueError(f"max_turns must be a positive int or None, got {max_turns!r}")
        if input_backend not in ("auto", "xtest", "xdotool"):
            raise ValueError(
                f"input_backend must be 'auto', 'xtest' or 'xdotool', got {input_backend!r}"
            )
        if not isinstance(wait_seconds, int | float) or not 0 <= wait_seconds <= 60:
            raise ValueError(
                f"wait_seconds must be a number of seconds in 0..60, got {wait_seconds!r}"
            )
        if terminal_limits is not None and not isinstance(terminal_limits, TerminalLimits):
            raise ValueError(
                "terminal_limits must be a TerminalLimits (turngym.envs.gui.terminal), "
                f"got {type(terminal_limits).__name__}"
            )
        self.terminal_limits = terminal_limits or TerminalLimits()
        self.wait_seconds = float(wait_seconds)
        self.task_name = task
        self.task: GUITask = load_task(task)
        _check_programs(self.task)
        if TERMINAL in self.task.apps:
            check_terminal_sandbox(terminal_sandbox)  # fail here, not at the first reset
        elif terminal_sandbox not in TERMINAL_SANDBOXES:
            raise ValueError(
                f"terminal_sandbox must be 'bwrap' or 'local', got {terminal_sandbox!r}"
            )
        self.terminal_sandbox = terminal_sandbox
        self.size = (width, height)
        self.max_turns = max_turns or self.task.max_turns
        self.set_of_marks = bool(set_of_marks)
        self.screenshot = bool(screenshot) or self.set_of_marks
        self.input_backend = input_backend
        if self.screenshot:
            self.observation_space = spaces.Dict(  # type: ignore[assignment]
                {
                    "text": Unicode(self.max_obs_length),
                    "screenshot": spaces.Box(0, 255, (height, width, 3), np.uint8),
                }
            )
        self.params: dict[str, Any] = {}
        self.app_state: dict[str, Any] = {}
        """the apps' last reported state, by app name (what the check reads)"""
        self.widgets: list[dict[str, Any]] = []
        self.marks: dict[int, tuple[tuple[int, int, int, int], tuple[float, ...]]] = {}
        """the last screenshot's marks: widget index -> (its tag's rectangle x0, y0, x1,
        y1; the widget's box x, y, w, h), with ``set_of_marks``"""
        self._display: Display | None = None
        self._input: Any = None
        self._capture: Any = None
        self._apps: dict[str, AppProcess] = {}
        self._terminal: Terminal | None = None
        self._workdir = reaper.temp_dir("turngym-gui-")
        # The agent's shell writes here: a tmpfs of the quota's size where the host may
        # mount one (root); elsewhere each file is bounded (TerminalLimits.file_mb).
        mount_quota(self._workdir, self.terminal_limits.disk_mb << 20)
        self._text = ""
        self._error = ""
        self._notices: list[str] = []
        self._image: np.ndarray | None = None
        self._image_served = False

    # -- the desktop's processes ------------------------------------------------------

    @property
    def display(self) -> Display | None:
        """The X server, once reset."""
        return self._display

    @property
    def workdir(self) -> Path:
        """The episode's folder: the apps' files, the terminal's working directory."""
        return self._workdir

    def _boxes(self) -> dict[str, tuple[int, int, int, int]]:
        """Each app's window (x, y, w, h): side by side, left to right."""
        width, height = self.size
        n = len(self.task.apps)
        return {
            app: (i * width // n, 0, width // n if i < n - 1 else width - i * width // n, height)
            for i, app in enumerate(self.task.apps)
        }

    def _start(self) -> None:
        """Start the X server and this task's apps, or restart what died."""
        from turngym.envs.gui.xtest import ScreenCapture, make_input

        if self._display is None or not self._display.alive:
            self._stop_all()
            self._display = Display(self.size)
            cookie = self._display.xauthority
            self._input = make_input(self._display.name, self.input_backend, xauthority=cookie)
            if hasattr(self._input, "settle"):
                self._input.settle = self._settle_apps
            self._capture = ScreenCapture(self._display.name, self.size, xauthority=cookie)
        boxes = self._boxes()
        for name, app in list(self._apps.items()):
            if name not in boxes or not app.alive:
                app.close()
                del self._apps[name]
        for name, (x, y, w, h) in boxes.items():
            if name != TERMINAL and name not in self._apps:
                geometry = f"{w}x{h}+{x}+{y}"
                self._apps[name] = AppProcess(self._display, name, str(self._workdir), geometry)
        if self._terminal is not None:
            self._terminal.close()
            self._terminal = None
        if TERMINAL in boxes:
            self._terminal = Terminal(
                self._display,
                self._workdir,
                boxes[TERMINAL],
                self.terminal_limits,
                sandbox=self.terminal_sandbox,
            )

    def _stop_all(self) -> None:
        for app in self._apps.values():
            app.close()
        self._apps.clear()
        if self._terminal is not None:
            self._terminal.close()
            self._terminal = None
        for part in (self._input, self._capture):
            if part is not None:
                part.close()
        self._input = self._capture = None
        if self._display is not None:
            self._display.close()
            self._display = None

    def close(self) -> None:
        """Stop the apps, the terminal and the X server; remove the episode folder."""
        self._stop_all()
        reaper.remove_dir(self._workdir)
        super().close()

    # -- the TextEnv hooks ------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        self.params = self.task.sample(self.np_random)
        self._error = ""
        self._notices = []
        if self._terminal is not None:
            # first: nothing the last episode's shell left running may touch the new files
            self._terminal.close()
            self._terminal = None
        _empty(self._workdir)
        self.task.setup(self.params, self._workdir)
        self.instruction = self.task.instruction(self.params)
        try:
            self._start()
            width, height = self.size
            # The pointer starts in a corner: hover effects and keyboard focus (which
            # follows the pointer) are then the same for a fresh env and a reused one.
            self._x11(lambda: self._input.move(width - 1, height - 1))
            configs = self.task.config(self.params)
            for name, app in self._apps.items():
                app.request("load", config=configs.get(name, {}))
            self._observe()
        except (AppError, DisplayError, GUIError) as error:
            # A fresh start failed: nothing to recover from inside this reset.
            self._stop_all()
            raise GUIError(f"the desktop could not start: {error}") from error
        return f"Task: {self.instruction}\n{ACTION_HELP}\n{self._text}"

    def _parse(self, action: str) -> GUIAction | Invalid:
        parsed = parse_action(action)
        if isinstance(parsed, Invalid):
            return parsed
        width, height = self.size
        if parsed.name in ("click", "double_click", "right_click") and len(parsed.args) == 1:
            index = parsed.args[0]
            if not 0 <= index < len(self.widgets):
                shown = f"0..{len(self.widgets) - 1}" if self.widgets else "none"
                return Invalid(f"{parsed.name}: no widget [{index}] on screen (shown: {shown})")
            return parsed
        if parsed.name in ("click", "double_click", "right_click", "move", "scroll", "drag"):
            points = parsed.args[:2] if parsed.name != "drag" else parsed.args
            for x, y in zip(points[::2], points[1::2], strict=True):
                if not (0 <= x < width and 0 <= y < height):
                    return Invalid(
                        f"{parsed.name}: ({x}, {y}) is outside the {width}x{height} screen "
                        f"(x in 0..{width - 1}, y in 0..{height - 1})"
                    )
        if parsed.name == "key":
            from turngym.envs.gui.xtest import keysym_names

            try:
                keysym_names(parsed.args[0])
            except ValueError as error:
                return Invalid(str(error))
        return parsed

    def _apply(self, action: GUIAction) -> Outcome:
        self._error = ""
        if action.name == "fail":
            return self._end("You gave up on the task (fail).", solved=False)
        try:
            if action.name != "done":
                self._act(action)
            self._observe()
        except (AppError, DisplayError, GUIError, OSError) as error:
            return self._died(error)
        try:
            solved = self.task.check(self.params, self.app_state, self._workdir)
        except (PathRefused, OSError):  # the checks refuse these themselves; a safety net
            solved = False
        if solved:
            return self._end(f"{self._text}\nThe task is done.", solved=True)
        if action.name == "done":
            return self._end(
                f"{self._text}\nYou said done, but the task is not done.", solved=False
            )
        return Outcome(self._text, info=self._info_now())

    def _act(self, action: GUIAction) -> None:
        """Send the action's input to the X server."""
        name, args = action.name, action.args
        device = self._input
        if name in ("click", "double_click", "right_click"):
            x, y = self._point(args)
            button, count = (
                (3, 1) if name == "right_click" else (1, 2 if name == "double_click" else 1)
            )
            self._x11(lambda: device.click(x, y, button, count))
        elif name == "move":
            self._x11(lambda: device.move(*args))
        elif name == "drag":
            self._x11(lambda: device.drag(*args))
        elif name == "scroll":
            self._x11(lambda: device.scroll(*args))
        elif name == "type":
            self._x11(lambda: device.type(args[0]))
        elif name == "key":
            self._x11(lambda: device.key(args[0]))
        elif name == "wait":
            time.sleep(self.wait_seconds)

    def _point(self, args: tuple[Any, ...]) -> tuple[int, int]:
        if len(args) == 2:
            return int(args[0]), int(args[1])
        widget = self.widgets[args[0]]
        return widget["x"] + widget["w"] // 2, widget["y"] + widget["h"] // 2

    def _x11(self, work: Any) -> None:
        """Run input work; a lost X connection becomes a ``GUIError``."""
        from Xlib.error import ConnectionClosedError
        from Xlib.error import DisplayError as XDisplayError

        try:
            work()
        except (ConnectionClosedError, XDisplayError, BrokenPipeError, ConnectionError) as error:
            raise GUIError(f"the X server {self._where()} went away ({error})") from error
        except Exception as error:  # xdotool failing, a keymap full: the action had no effect
            if self._display is not None and not self._display.alive:
                raise GUIError(f"the X server {self._where()} went away") from error
            self._error = f"the action could not be sent: {error}"

    def _where(self) -> str:
        return self._display.name if self._display is not None else "(none)"

    def _observe(self) -> None:
        """Ask every app for its widgets and state, grab the screen, build the text."""
        if self._display is None or not self._display.alive:
            raise GUIError(f"the X server {self._where()} is not running")
        widgets: list[dict[str, Any]] = []
        state: dict[str, Any] = {}
        for app in self._apps.values():
            app.send("observe")
        for app in self._apps.values():
            app.receive("observe")  # drawn: the screen shows the action's effect
        if self.screenshot or self.render_mode == "rgb_array":
            self._image = self._grab()  # while the apps read their widgets
            self._image_served = False
        for name, app in self._apps.items():
            reply = app.receive("observe")
            state[name] = reply["state"]
            widgets.extend({"app": name, **w} for w in reply["widgets"])
        if hasattr(self._input, "settled"):  # the apps drained: no remap need wait for them
            self._input.settled()
        if self._terminal is not None:
            while self._terminal.notices:
                self._notices.append(self._terminal.notices.popleft())
            if not self._terminal.alive:
                raise GUIError(f"the terminal exited ({self._terminal.why_dead()})")
            x, y, w, h = self._terminal.box
            widgets.append(
                {
                    "app": TERMINAL,
                    "role": "terminal",
                    "name": "Terminal",
                    "x": x,
                    "y": y,
                    "w": w,
                    "h": h,
                }
            )
        for index, widget in enumerate(widgets):
            widget["index"] = index
        self.widgets = widgets
        self.app_state = state
        self._text = self._describe()
        if self.set_of_marks and self._image is not None:
            self._mark()

    def _mark(self) -> None:
        """Draw the ``[N]`` of every widget a click acts on onto the screenshot."""
        from turngym.envs.marks import draw_marks

        boxes = {
            int(w["index"]): (float(w["x"]), float(w["y"]), float(w["w"]), float(w["h"]))
            for w in self.widgets
            if w["role"] not in _UNMARKED and w["w"] > 0 and w["h"] > 0
        }
        assert self._image is not None
        self._image, tags = draw_marks(self._image, boxes)
        self.marks = {k: (tags[k], boxes[k]) for k in boxes}

    def _settle_apps(self) -> None:
        """Let every app handle the X events sent so far (before a keycode is remapped)."""
        for app in self._apps.values():
            app.send("observe")
        for app in self._apps.values():
            app.receive("observe")  # drained and drawn
            app.receive("observe")  # the widget tree, not needed here

    def _grab(self) -> np.ndarray:
        from Xlib.error import ConnectionClosedError

        try:
            return np.asarray(self._capture.grab())
        except (ConnectionClosedError, OSError) as error:
            raise GUIError(f"the X server {self._where()} went away ({error})") from error
        except Exception as error:  # mss raises its own ScreenShotError
            raise GUIError(f"could not grab the screen ({error})") from error

    def _describe(self) -> str:
        width, height = self.size
        lines = [f'Screen {width}x{height}. Widgets ([N] role "name" (x, y, wxh)):']
        for w in self.widgets:
            line = (
                f'[{w["index"]}] {w["role"]} "{w["name"]}" ({w["x"]}, {w["y"]}, {w["w"]}x{w["h"]})'
            )
            if "value" in w:
                line += f" value={_quote(w['value'])}"
            for flag in ("focused", "selected", "disabled"):
                if w.get(flag):
                    line += f" {flag}"
            lines.append(line)
        if any(w["role"] == "terminal" for w in self.widgets):
            lines.append("(The terminal's text is on the screenshot; click it, then type.)")
        lines.extend(f"Terminal: {notice}" for notice in self._notices)
        self._notices = []
        if self._error:
            lines.append(f"Error: {self._error}")
        text = "\n".join(lines)
        if len(text) > MAX_TEXT:
            text = text[:MAX_TEXT] + f"\n... (cut at {MAX_TEXT} characters)"
        return text

    def _info_now(self) -> dict[str, Any]:
        return {"widgets": [dict(w) for w in self.widgets], "last_action_error": self._error}

    def _end(self, obs: str, *, solved: bool) -> Outcome:
        info = self._info_now()
        return Outcome(
            obs, reward=1.0 if solved else 0.0, terminated=True, success=solved, info=info
        )

    def _died(self, error: Exception) -> Outcome:
        message = f"{error}. The episode is truncated; reset() restarts the desktop."
        return Outcome(message, truncated=True, info={"gui_error": str(error), "widgets": []})

    def _render(self) -> str:
        return self._text

    # -- pixels -------------------------------------------------------------------------

    def _pixels(self) -> np.ndarray:
        """The last screenshot; a copy once it has been handed out (callers keep theirs)."""
        if self._image is None:
            return np.zeros((self.size[1], self.size[0], 3), np.uint8)
        if self._image_served:
            return self._image.copy()
        self._image_served = True
        return self._image

    def _with_screenshot(self, obs: str) -> Any:
        return {"text": obs, "screenshot": self._pixels()} if self.screenshot else obs

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode: fresh files, apps in the task's starting state."""
        obs, info = super().reset(seed=seed, options=options)
        info.update(self._info_now())
        return self._with_screenshot(obs), info

    def step(self, action: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Apply one action; a malformed one comes back as ``invalid_action``."""
        obs, reward, terminated, truncated, info = super().step(action)
        if info.get("gui_error"):
            self._image = None
        return self._with_screenshot(obs), reward, terminated, truncated, info

    def render(self) -> Any:
        """``rgb_array``: the last screenshot; ``ansi``/``human``: the widget text."""
        if self.render_mode == "rgb_array":
            return self._pixels() if self._image is None else self._image.copy()
        return super().render()


_UNMARKED = frozenset({"label"})
"""Widget roles set-of-marks leaves bare: they show text and take no click."""


def _quote(value: str) -> str:
    short = value if len(value) <= 200 else value[:200] + "..."
    return '"' + short.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _empty(folder: Path) -> None:
    """Remove everything in ``folder`` (links themselves, never what they point to).

    The agent may have left a folder it made unwritable (``chmod 000``): without root,
    such folders are made writable again, then removed.
    """
    for _ in range(2):
        with os.scandir(folder) as entries:
            for entry in list(entries):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(entry.path)
        if not os.listdir(folder):
            return
        for top, dirs, _ in os.walk(folder):  # os.walk follows no link
            for name in [top, *(os.path.join(top, d) for d in dirs)]:
                with contextlib.suppress(OSError):
                    if stat.S_ISDIR(os.lstat(name).st_mode):
                        os.chmod(name, 0o700)
    left = sorted(os.listdir(folder))[:5]
    raise GUIError(f"the episode folder {folder} could not be emptied (left: {left})")


def _check_programs(task: GUITask) -> None:
    """Refuse to make an env whose desktop cannot start here, naming what to install."""
    # XTest input and mss screenshots; both are imported only once the desktop starts
    require_installed("gui", "a desktop env", ("Xlib", "mss"))
    if not xvfb_available():
        raise DisplayError(
            "GUI envs need Xvfb, which is not installed: apt-get install xvfb "
            "(scripts/install_system_deps.sh installs every GUI package)"
        )
    if TERMINAL in task.apps and not terminal_available():
        raise DisplayError("this GUI task has a terminal: apt-get install xterm")

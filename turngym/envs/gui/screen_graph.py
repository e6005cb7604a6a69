"""``ScreenGraph-v0``: open a given screen of a simulated app by clicking its icons.

In the style of GUI Exploration Lab, each reset draws an app from ``self.np_random``:
``n_screens`` screens named from a word list, a home screen, a spanning tree of icon
links from home (so every screen can be reached) plus extra random links, and each
screen's icons (``icons``: 8-12 by default) placed on a 3x4 grid under a title bar. The
task names a screen ``min_depth`` or more clicks from home when the graph has one. The
agent sees each screen as text (its title and a widget list with pixel boxes) and as a
screenshot drawn with Pillow, and acts with the computer-use calls of
``turngym.envs.gui.actions``. Nothing runs behind the screens (no X server): each screen
is laid out and drawn on its first visit in an episode and then reused.

The defaults (200 screens, 8-12 icons each, a target 3+ clicks deep, 20 turns) are chosen
so that luck does not solve the task. Over seeds 0-999, clicking a random listed widget
every turn succeeds 6.2% of the time and ``RandomAgent`` (which also draws ``done``)
2.9%; an agent that reads only its observations and explores depth-first (the target's
icon when one shows, else an icon to a screen it has not seen, else Back) 57.5%; the
expert, which reads the app's graph, 100% (seeds 10,000-10,999, at most 4 clicks). The
earlier defaults, ``n_screens=12, max_turns=30, min_depth=2, icons=(2, 6)``, still draw
exactly the episodes they drew before; random clicking solves 82.8% of those (seeds
0-999), ``RandomAgent`` 17.6%, and the explorer and the expert 100%. ``benchmarks/
screen_graph_headroom.py`` measures these figures.
"""

from __future__ import annotations

import functools
import zlib
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.gui.actions import ACTION_HELP, GUIAction, parse_action
from turngym.extras import require_installed
from turngym.spaces import Unicode

__all__ = ["HOME", "SCREEN_NAMES", "ScreenGraphEnv", "Widget", "draw_screen", "glyph_colour"]

HOME = "Home"
"""The name of the screen every episode starts on."""

SCREEN_NAMES: tuple[str, ...] = (
    "Settings", "Wi-Fi", "Bluetooth", "Battery", "Display", "Sound", "Notifications",
    "Privacy", "Security", "Storage", "Apps", "Accounts", "Language", "Keyboard",
    "Date & Time", "Accessibility", "Wallpaper", "Photos", "Albums", "Camera", "Gallery",
    "Music", "Playlists", "Podcasts", "Videos", "Contacts", "Favorites", "Recents",
    "Messages", "Mail", "Inbox", "Drafts", "Sent", "Calendar", "Events", "Reminders",
    "Notes", "Clock", "Alarms", "Timer", "Stopwatch", "Weather", "Maps", "Saved Places",
    "Files", "Downloads", "Documents", "Backup", "Updates", "About", "Help", "Feedback",
    "Profile", "Friends", "Groups", "Search", "Shop", "Cart", "Orders", "Wallet",
    "Payments", "Cards", "Subscriptions", "Health", "Sleep", "Workouts", "News",
    "Bookmarks", "History", "Translate", "Calculator", "Recorder", "Themes", "Fonts",
    "Hotspot", "Data Usage", "Airplane Mode", "Location", "Permissions", "Passwords",
    "Family", "Trash",
)  # fmt: skip
"""Names of the non-home screens; an app with more screens than this adds suffixed ones."""

_SUFFIXES = ("Settings", "Details", "Options", "Archive")
_EXTRA_NAMES = tuple(
    f"{name} {suffix}" for suffix in _SUFFIXES for name in SCREEN_NAMES if suffix not in name
)

GRID_COLUMNS, GRID_ROWS = 3, 4
MAX_ICONS = GRID_COLUMNS * GRID_ROWS
"""The most icons a screen can show: one per cell of its grid."""
MIN_SCREENS, MAX_SCREENS = 2, 200
TITLE_HEIGHT = 56
GAP = 16
BACK_BOX = (8, 8, 80, 40)
"""x, y, w, h of the Back button in the title bar."""
MIN_SIZE, MAX_SIZE = (160, 240), (4096, 4096)

_POINTER_ACTIONS = ("click", "double_click", "right_click")


@dataclass(frozen=True)
class Widget:
    """One clickable thing on a screen: its ``[index]``, role, name and pixel box.

    ``to`` is the screen an icon opens (None for the Back button).
    """

    index: int
    role: str
    name: str
    x: int
    y: int
    w: int
    h: int
    to: int | None = None

    def contains(self, x: int, y: int) -> bool:
        """Whether the pixel ``(x, y)`` lies inside the widget."""
        return self.x <= x < self.x + self.w and self.y <= y < self.y + self.h

    @property
    def center(self) -> tuple[int, int]:
        """The pixel ``click(index)`` clicks."""
        return self.x + self.w // 2, self.y + self.h // 2

    def line(self) -> str:
        """The widget as the observation lists it: ``[0] button "Back" (8, 8, 80x40)``."""
        return f'[{self.index}] {self.role} "{self.name}" ({self.x}, {self.y}, {self.w}x{self.h})'

    def as_dict(self) -> dict[str, Any]:
        """The widget for ``info["widgets"]``: index, role, name, x, y, w, h."""
        return {
            "index": self.index,
            "role": self.role,
            "name": self.name,
            "x": self.x,
            "y": self.y,
            "w": self.w,
            "h": self.h,
        }


class ScreenGraphEnv(TextEnv[GUIAction]):
    """Find a screen in a randomly drawn app by clicking icons (and Back).

    Observations are ``{"text", "screenshot"}`` dicts: the text names the screen and
    lists its widgets (``[1] icon "Battery" (16, 72, 98x120)``: index, role, name, x and
    y of the top-left corner, width x height); the screenshot is an ``(H, W, 3)`` uint8
    array (a copy of the screen, drawn once per episode, so it is yours to keep).
    ``click(x, y)`` or ``click(index)`` on an icon opens its screen; Back returns to the
    previous one. Opening the target ends the episode with reward 1; ``done()``
    ends it (success only on the target), ``fail()`` gives up. Other actions are valid
    and do nothing.

    Args:
        n_screens: screens in the app, home included (2..200).
        size: screen size in pixels, ``(width, height)``.
        max_turns: truncate after this many turns.
        min_depth: the target is at least this many clicks from home (the deepest
            screens when the app has none that deep).
        icons: ``(least, most)`` icons a screen shows (1 <= least <= most <= 12, the
            grid's cells); fewer only when the app has fewer other screens. More icons
            per screen means more wrong clicks for a guesser, not for a reader.
        invalid_action_penalty: reward of an action that cannot be applied (<= 0).
        max_invalid_actions: truncate after this many invalid actions in a row.
        render_mode: ``"ansi"`` (the screen as text), ``"human"`` (printed) or
            ``"rgb_array"`` (the screenshot).
        set_of_marks: outline each widget on the screenshot and tag it with its
            ``[index]`` (``click(index)`` clicks it), the tag outside the widget
            (``turngym.envs.marks``); ``marks`` holds where they are.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/ScreenGraph-v0")
        >>> obs, info = env.reset(seed=0)
        >>> obs["screenshot"].shape, info["screen"]
        ((640, 360, 3), 'Home')
        >>> obs, reward, terminated, truncated, info = env.step("click(0)")
        >>> info["screen"] != "Home", info["invalid_action"]
        (True, False)

    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}  # noqa: RUF012
    max_obs_length: ClassVar[int] = 16_384

    def __init__(
        self,
        *,
        n_screens: int = 200,
        size: tuple[int, int] = (360, 640),
        max_turns: int = 20,
        min_depth: int = 3,
        icons: tuple[int, int] = (8, 12),
        invalid_action_penalty: float = 0.0,
        max_invalid_actions: int | None = 10,
        render_mode: str | None = None,
        set_of_marks: bool = False,
    ) -> None:
        super().__init__(
            invalid_action_penalty=invalid_action_penalty,
            max_invalid_actions=max_invalid_actions,
            render_mode=render_mode,
        )
        self.set_of_marks = bool(set_of_marks)
        self.marks: dict[int, tuple[tuple[int, int, int, int], tuple[float, ...]]] = {}
        """the last screenshot's marks: widget index -> (its tag's rectangle x0, y0, x1,
        y1; the widget's box x, y, w, h), with ``set_of_marks``"""
        self._marks: dict[int, dict[int, tuple[tuple[int, int, int, int], tuple[float, ...]]]] = {}
        # Pillow draws the screens; no X server is involved
        require_installed("gui", "ScreenGraph-v0", ("PIL",), system=())
        if not _is_int(n_screens) or not MIN_SCREENS <= n_screens <= MAX_SCREENS:
            raise ValueError(
                f"n_screens must be an int in {MIN_SCREENS}..{MAX_SCREENS}, got {n_screens!r}"
            )
        if not _is_int(max_turns) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
        if not _is_int(min_depth) or min_depth < 1:
            raise ValueError(f"min_depth must be a positive int, got {min_depth!r}")
        if (
            not isinstance(icons, Sequence)
            or len(icons) != 2
            or not all(_is_int(v) for v in icons)
            or not 1 <= icons[0] <= icons[1] <= MAX_ICONS
        ):
            raise ValueError(
                f"icons must be (least, most) with 1 <= least <= most <= {MAX_ICONS} "
                f"(the grid's cells), got {icons!r}"
            )
        if (
            not isinstance(size, Sequence)
            or len(size) != 2
            or not all(_is_int(v) for v in size)
            or not all(lo <= v <= hi for v, lo, hi in zip(size, MIN_SIZE, MAX_SIZE, strict=True))
        ):
            raise ValueError(
                f"size must be (width, height) with width in {MIN_SIZE[0]}..{MAX_SIZE[0]} "
                f"and height in {MIN_SIZE[1]}..{MAX_SIZE[1]}, got {size!r}"
            )
        self.n_screens = int(n_screens)
        self.size = (int(size[0]), int(size[1]))
        self.max_turns = int(max_turns)
        self.min_depth = int(min_depth)
        self.icons = (int(icons[0]), int(icons[1]))
        width, height = self.size
        # The text base class types its space as text; pixels make it a Dict.
        self.observation_space = spaces.Dict(  # type: ignore[assignment]
            {
                "text": Unicode(self.max_obs_length),
                "screenshot": spaces.Box(0, 255, (height, width, 3), np.uint8),
            }
        )
        self._cells = _grid_cells(width, height)
        self._names: list[str] = [HOME]
        self._links: list[tuple[int, ...]] = [()]
        self._cells_of: list[list[int]] = [[]]
        self._widgets: dict[int, tuple[Widget, ...]] = {}
        self._target = 0
        self._current = 0
        self._history: list[int] = []
        self._shots: dict[int, np.ndarray] = {}

    # -- what an expert (or a test) may read ----------------------------------------

    @property
    def screen(self) -> str:
        """The name of the screen on show."""
        return self._names[self._current]

    @property
    def target(self) -> str:
        """The name of the screen to open."""
        return self._names[self._target]

    @property
    def history(self) -> tuple[str, ...]:
        """The Back stack, oldest first (empty on the home screen)."""
        return tuple(self._names[s] for s in self._history)

    @property
    def links(self) -> dict[str, tuple[str, ...]]:
        """Each screen's icons, as the names of the screens they open."""
        return {
            self._names[s]: tuple(self._names[t] for t in out) for s, out in enumerate(self._links)
        }

    @property
    def widgets(self) -> tuple[Widget, ...]:
        """The widgets on show, in index order."""
        return self._screen_widgets(self._current)

    # -- the TextEnv hooks -----------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        rng = self.np_random
        n = self.n_screens
        self._names = [HOME, *_draw_names(rng, n - 1)]
        self._links = _draw_links(rng, n, self.icons)
        depth = _depths(self._links)
        least = min(self.min_depth, max(depth))
        pool = [s for s in range(1, n) if depth[s] >= least]
        self._target = pool[int(rng.integers(len(pool)))]
        # Each screen's cells are drawn now (the RNG's order fixes the episode); its
        # widgets are built on its first visit, as most screens of a big app are never seen.
        n_cells = len(self._cells)
        self._cells_of = [
            # permutation()[:k] is choice(replace=False) without its per-call overhead
            sorted(int(c) for c in rng.permutation(n_cells)[: len(out)])
            for out in self._links
        ]
        self._widgets = {}
        self._current = 0
        self._history = []
        self._shots = {}
        self._marks = {}
        self.instruction = f'Open the "{self._names[self._target]}" screen.'
        width, height = self.size
        return (
            f"Task: {self.instruction}\n{ACTION_HELP}\n"
            f"The screen is {width}x{height} pixels.\n{self._listing()}"
        )

    def _screen_widgets(self, screen: int) -> tuple[Widget, ...]:
        """Back (off the home screen) and the screen's icons in their grid cells."""
        widgets = self._widgets.get(screen)
        if widgets is None:
            made = [] if screen == 0 else [Widget(0, "button", "Back", *BACK_BOX)]
            for cell, to in zip(self._cells_of[screen], self._links[screen], strict=True):
                x, y, w, h = self._cells[cell]
                made.append(Widget(len(made), "icon", self._names[to], x, y, w, h, to))
            widgets = self._widgets[screen] = tuple(made)
        return widgets

    def _parse(self, action: str) -> GUIAction | Invalid:
        parsed = parse_action(action)
        if isinstance(parsed, Invalid):
            return parsed
        name, args = parsed.name, parsed.args
        if name in _POINTER_ACTIONS and len(args) == 1:
            n = len(self.widgets)
            if args[0] >= n:
                return Invalid(
                    f"{name}: no widget [{args[0]}] on this screen; its widgets are [0]..[{n - 1}]"
                )
            return parsed
        if name == "drag":
            points = [args[:2], args[2:]]
        else:  # type and key have no point; wait, done and fail no arguments
            points = [args[:2]] if len(args) >= 2 and name not in ("type", "key") else []
        width, height = self.size
        for point in points:
            for axis, value, limit in (("x", point[0], width), ("y", point[1], height)):
                if not 0 <= value < limit:
                    return Invalid(
                        f"{name}: {axis}={value} is outside the {width}x{height} screen "
                        f"({axis} is 0..{limit - 1})"
                    )
        return parsed

    def _apply(self, action: GUIAction) -> Outcome:
        name = action.name
        if name in ("click", "double_click"):
            x, y = self._point(action)
            hit = next((w for w in self.widgets if w.contains(x, y)), None)
            if hit is None:
                return Outcome(
                    f"{action}: no widget at ({x}, {y}); nothing happens.\n{self._listing()}"
                )
            return self._press(hit)
        if name in ("done", "fail"):
            success = name == "done" and self._current == self._target
            if success:
                text = f'You said done on the "{self.target}" screen: the task is solved.'
            elif name == "done":
                text = (
                    f'You said done on the "{self.screen}" screen, but the task was to open '
                    f'"{self.target}". The episode ends.'
                )
            else:
                text = "You gave up. The episode ends."
            return Outcome(text, reward=float(success), terminated=True, success=success)
        return Outcome(f"{action}: nothing happens.\n{self._listing()}")

    def _point(self, action: GUIAction) -> tuple[int, int]:
        if len(action.args) == 1:
            return self.widgets[action.args[0]].center
        return action.args[0], action.args[1]

    def _press(self, widget: Widget) -> Outcome:
        """Open what ``widget`` leads to; reaching the target ends the episode."""
        if widget.to is None:
            self._current = self._history.pop()
            event = f'You pressed "Back" and returned to "{self.screen}".'
        else:
            if widget.to == 0:
                self._history.clear()  # home is the root: its Back stack is empty
            else:
                self._history.append(self._current)
            self._current = widget.to
            event = f'You opened "{self.screen}".'
        if self._current == self._target:
            text = f"{event}\n{self._listing()}\nThis is the screen the task asked for: solved."
            return Outcome(text, reward=1.0, terminated=True, success=True)
        return Outcome(f"{event}\n{self._listing()}")

    def _legal_actions(self) -> list[str]:
        return [f"click({w.index})" for w in self.widgets] + ["done"]

    def _render(self) -> str:
        return self._listing()

    def _state_key(self) -> str:
        return self.screen

    def _extra_info(self) -> dict[str, Any]:
        return {
            "instruction": self.instruction,
            "screen": self.screen,
            "widgets": [w.as_dict() for w in self.widgets],
        }

    def _listing(self) -> str:
        lines = [f'Screen: "{self.screen}"', *(w.line() for w in self.widgets)]
        return "\n".join(lines)

    # -- pixels ------------------------------------------------------------------------

    def _screenshot(self) -> np.ndarray:
        """A copy of the current screen's pixels, drawn on its first visit in the episode.

        The copy is the caller's to keep or draw on (Gymnasium's checker wants new data
        each step, and a shared read-only array fails it); copying is cheaper than drawing.
        """
        frame = self._shots.get(self._current)
        if frame is None:
            frame = draw_screen(self.screen, self.widgets, self.size)
            if self.set_of_marks:
                from turngym.envs.marks import draw_marks

                boxes = {
                    w.index: (float(w.x), float(w.y), float(w.w), float(w.h)) for w in self.widgets
                }
                frame, tags = draw_marks(frame, boxes)
                self._marks[self._current] = {k: (tags[k], boxes[k]) for k in boxes}
            frame.flags.writeable = False  # the cache is never written after drawing
            self._shots[self._current] = frame
        self.marks = dict(self._marks.get(self._current, {}))
        return frame.copy()

    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Draw a new app (the same seed draws the same one) and show its home screen."""
        text, info = super().reset(seed=seed, options=options)
        return {"text": text, "screenshot": self._screenshot()}, info

    def step(  # type: ignore[override]
        self, action: str
    ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Apply one action; a malformed one comes back as ``invalid_action``."""
        text, reward, terminated, truncated, info = super().step(action)
        if info["invalid_action"] and not (terminated or truncated):
            text = f"Error: {text}\n{self._listing()}"
        return {"text": text, "screenshot": self._screenshot()}, reward, terminated, truncated, info

    def render(self) -> Any:
        """The screen as text (``ansi``), printed (``human``) or pixels (``rgb_array``)."""
        if self.render_mode == "rgb_array":
            return self._screenshot() if self._started else None
        return super().render()


# -- drawing the app ------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _draw_names(rng: np.random.Generator, k: int) -> list[str]:
    """``k`` distinct screen names: plain ones first, suffixed ones for big apps."""
    plain = [SCREEN_NAMES[int(i)] for i in rng.permutation(len(SCREEN_NAMES))[:k]]
    if k <= len(plain):
        return plain
    extra = rng.choice(len(_EXTRA_NAMES), k - len(plain), replace=False)
    return plain + [_EXTRA_NAMES[int(i)] for i in extra]


def _draw_links(rng: np.random.Generator, n: int, icons: tuple[int, int]) -> list[tuple[int, ...]]:
    """Each screen's icon targets: a spanning tree from home (0), then random extras.

    A screen gets ``icons[0]..icons[1]`` icons (fewer when the app has fewer other
    screens): its tree links, then other screens drawn at random to make up the rest.
    """
    least, most = icons
    links: list[list[int]] = [[] for _ in range(n)]
    open_parents = [0]  # the screens so far with room for another icon, in index order
    for child in range(1, n):
        parent = open_parents[int(rng.integers(len(open_parents)))]
        links[parent].append(child)
        if len(links[parent]) == most:
            open_parents.remove(parent)
        open_parents.append(child)
    for screen in range(n):
        out = links[screen]
        missing = min(int(rng.integers(least, most + 1)), n - 1) - len(out)
        if missing > 0:
            # Draw among the screens not yet linked (nor this one), in index order,
            # without listing all n of them: pick i is the i-th screen not taken.
            taken = sorted([screen, *out])
            for i in rng.permutation(n - len(taken))[:missing].tolist():
                for t in taken:
                    if t > i:
                        break
                    i += 1
                out.append(i)
    return [tuple(out[i] for i in rng.permutation(len(out)).tolist()) for out in links]


def _depths(links: Sequence[Sequence[int]]) -> list[int]:
    """Clicks from home to each screen (BFS over icon links)."""
    depth = [-1] * len(links)
    depth[0] = 0
    queue = deque([0])
    while queue:
        screen = queue.popleft()
        for to in links[screen]:
            if depth[to] < 0:
                depth[to] = depth[screen] + 1
                queue.append(to)
    return depth


def _grid_cells(width: int, height: int) -> list[tuple[int, int, int, int]]:
    """The boxes (x, y, w, h) icons may sit in: a grid under the title bar."""
    tile_w = min((width - (GRID_COLUMNS + 1) * GAP) // GRID_COLUMNS, 120)
    tile_h = min((height - TITLE_HEIGHT - (GRID_ROWS + 1) * GAP) // GRID_ROWS, tile_w + 28)
    spacing = (width - GRID_COLUMNS * tile_w) / (GRID_COLUMNS + 1)
    cells = []
    for row in range(GRID_ROWS):
        y = TITLE_HEIGHT + GAP + row * (tile_h + GAP)
        for column in range(GRID_COLUMNS):
            x = round(spacing * (column + 1) + column * tile_w)
            cells.append((x, y, tile_w, tile_h))
    return cells


_BACKGROUND = (245, 246, 248)
_TITLE_BAR = (32, 92, 190)
_WHITE = (255, 255, 255)
_BACK_BUTTON = (72, 132, 222)
_TILE = (228, 231, 236)
_TILE_EDGE = (188, 194, 204)
_LABEL = (30, 30, 34)
_PALETTE = (
    (229, 57, 53), (216, 27, 96), (142, 36, 170), (94, 53, 177), (57, 73, 171),
    (30, 136, 229), (0, 137, 123), (67, 160, 71), (124, 179, 66), (253, 216, 53),
    (251, 140, 0), (109, 76, 65),
)  # fmt: skip
_LABEL_HEIGHT = 18


@functools.lru_cache(maxsize=16)
def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: one bitmap font, one size
        return ImageFont.load_default()


def glyph_colour(name: str) -> tuple[int, int, int]:
    """The colour of a screen's icon glyph (fixed per name, so an app looks familiar)."""
    return _PALETTE[zlib.crc32(name.encode()) % len(_PALETTE)]


def draw_screen(title: str, widgets: Sequence[Widget], size: tuple[int, int]) -> np.ndarray:
    """Draw a screen: title bar, Back button, icons (coloured glyph over a label).

    The pieces are drawn with Pillow once per process (an icon depends only on its name
    and size) and pasted into the frame, so a new screen costs a few array copies.

    Returns:
        A new ``(height, width, 3)`` uint8 array.

    >>> shot = draw_screen("Home", [Widget(0, "icon", "Photos", 16, 72, 98, 120, 1)], (360, 640))
    >>> shot.shape, shot.dtype.name, tuple(shot[90, 40]) == glyph_colour("Photos")
    ((640, 360, 3), 'uint8', True)

    """
    width, height = size
    frame = _blank(width, height).copy()
    text = _text_sprite(title, 16, width - 2 * (BACK_BOX[0] + BACK_BOX[2] + 8), _TITLE_BAR)
    _paste(frame, text, (width - text.shape[1]) // 2, (TITLE_HEIGHT - text.shape[0]) // 2)
    for w in widgets:
        sprite = _back_sprite(w.w, w.h) if w.to is None else _icon_sprite(w.name, w.w, w.h)
        _paste(frame, sprite, w.x, w.y)
    return frame


@functools.lru_cache(maxsize=4)
def _blank(width: int, height: int) -> np.ndarray:
    """An empty screen: the title bar over the background (a copy starts each frame)."""
    frame = np.empty((height, width, 3), np.uint8)
    frame[:TITLE_HEIGHT] = _TITLE_BAR
    frame[TITLE_HEIGHT:] = _BACKGROUND
    frame.flags.writeable = False
    return frame


def _paste(frame: np.ndarray, sprite: np.ndarray, x: int, y: int) -> None:
    h, w = sprite.shape[:2]
    frame[y : y + h, x : x + w] = sprite[: frame.shape[0] - y, : frame.shape[1] - x]


def _frozen(image: Any) -> np.ndarray:
    """A Pillow image as a read-only array (the sprite caches share them)."""
    array = np.asarray(image)
    array.flags.writeable = False
    return array


@functools.lru_cache(maxsize=1024)
def _text_sprite(text: str, size: int, room: int, background: tuple[int, int, int]) -> np.ndarray:
    """``text`` in white on ``background``, cut to ``room`` pixels, cropped to its ink."""
    from PIL import Image, ImageDraw

    font = _font(size)
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    text = _fit(probe, text, font, room)
    left, top, right, bottom = probe.textbbox((0, 0), text, font=font)
    box = (max(round(right - left), 1), max(round(bottom - top), 1))
    image = Image.new("RGB", box, background)
    ImageDraw.Draw(image).text((-left, -top), text, font=font, fill=_WHITE)
    return _frozen(image)


@functools.lru_cache(maxsize=4)
def _back_sprite(w: int, h: int) -> np.ndarray:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (w, h), _TITLE_BAR)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=6, fill=_BACK_BUTTON)
    _centred_text(draw, (w // 2, h // 2), "< Back", _font(12))
    return _frozen(image)


@functools.lru_cache(maxsize=512)
def _icon_sprite(name: str, w: int, h: int) -> np.ndarray:
    """An icon tile: a rounded tile, the coloured glyph with the initial, the label."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (w, h), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=8, fill=_TILE, outline=_TILE_EDGE)
    side = max(min(w, h - _LABEL_HEIGHT) - 16, 4)
    gx, gy = (w - side) // 2, 8
    glyph = (gx, gy, gx + side - 1, gy + side - 1)
    draw.rounded_rectangle(glyph, radius=side // 5, fill=glyph_colour(name))
    if side >= 24:  # the name's initial on the glyph, as app icons often show
        _centred_text(draw, (gx + side // 2, gy + side // 2), name[0], _font(side // 2))
    small = _font(12)
    label = _fit(draw, name, small, w - 6)
    _centred_text(draw, (w // 2, h - _LABEL_HEIGHT // 2 - 2), label, small, _LABEL)
    return _frozen(image)


def _fit(draw: Any, text: str, font: Any, room: int) -> str:
    """``text``, cut with ``...`` so it is at most ``room`` pixels wide."""
    if draw.textlength(text, font=font) <= room:
        return text
    while text and draw.textlength(text + "...", font=font) > room:
        text = text[:-1]
    return text + "..."


def _centred_text(
    draw: Any, centre: tuple[int, int], text: str, font: Any, fill: tuple[int, int, int] = _WHITE
) -> None:
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    x = centre[0] - (left + right) / 2
    y = centre[1] - (top + bottom) / 2
    draw.text((x, y), text, font=font, fill=fill)

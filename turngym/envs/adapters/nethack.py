"""NetHack (NLE) and MiniHack as text envs: ``turngym/nethack-v0``, ``turngym/minihack.<task>-v0``.

What a language agent sees is what BALROG's NetHack/MiniHack wrapper gives it, written
here from NLE's own arrays: the message line, the map (the terminal's rows without
trailing blanks), the two bottom status lines and the inventory; while NetHack waits on a
prompt, a line after the message names the action that sends each key the prompt offers.
Actions are NetHack's action names from ``nle.nethack.actions`` (``"north"``, ``"far east"``,
``"search"``, ``"pickup"``, ``"esc"``...), one per entry of the native env's action set, in
its order; the legal actions are that whole set. Rewards, termination and the game are the
native env's own.

Seeds: NLE takes two RNG seeds (core and disp) before a reset; both are drawn from the
env's ``np_random``, reseeding is off and the moon phase is derived from the seed
(``fix_moon_phase``), so one seed and one action list replay one game.

Files and processes: NLE runs NetHack in-process from a copy of its library in a memfd
and a private folder under the temp directory, both removed by ``close()``. No ttyrec or
xlogfile is kept (``save_ttyrec_every=0``, ``savedir=None``).

``nle`` and ``minihack`` are imported at construction, never by ``import turngym``.
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import os
import re
import signal
import sys
import threading
import types
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from turngym.core import Invalid, Outcome, TextEnv, match_action
from turngym.envs.adapters.nethack_tasks import MINIHACK_GOALS, MINIHACK_TASKS, minihack_task
from turngym.extras import needs_extra

__all__ = [
    "MiniHackEnv",
    "NetHackEnv",
    "action_name",
    "minihack_goal",
    "prompt_hint",
    "render_text",
]

# NLE's arrays a text observation needs; fewer keys, less copying per step. "misc" says
# whether NetHack waits on a prompt or a --More-- (its message line can show one answered).
_KEYS = ("tty_chars", "inv_letters", "inv_strs", "misc")

_COMPASS = {
    "N": "north",
    "E": "east",
    "S": "south",
    "W": "west",
    "NE": "northeast",
    "SE": "southeast",
    "SW": "southwest",
    "NW": "northwest",
}

# MiniHack's default goal, where a task's class sets no reward manager (its base task is
# NLE's staircase task); the goals of the others are nethack_tasks.MINIHACK_GOALS.
_STAIRS = "Reach the staircase down (>)."

_TASK_IDS = {minihack_task(t): f"MiniHack-{t}" for t in MINIHACK_TASKS}


def action_name(action: Any) -> str:
    """The turngym name of one of ``nle.nethack.actions``' actions.

    Compass moves are spelled out (``north``, ``far southwest`` for the run-until-something
    moves), every other action is its enum member's name in lower case (``search``,
    ``pickup``, ``more``, ``esc``, ``num_5``).
    """
    kind = type(action).__name__
    if kind == "CompassDirection":
        return _COMPASS[action.name]
    if kind == "CompassDirectionLonger":
        return f"far {_COMPASS[action.name]}"
    return str(action.name).lower()


# A prompt's choices end its message: "[a-h or ?*]", "[yn] (n)" (then the default).
_PROMPT = re.compile(r"\[([^\[\]]+)\](?: \(.\))?\s*$")
_MORE = "--More--"
_ENTER, _ESC = "\r", "\x1b"  # the keys of the actions more and esc


def _prompt_keys(choices: str) -> list[str]:
    """The keys in a prompt's brackets, ranges spelled out: ``"- a-c or ?*"`` -> -abc?*."""
    body = choices.replace(" or ", " ")
    keys: list[str] = []
    i = 0
    while i < len(body):
        key = body[i]
        last = body[i + 2] if i + 2 < len(body) else ""
        if key.isalnum() and body[i + 1 : i + 2] == "-" and last.isalnum() and key < last:
            keys += [chr(k) for k in range(ord(key), ord(last) + 1)]
            i += 3
            continue
        if key != " ":
            keys.append(key)
        i += 1
    return list(dict.fromkeys(keys))


def prompt_hint(message: str, names: Mapping[str, Sequence[str]]) -> str | None:
    r"""Which action answers each key a prompt offers; None when the message asks nothing.

    NetHack prompts name keys (``[f or ?*]``), and the agent answers with the action of
    that key (``fire`` sends ``f``): without this line it would have to know NLE's table.

    >>> prompt_hint("What do you want to zap? [fg or ?*]", {"f": ["fire"], "\x1b": ["esc"]})
    'Prompt keys as actions: f = fire; g, ?, * have none; esc cancels.'

    Args:
        message: the message line.
        names: the env's action names by the key each sends (``chr`` of its NLE value).

    """
    match = _PROMPT.search(message)
    keys = _prompt_keys(match.group(1)) if match else []
    answers = [f"{key} = {' or '.join(names[key])}" for key in keys if key in names]
    if message.endswith(_MORE) and _ENTER in names:
        answers.append(f"{_MORE} = {' or '.join(names[_ENTER])}")
    none = [key for key in keys if key not in names]
    if not answers and not none:
        return None
    parts = [f"Prompt keys as actions: {', '.join(answers) or 'none'}"]
    if none:
        parts.append(f"{', '.join(none)} {'has' if len(none) == 1 else 'have'} none")
    if _ESC in names:
        parts.append(f"{' or '.join(names[_ESC])} cancels")
    return "; ".join(parts) + "."


def _trim(rows: list[str]) -> list[str]:
    """Drop the blank rows at the end; the rest keep their place, so does every column.

    Rows and columns stay where the terminal has them, so that a square keeps its
    coordinates from one turn to the next (trimming the top or the indent would shift
    the whole map whenever a new part of the level comes into view).
    """
    last = len(rows)
    while last and not rows[last - 1]:
        last -= 1
    return rows[:last]


def render_text(
    tty_chars: np.ndarray, inv_letters: np.ndarray | None, inv_strs: np.ndarray | None
) -> str:
    """NLE's terminal and inventory arrays as the text a language agent reads.

    >>> import numpy as np
    >>> tty = np.full((24, 80), ord(" "), np.uint8)
    >>> tty[0, :5] = list(b"Hello"); tty[5, 30:33] = list(b"@.>"); tty[23, :5] = list(b"HP:12")
    >>> print(render_text(tty, None, None).replace(" " * 30, "<30 spaces>"))
    Message: Hello
    Map:
    <BLANKLINE>
    <BLANKLINE>
    <BLANKLINE>
    <BLANKLINE>
    <30 spaces>@.>
    Status:
    <BLANKLINE>
    HP:12

    Args:
        tty_chars: the 24x80 terminal (``uint8``): message line, map, two status lines.
        inv_letters: inventory letters (``uint8``, 0 after the last), or None to leave
            the inventory out.
        inv_strs: the inventory's descriptions, one NUL-padded row per letter.

    """
    parts = _screen_lines(tty_chars.tobytes(), tty_chars.shape[1])
    if inv_letters is not None and inv_strs is not None:
        parts = parts + _inventory_lines(*_inventory_bytes(inv_letters, inv_strs))
    return "\n".join(parts)


def minihack_goal(task: str, reward_manager: Any) -> str:
    """The goal of a MiniHack task, from the reward manager its env class built.

    No reward manager: MiniHack's default goal, the staircase down. Otherwise the task's
    line in ``MINIHACK_GOALS``, or, for a task that table lacks, the rewarded events
    themselves as MiniHack names them.
    """
    if reward_manager is None:
        return _STAIRS
    starts = [start for start in MINIHACK_GOALS if task.startswith(start)]
    if starts:
        return MINIHACK_GOALS[max(starts, key=len)]
    events = []
    for event in getattr(reward_manager, "events", ()):
        messages = getattr(event, "messages", None)
        if messages:
            what = f"the message {messages[0]!r}"
        else:
            action, place = getattr(event, "action", None), getattr(event, "loc", None)
            what = f"{getattr(action, 'name', action)} at the {place}".lower()
        events.append(f"{what} ({event.reward:+g})")
    return "Earn the rewards of MiniHack's events: " + ("; ".join(events) or "none") + "."


def _screen_lines(screen: bytes, width: int) -> list[str]:
    """The terminal's bytes as ``render_text``'s message, map and status lines."""
    text = screen.decode("latin-1")
    lines = [text[i : i + width].rstrip() for i in range(0, len(text), width)]
    message = lines[0].strip() or "(none)"
    return [f"Message: {message}", "Map:", *_trim(lines[1:-2]), "Status:", *_trim(lines[-2:])]


def _inventory_bytes(inv_letters: np.ndarray, inv_strs: np.ndarray) -> tuple[bytes, bytes, int]:
    """The inventory's letters (up to the first NUL), its rows' bytes, and a row's size."""
    letters = inv_letters.tobytes().partition(b"\0")[0]
    return letters, inv_strs[: len(letters)].tobytes(), inv_strs.shape[1]


def _inventory_lines(letters: bytes, rows: bytes, size: int) -> list[str]:
    """``render_text``'s inventory lines: one ``letter: description`` per item."""
    names, text = letters.decode("latin-1"), rows.decode("latin-1")
    items = [
        f"{letter}: {text[k * size : (k + 1) * size].partition(chr(0))[0]}"
        for k, letter in enumerate(names)
    ]
    return ["Inventory:", *(items or ["(empty)"])]


class _TextCache:
    """``render_text`` of one env's observations, reusing what did not change since the last.

    Many turns leave the inventory as it was, and some the whole terminal (a move into a
    wall, a menu key): their lines are kept with the bytes they came from, and rebuilt
    only when those bytes differ. ``tests/envs/adapters/test_nethack.py`` checks the
    cached text equals ``render_text`` over whole games.
    """

    def __init__(self) -> None:
        self._screen = b""
        self._screen_lines: list[str] = []
        self._inventory: tuple[bytes, bytes, int] = (b"", b"", 0)
        self._inventory_lines: list[str] = []

    def text(self, obs: dict[str, np.ndarray], inventory: bool) -> str:
        """What ``render_text`` gives for ``obs`` (with or without the inventory)."""
        tty = obs["tty_chars"]
        screen = tty.tobytes()
        if screen != self._screen:
            self._screen, self._screen_lines = screen, _screen_lines(screen, tty.shape[1])
        if not inventory:
            return "\n".join(self._screen_lines)
        key = _inventory_bytes(obs["inv_letters"], obs["inv_strs"])
        if key != self._inventory or not self._inventory_lines:
            self._inventory, self._inventory_lines = key, _inventory_lines(*key)
        return "\n".join(self._screen_lines + self._inventory_lines)


_STATUS_NAMES: dict[Any, str] = {}


def _status_name(status: Any) -> str:
    """NLE's ``StepStatus`` in lower case (``running``, ``death``, ``task_successful``)."""
    name = _STATUS_NAMES.get(status)
    if name is None:  # an enum's .name is a slow property: look each one up once
        name = _STATUS_NAMES[status] = status.name.lower()
    return name


_PKG_RESOURCES_LOCK = threading.Lock()


def _resource_filename(package: str, resource: str) -> str:
    """``pkg_resources.resource_filename`` for an installed package's folder."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"no installed package {package!r}", name=package)
    return os.path.join(os.path.dirname(spec.origin), resource)


def _import_minihack() -> types.ModuleType:
    """Import ``minihack``, lending it ``pkg_resources`` for its import if setuptools has none.

    minihack 1.0.2 imports ``pkg_resources`` (gone from setuptools 81 on) for one function,
    ``resource_filename``. When no real ``pkg_resources`` can be imported, a module with
    that function alone sits in ``sys.modules`` while ``minihack`` is being imported and
    is removed right after, so no other import ever finds it; minihack's modules keep
    their own reference to it.
    """
    if "minihack" in sys.modules:
        return sys.modules["minihack"]
    with _PKG_RESOURCES_LOCK:
        if "pkg_resources" in sys.modules or importlib.util.find_spec("pkg_resources"):
            return importlib.import_module("minihack")
        lent = types.ModuleType("pkg_resources", "resource_filename only, lent to minihack")
        lent.resource_filename = _resource_filename  # type: ignore[attr-defined]
        sys.modules["pkg_resources"] = lent
        try:
            return importlib.import_module("minihack")
        finally:
            if sys.modules.get("pkg_resources") is lent:
                del sys.modules["pkg_resources"]


class _SignalDispositions:
    """The process-wide signal dispositions NetHack changes, kept and put back.

    When a game ends, NetHack sets SIGHUP and SIGXCPU to "ignore" for the whole process,
    and an ignored signal stays ignored in every child it starts: a later sandboxed
    command would no longer stop at its CPU limit's SIGXCPU (the SWE sandbox relies on
    it), nor at a hangup. The dispositions are read when the env is made (raw
    ``struct sigaction`` bytes, so any handler survives) and written back where NetHack
    ignored them. ``sigaction`` works from any thread, unlike ``signal.signal``.
    """

    SIGNALS = (signal.SIGHUP, signal.SIGXCPU)
    _SIZE = 256  # more than any platform's struct sigaction
    _IGNORE = ctypes.c_void_p(1).value  # SIG_IGN, the struct's first field

    def __init__(self) -> None:
        self._sigaction: Any = getattr(ctypes.CDLL(None, use_errno=True), "sigaction", None)
        self._saved: dict[int, ctypes.Array[ctypes.c_char]] = {}
        for signum in self.SIGNALS:
            buffer = self._read(signum)
            if buffer is not None and not self._ignored(buffer):
                self._saved[signum] = buffer

    def _read(self, signum: int) -> ctypes.Array[ctypes.c_char] | None:
        if self._sigaction is None:
            return None
        buffer = ctypes.create_string_buffer(self._SIZE)
        return buffer if self._sigaction(int(signum), None, buffer) == 0 else None

    def _ignored(self, buffer: ctypes.Array[ctypes.c_char]) -> bool:
        return ctypes.c_void_p.from_buffer(buffer).value == self._IGNORE

    def restore(self) -> None:
        """Put back each kept signal's disposition if it is now "ignore"."""
        for signum, saved in self._saved.items():
            now = self._read(signum)
            if now is not None and self._ignored(now):
                self._sigaction(int(signum), saved, None)


class _NLETextEnv(TextEnv[int]):
    """The text layer shared by NetHack and MiniHack: rendering, action names, seeding."""

    inventory: bool = True

    def __init__(self, native: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._native = native
        self._signals = _SignalDispositions()
        self.action_names: tuple[str, ...] = tuple(action_name(a) for a in native.actions)
        if len(set(self.action_names)) != len(self.action_names):
            raise RuntimeError(f"two of NLE's actions share a name: {self.action_names}")
        self._index = {name: i for i, name in enumerate(self.action_names)}
        self._names_by_key: dict[str, list[str]] = {}  # what prompt_hint names
        for action, name in zip(native.actions, self.action_names, strict=True):
            self._names_by_key.setdefault(chr(int(action)), []).append(name)
        self._legal = list(self.action_names)
        self._text = ""
        self._text_cache = _TextCache()

    def _observe(self, obs: dict[str, np.ndarray]) -> str:
        text = self._text_cache.text(obs, self.inventory)
        misc = obs.get("misc")  # in_yn_function, in_getlin, xwaitingforspace
        if misc is not None and (misc[0] or misc[2]):
            message, _, rest = text.partition("\n")
            hint = prompt_hint(message, self._names_by_key)
            if hint:
                return f"{message}\n{hint}\n{rest}"
        return text

    def _forget_past_games(self) -> None:
        """Empty the score and log files NetHack keeps in NLE's private folder.

        NetHack lists the top-ten scores of that folder when a game ends, so a reused env
        would show the games it played before. Saved games would be restored at the next
        start; NLE turns saving off, and the folder is emptied all the same.
        """
        vardir = getattr(getattr(self._native, "nethack", None), "_vardir", None)
        if vardir is None:
            return
        for name in ("record", "logfile", "xlogfile"):
            path = os.path.join(vardir, name)
            if os.path.isfile(path) and os.path.getsize(path):
                with open(path, "wb"):
                    pass
        save = os.path.join(vardir, "save")
        for entry in os.scandir(save) if os.path.isdir(save) else ():
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)

    def _reset(self, options: dict[str, Any]) -> str:
        self._forget_past_games()
        core, disp = (int(s) for s in self.np_random.integers(0, 2**63 - 1, size=2))
        self._native.seed(core, disp, reseed=False)
        obs, _ = self._native.reset()
        self._signals.restore()  # a reset ends the game under way
        self._text = self._observe(obs)
        actions = ", ".join(self.action_names)
        return f"{self.instruction}\nActions: {actions}.\n\n{self._text}"

    def _parse(self, action: str) -> int | Invalid:
        # the canonical spelling first: it skips normalising on the common path
        index = self._index.get(action)
        if index is None:
            index = match_action(action, self._index)
        if index is None:
            return Invalid("not one of this game's action names (info['legal_actions'])")
        return index

    def _apply(self, action: int) -> Outcome:
        obs, reward, done, truncated, info = self._native.step(action)
        if done or truncated:  # NetHack's end of game ignores two signals
            self._signals.restore()
        self._text = self._observe(obs)
        status = info["end_status"]
        return Outcome(
            obs=self._text,
            reward=float(reward),
            terminated=bool(done) and not truncated,
            truncated=bool(truncated),
            success=self._succeeded(status, info),
            info={"end_status": _status_name(status)},
        )

    def _succeeded(self, status: Any, info: dict[str, Any]) -> bool:
        raise NotImplementedError

    def _legal_actions(self) -> list[str]:
        return list(self._legal)  # a copy: the caller may edit the list it gets

    def _render(self) -> str:
        return self._text

    def close(self) -> None:
        """Close NetHack: its private temp folder and library copy go with it."""
        native, self._native = getattr(self, "_native", None), None
        if native is not None:
            native.close()
            self._signals.restore()
        super().close()


class NetHackEnv(_NLETextEnv):
    """The full game of NetHack 3.6 (NLE's ``NetHackScore`` task) as text.

    NLE's ``NetHackChallenge`` refuses seeds, so this is ``NetHackScore`` set up the
    way the Challenge (and BALROG) play it: a random character (``"@"``, drawn by the
    seeded game), the full keyboard of 121 actions, and menus, prompts and ``--More--``
    left to the agent. The reward is the change of the in-game score (the Challenge's: no
    penalty for steps that do not advance the game's clock); ``success`` is an ascension.

    Args:
        character: NLE's character string, e.g. ``"mon-hum-neu-mal"``, or ``"@"`` (random).
        max_episode_steps: NLE's own step limit (the episode is then truncated).
        **kwargs: ``invalid_action_penalty``, ``max_invalid_actions``, ``render_mode``.

    >>> import gymnasium as gym, turngym
    >>> env = gym.make("turngym/nethack-v0")  # doctest: +SKIP
    >>> obs, info = env.reset(seed=0)  # doctest: +SKIP
    >>> "search" in info["legal_actions"]  # doctest: +SKIP
    True

    """

    instruction = (
        "Play NetHack: descend as deep as you can and gather score; the reward is the "
        "change of the in-game score. Answer menus and prompts with the action of the key "
        "you choose; a waiting prompt's observation names the action of each key it offers."
    )

    def __init__(self, character: str = "@", max_episode_steps: int = 5000, **kwargs: Any):
        if not isinstance(character, str) or not character:
            raise ValueError(f"character must be NLE's character string or '@', got {character!r}")
        if isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int):
            raise ValueError(f"max_episode_steps must be a positive int, got {max_episode_steps!r}")
        if max_episode_steps < 1:
            raise ValueError(f"max_episode_steps must be a positive int, got {max_episode_steps!r}")
        with needs_extra("nethack", "turngym/nethack-v0"):
            from nle import nethack
            from nle.env.tasks import NetHackScore
        native = NetHackScore(
            character=character,
            actions=nethack.ACTIONS,
            allow_all_yn_questions=True,
            allow_all_modes=True,
            penalty_step=0.0,  # the Challenge's reward: the score's change, no time penalty
            max_episode_steps=max_episode_steps,
            observation_keys=_KEYS,
            save_ttyrec_every=0,
            savedir=None,
            fix_moon_phase=True,
        )
        super().__init__(native, **kwargs)

    def _succeeded(self, status: Any, info: dict[str, Any]) -> bool:
        return bool(info.get("is_ascended"))


class MiniHackEnv(_NLETextEnv):
    """One of MiniHack's registered tasks as text (``turngym/minihack.<task>-v0``).

    The task's own action set, reward, step limit and end; ``success`` is MiniHack's
    ``TASK_SUCCESSFUL`` end status, unless a penalised event of the task ended it.

    Args:
        task: the task, MiniHack's id without ``MiniHack-`` and the version
            (``"Room-5x5"``, ``"Sokoban1a"``); see ``nethack_tasks.MINIHACK_TASKS``.
        inventory: show the inventory in each observation.
        **kwargs: ``invalid_action_penalty``, ``max_invalid_actions``, ``render_mode``.

    >>> import gymnasium as gym, turngym
    >>> env = gym.make("turngym/minihack.Room-5x5-v0")  # doctest: +SKIP
    >>> env.reset(seed=0)[1]["legal_actions"][:3]  # doctest: +SKIP
    ['north', 'east', 'south']

    """

    def __init__(self, task: str, inventory: bool = True, **kwargs: Any) -> None:
        if task not in _TASK_IDS:
            raise ValueError(
                f"task must be one of MiniHack's registered tasks (e.g. 'Room-5x5'; "
                f"turngym.envs.adapters.nethack_tasks.MINIHACK_TASKS), got {task!r}"
            )
        with needs_extra("nethack", f"turngym/minihack.{task}-v0"):
            _import_minihack()
            from gymnasium.envs.registration import load_env_creator, registry
        spec = registry[_TASK_IDS[task]]
        # minihack registers "module:Class" strings
        creator: Any = spec.entry_point
        if isinstance(creator, str):
            creator = load_env_creator(creator)
        native = creator(
            **spec.kwargs,
            observation_keys=_KEYS,
            save_ttyrec_every=0,
            savedir=None,
            fix_moon_phase=True,
        )
        self.task = task
        self.inventory = bool(inventory)
        goal = minihack_goal(task, getattr(native, "reward_manager", None))
        self.instruction = f"MiniHack task {task}: {goal}"
        super().__init__(native, **kwargs)

    def _succeeded(self, status: Any, info: dict[str, Any]) -> bool:
        if status != status.TASK_SUCCESSFUL:
            return False
        # MiniHack says TASK_SUCCESSFUL whenever its reward manager's ending events
        # happened, a penalty among them (Memento's squeaky board, -1): that is no success.
        events = getattr(getattr(self._native, "reward_manager", None), "events", ())
        return not any(event.achieved and event.reward < 0 for event in events)

"""``TextEnv``: the base class of turngym's single-agent text envs.

It owns what every text env must get right the same way (ARCHITECTURE.md section 3):
seeding through ``self.np_random``, the invalid-action path (message, penalty,
truncation after ``max_invalid_actions`` in a row), and the standard info keys
(``turn``, ``invalid_action``, ``success``, ``legal_actions``, ``state_key``,
``instruction``). A subclass writes only the game: ``_reset``, ``_parse``,
``_apply``, ``_legal_actions`` and ``_render``. The small action helpers every
parser shares live here too (``normalize_action``, ``read_int``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import gymnasium as gym
from gymnasium.error import ResetNeeded

from turngym.spaces import Unicode

__all__ = [
    "MAX_INT_DIGITS",
    "Invalid",
    "Outcome",
    "TextEnv",
    "match_action",
    "normalize_action",
    "preview",
    "read_int",
]

A = TypeVar("A")

_WHITESPACE = re.compile(r"\s+")


def normalize_action(text: str) -> str:
    r"""Lower-case ``text``, strip it and collapse inner runs of whitespace to one space.

    >>> normalize_action("  Move   LEFT\n")
    'move left'
    """
    return _WHITESPACE.sub(" ", text.strip()).lower()


def match_action(text: str, choices: Mapping[str, A]) -> A | None:
    """Look ``text`` up in ``choices`` (keys in normalized form) leniently; None if absent.

    >>> match_action(" UP ", {"up": 3, "down": 1})
    3
    """
    return choices.get(normalize_action(text))


MAX_INT_DIGITS = 18
"""Digits ``read_int`` reads by default: any count, id or coordinate an action names."""


def read_int(text: str, max_digits: int = MAX_INT_DIGITS) -> int | None:
    """``text`` (a sign, then decimal digits) as an int; None if it is not one or too long.

    Parsers call it on the digits their pattern matched instead of ``int()``, which
    raises on over 4,300 digits and on ``"²"`` (``isdigit()`` but not a decimal digit):
    an action never raises (ARCHITECTURE.md section 3), so a number too long to be any
    column, count or id is simply no number.

    >>> read_int("42"), read_int(" -7 "), read_int("9" * 5000), read_int("\u00b2"), read_int("4a")
    (42, -7, None, None, None)
    """
    body = text.strip()
    digits = body[1:] if body[:1] in ("-", "+") else body
    if not digits.isdecimal() or len(digits) > max_digits:
        return None
    return int(body)


def preview(value: Any, limit: int = 60) -> str:
    """A short printable rendering of an action for error messages."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 5]}...{text[-2:]} ({len(text)} chars)"


@dataclass(frozen=True)
class Invalid:
    """Returned by ``TextEnv._parse`` when an action cannot be applied; says why."""

    reason: str


@dataclass
class Outcome:
    """What ``TextEnv._apply`` returns for a valid action."""

    obs: str
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    success: bool = False
    info: dict[str, Any] = field(default_factory=dict)


class TextEnv(gym.Env[str, str], Generic[A]):
    """Base class for text envs: string observations, string actions, one RNG.

    Subclasses implement:
        ``_reset(options) -> str``: start an episode using ``self.np_random``, return the
        first observation (it states the task).
        ``_parse(action) -> A | Invalid``: turn a string into the env's own action.
        ``_apply(action: A) -> Outcome | Invalid``: play a parsed action (``Invalid`` when
        it turns out, only while playing it, that it cannot be applied: e.g. a file it
        names is a link the env will not follow).
        ``_legal_actions() -> list[str] | None``: canonical legal strings (None if the
        action set is not finite).
        ``_render() -> str``: the current state as text.
    Optionally ``_state_key()``, ``_extra_info()``, and ``max_turns`` with
    ``_turn_limit_reached()`` for envs that end after a number of turns.

    Args:
        invalid_action_penalty: reward for an action that cannot be applied.
        max_invalid_actions: truncate after this many invalid actions in a row
            (None: never).
        render_mode: ``"ansi"`` (``render()`` returns text), ``"human"`` (prints) or None.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/FrozenLake-v0")
        >>> obs, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step("fly")
        >>> info["invalid_action"]
        True

    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012
    instruction: str = ""
    """The task statement; also part of the first observation."""
    max_turns: int | None = None
    """Truncate after this many turns, invalid ones included (None: no limit of the env's own;
    ``gym.make`` may still add a TimeLimit)."""
    max_obs_length: ClassVar[int] = 65_536
    max_action_length: ClassVar[int] = 100_000

    def __init__(
        self,
        *,
        invalid_action_penalty: float = 0.0,
        max_invalid_actions: int | None = 10,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported; use one of "
                f"{self.metadata['render_modes']} or None"
            )
        if max_invalid_actions is not None and max_invalid_actions < 1:
            raise ValueError(
                f"max_invalid_actions must be a positive int or None, got {max_invalid_actions!r}"
            )
        if (
            isinstance(invalid_action_penalty, bool)
            or not isinstance(invalid_action_penalty, (int, float))
            or not invalid_action_penalty <= 0
        ):
            # It is the invalid action's reward: a positive value would pay for mistakes.
            raise ValueError(
                "invalid_action_penalty is the reward of an invalid action, a number <= 0 "
                f"(e.g. -0.1), got {invalid_action_penalty!r}"
            )
        self.invalid_action_penalty = float(invalid_action_penalty)
        self.max_invalid_actions = max_invalid_actions
        self.render_mode = render_mode
        self.observation_space = Unicode(self.max_obs_length)
        self.action_space = Unicode(self.max_action_length)
        self._started = False
        self._done = False
        self._terminated = False
        self._turn = 0
        self._invalid_streak = 0
        self._success = False

    # -- the game, written by subclasses -------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        raise NotImplementedError

    def _parse(self, action: str) -> A | Invalid:
        raise NotImplementedError

    def _apply(self, action: A) -> Outcome | Invalid:
        raise NotImplementedError

    def _legal_actions(self) -> list[str] | None:
        return None

    def _render(self) -> str:
        raise NotImplementedError

    def _state_key(self) -> str | None:
        return None

    def _extra_info(self) -> dict[str, Any]:
        return {}

    def _turns_left_text(self, n: int) -> str:
        """How an invalid action's message counts the turns left under ``max_turns``."""
        return f"{n} turn{'s' if n != 1 else ''} left"

    def _turn_limit_reached(self) -> tuple[str, dict[str, Any]]:
        """The closing message (and extra info) when ``max_turns`` runs out."""
        return f"Out of turns ({self.max_turns}); the episode ends.", {}

    # -- the Gymnasium API ---------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start a new episode; the same seed gives the same episode."""
        super().reset(seed=seed)
        self._started = True
        self._done = False
        self._terminated = False
        self._turn = 0
        self._invalid_streak = 0
        self._success = False
        obs = self._reset(dict(options) if options else {})
        info = self._info(invalid=False)
        if self.instruction:
            info["instruction"] = self.instruction
        if self.render_mode == "human":  # _maybe_print, without the call on every reset
            print(self._render())
        return obs, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Apply one action. A bad action never raises: it comes back as ``invalid_action``."""
        if not self._started:
            raise ResetNeeded("Call reset() before step().")
        if self._done:
            info = self._info(invalid=True)
            info["invalid_reason"] = "episode is over"
            obs = "The episode is over; call reset() to start a new one."
            return obs, 0.0, self._terminated, not self._terminated, info

        parsed: A | Invalid
        if not isinstance(action, str):
            parsed = Invalid(f"actions are strings, got {type(action).__name__}")
        elif len(action) > self.max_action_length:
            parsed = Invalid(f"the action is longer than {self.max_action_length} characters")
        else:
            parsed = self._parse(action)
        self._turn += 1

        outcome = parsed if isinstance(parsed, Invalid) else self._apply(parsed)
        if isinstance(outcome, Invalid):
            result = self._invalid_step(action, outcome.reason)
        else:
            self._invalid_streak = 0
            self._success = self._success or outcome.success
            self._done = outcome.terminated or outcome.truncated
            self._terminated = outcome.terminated
            info = self._info(invalid=False)
            if outcome.info:
                info.update(outcome.info)
            reward = float(outcome.reward)
            result = (outcome.obs, reward, outcome.terminated, outcome.truncated, info)
        if not self._done and self.max_turns is not None and self._turn >= self.max_turns:
            result = self._end_of_turns(*result)
        if self.render_mode == "human":  # _maybe_print, without the call on every step
            print(self._render())
        return result

    def _end_of_turns(
        self, obs: str, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> tuple[str, float, bool, bool, dict[str, Any]]:
        # The limit counts invalid turns too, so it applies after either path of step().
        self._done = True
        message, extra = self._turn_limit_reached()
        info.update(extra)
        if "legal_actions" in info:
            info["legal_actions"] = []
        return f"{obs}\n{message}", reward, False, True, info

    def render(self) -> str | None:
        """The current state as text (``ansi``), printed (``human``), or None."""
        if self.render_mode is None:
            gym.logger.warn("render() called with render_mode=None; pass render_mode='ansi'.")
            return None
        if not self._started:
            return "(call reset() first)"
        text = self._render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # -- shared plumbing -------------------------------------------------------------

    def _invalid_step(self, action: Any, reason: str) -> tuple[str, float, bool, bool, dict]:
        self._invalid_streak += 1
        limit = self.max_invalid_actions
        truncated = limit is not None and self._invalid_streak >= limit
        self._done = truncated
        legal = self._legal_actions()
        hint = f" Legal actions: {', '.join(legal)}." if legal and len(legal) <= 20 else ""
        obs = f"Invalid action {preview(action)}: {reason}.{hint}"
        if truncated:
            obs += f" Too many invalid actions in a row ({limit}); the episode ends."
        elif self.max_turns is not None and self._turn < self.max_turns:
            obs += f" ({self._turns_left_text(self.max_turns - self._turn)})"
        info = self._info(invalid=True)
        info["invalid_reason"] = reason
        return obs, self.invalid_action_penalty, False, truncated, info

    def _info(self, *, invalid: bool) -> dict[str, Any]:
        info: dict[str, Any] = {
            "turn": self._turn,
            "invalid_action": invalid,
            "success": self._success,
        }
        legal = self._legal_actions()
        if legal is not None:
            info["legal_actions"] = [] if self._done else legal
        key = self._state_key()
        if key is not None:
            info["state_key"] = key
        extra = self._extra_info()
        if extra:
            info.update(extra)
        return info

    def _maybe_print(self) -> None:
        if self.render_mode == "human":
            print(self._render())

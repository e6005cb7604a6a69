r"""``ParseAction``: the action out of free LLM text (``<answer>...</answer>``, ``\boxed{}``).

An LLM's reply usually holds reasoning around the action. The wrapper extracts the
action with a tag, ``\boxed{...}`` or a regex, and sends only that to the env. A reply
without one is a format error: ``info["format_error"] = True``, ``format_penalty`` is
taken from the reward, and the env receives the text marked as unparsed, so it goes
down the env's own invalid-action path (penalty, retries, truncation) and nothing raises.

The logic is the plain ``ActionParser``. Its tag and ``\boxed{}`` searches (and
``TagFinder``, which ``InternalState`` uses for its ``<state>``) take time linear in
the reply, so a collapsed policy repeating ``<answer>`` or ``\boxed{`` with nothing
closed cannot stall a rollout. A ``pattern=`` regex is the caller's: it is only as fast
as the regex is.

``ParseAction`` goes under the context wrappers and ``MemoryTools`` (they read the
whole reply: summaries, states, tool calls), and not with ``MarkovianChunks``,
which finds the answer itself (``turngym.wrappers.stack_order``).
"""

from __future__ import annotations

import re
from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs
from pettingzoo.utils.wrappers import BaseWrapper

from turngym.wrappers.stack_order import check_order

__all__ = ["ActionParser", "ParseAction", "ParseActionGame", "TagFinder"]

UNPARSED = "[no action found] "
"""Put before a reply with no action in it, so no env mistakes it for an action."""


class ActionParser:
    r"""Finds the action in a reply: the last ``<tag>...</tag>``, ``\boxed{}`` or a regex match.

    Args:
        tag: the tag holding the action (case-insensitive); the last complete one wins.
        pattern: a regex with one group holding the action (instead of ``tag``).
        boxed: take the last ``\boxed{...}`` (braces may nest) instead.

    Example:
        >>> ActionParser().parse("I think <answer>left</answer> is best... <answer> up </answer>")
        'up'
        >>> ActionParser(boxed=True).parse(r"so \boxed{\frac{1}{2}}.")
        '\\frac{1}{2}'

    """

    def __init__(
        self, tag: str | None = "answer", pattern: str | None = None, boxed: bool = False
    ) -> None:
        if pattern is not None and boxed:
            raise ValueError("give pattern= or boxed=True, not both")
        if pattern is not None:
            try:
                self._regex = re.compile(pattern, re.S)
            except re.error as error:
                raise ValueError(f"pattern is not a valid regex: {error}") from None
            if self._regex.groups != 1:
                raise ValueError(f"pattern must have exactly one group, got {self._regex.groups}")
            self.kind = "pattern"
        elif boxed:
            self.kind = "boxed"
        else:
            if not isinstance(tag, str) or not re.fullmatch(r"[A-Za-z][\w-]*", tag):
                raise ValueError(f"tag must be a word such as 'answer', got {tag!r}")
            self._tags = TagFinder(tag)
            self.kind = "tag"
        self.tag = tag

    def parse(self, text: str) -> str | None:
        """The action in ``text``, stripped; None when there is none."""
        if self.kind == "boxed":
            return _last_boxed(text)
        if self.kind == "tag":
            blocks, _ = self._tags.blocks(text)
            return text[blocks[-1][1] : blocks[-1][2]].strip() if blocks else None
        found = self._regex.findall(text)
        return found[-1].strip() if found else None


class TagFinder:
    """The ``<tag>...</tag>`` blocks of a text (case-insensitive), found in linear time.

    Blocks pair as the lazy regex ``<tag>(.*?)</tag>`` pairs them: from the leftmost
    opening tag to the first closing tag after it, then on from there. Unlike the
    regex, which re-scans the rest of the text from every unclosed opening tag
    (quadratic in a reply of repeated ``<tag>``), the scan stops at the first opening
    tag that nothing closes: no later one can be closed either.

    Example:
        >>> text = "<state>a</state> go <STATE>b"
        >>> TagFinder("state").blocks(text)
        ([(0, 7, 8, 16)], (20, 27))

    """

    def __init__(self, tag: str) -> None:
        self.open = re.compile(re.escape(f"<{tag}>"), re.I)
        self.close = re.compile(re.escape(f"</{tag}>"), re.I)

    def blocks(self, text: str) -> tuple[list[tuple[int, int, int, int]], tuple[int, int] | None]:
        """The complete blocks and an opening tag left unclosed after them.

        Returns:
            The blocks as (start, inner start, inner end, end), left to right, and the
            (start, inner start) of the unclosed opening tag, or None.

        """
        found: list[tuple[int, int, int, int]] = []
        at = 0
        while True:
            opened = self.open.search(text, at)
            if opened is None:
                return found, None
            closed = self.close.search(text, opened.end())
            if closed is None:
                return found, (opened.start(), opened.end())
            found.append((opened.start(), opened.end(), closed.start(), closed.end()))
            at = closed.end()


_BOXED = "\\boxed{"
_BRACE = re.compile(r"[{}]")


def _last_boxed(text: str) -> str | None:
    r"""The content of the last ``\boxed{...}`` whose braces balance, or None.

    One pass pairs every brace (a stack), so a reply of thousands of unclosed
    ``\boxed{`` costs no more than reading it once.
    """
    first = text.find(_BOXED)
    if first == -1:
        return None
    closing: dict[int, int] = {}
    stack: list[int] = []
    for brace in _BRACE.finditer(text, first):
        if brace.group() == "{":
            stack.append(brace.start())
        elif stack:
            closing[stack.pop()] = brace.start()
    best = None
    at = first
    while at != -1:  # the last box that closes wins; an unclosed later one is skipped
        opening = at + len(_BOXED) - 1
        if opening in closing:
            best = text[opening + 1 : closing[opening]].strip()
        at = text.find(_BOXED, at + len(_BOXED))
    return best


class ParseAction(gym.Wrapper[str, str, str, str], RecordConstructorArgs):
    r"""Send the env only the action inside an LLM's reply.

    Args:
        env: a text env.
        tag: the tag around the action (default ``answer``: ``<answer>left</answer>``).
        pattern: a regex with one group, instead of ``tag``.
        boxed: take ``\boxed{...}`` instead of ``tag``.
        format_penalty: taken from the reward of a step whose reply had no action.

    ``info["format_error"]`` says whether the reply lacked an action. Non-string actions
    go to the env unchanged (its invalid-action path handles them).

    Example:
        >>> import turngym
        >>> env = ParseAction(turngym.make("turngym/FrozenLake-v0"), format_penalty=0.1)
        >>> _ = env.reset(seed=0)
        >>> _, reward, _, _, info = env.step("The hole is right, so <answer>down</answer>")
        >>> info["format_error"], info["invalid_action"]
        (False, False)
        >>> _, reward, _, _, info = env.step("down")  # no tags
        >>> info["format_error"], info["invalid_action"], reward
        (True, True, -0.1)

    """

    def __init__(
        self,
        env: gym.Env[str, str],
        tag: str = "answer",
        pattern: str | None = None,
        boxed: bool = False,
        format_penalty: float = 0.0,
    ) -> None:
        RecordConstructorArgs.__init__(
            self, tag=tag, pattern=pattern, boxed=boxed, format_penalty=format_penalty
        )
        check_order("ParseAction", env)
        gym.Wrapper.__init__(self, env)
        if not isinstance(format_penalty, (int, float)) or format_penalty < 0:
            raise ValueError(f"format_penalty must be a number >= 0, got {format_penalty!r}")
        self.parser = ActionParser(tag, pattern, boxed)
        self.format_penalty = float(format_penalty)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Reset the env (nothing of the wrapper's carries over)."""
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, {**info, "format_error": False}

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Send the extracted action, or the marked reply when there is none."""
        if not isinstance(action, str):
            obs, reward, terminated, truncated, info = self.env.step(action)
            return obs, reward, terminated, truncated, {**info, "format_error": True}
        parsed = self.parser.parse(action)
        error = parsed is None
        sent = f"{UNPARSED}{action}" if parsed is None else parsed
        obs, reward, terminated, truncated, info = self.env.step(sent)
        if error:
            reward = float(reward) - self.format_penalty
        return obs, reward, terminated, truncated, {**info, "format_error": error}


class ParseActionGame(BaseWrapper[str, Any, str]):
    """``ParseAction`` for a PettingZoo game: each player's reply is parsed the same way.

    A reply without an action reaches the game marked as unparsed, so the game's own
    invalid-action policy applies (its penalty keeps the game zero-sum);
    ``infos[agent]["format_error"]`` tells the acting player what happened.
    """

    def __init__(
        self, env: Any, tag: str = "answer", pattern: str | None = None, boxed: bool = False
    ) -> None:
        super().__init__(env)
        self.parser = ActionParser(tag, pattern, boxed)

    def step(self, action: Any) -> None:
        """Parse ``action`` for the player to move, then play it."""
        agent = self.agent_selection
        done = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        if done or not isinstance(action, str):
            super().step(action)
            if not done and agent in self.infos:
                self.infos[agent]["format_error"] = True
            return
        parsed = self.parser.parse(action)
        super().step(f"{UNPARSED}{action}" if parsed is None else parsed)
        if agent in self.infos:
            self.infos[agent]["format_error"] = parsed is None

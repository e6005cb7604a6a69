"""Spaces for text envs: ``Unicode`` strings, ``GameAction``, ``Chat`` lists, ``Message``.

Gymnasium's ``Text`` space rejects any character outside its charset (by default
letters and digits, so not even a space). Text envs need any string, so
``Unicode.contains`` checks only the type and the length.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any, Literal, TypedDict

import numpy as np
from gymnasium import spaces

__all__ = ["ROLES", "Chat", "GameAction", "Message", "Role", "Unicode"]

Role = Literal["system", "user", "assistant", "tool"]
ROLES: frozenset[str] = frozenset({"system", "user", "assistant", "tool"})

# What `sample()` draws from: printable ASCII plus a few letters and symbols from
# other scripts, so sampled actions exercise non-ASCII paths too.
_SAMPLE_CHARSET = string.printable + "éüßçñøåœжщλπ中文字日本語한국어🙂€£→…"
_SAMPLE_MAX_LENGTH = 64


class Message(TypedDict):
    """One chat message, as in OpenAI/HF chat templates."""

    role: Role
    content: str


class Unicode(spaces.Text):
    """Any Python string of ``min_length..max_length`` characters.

    Example:
        >>> from turngym.spaces import Unicode
        >>> space = Unicode(max_length=100)
        >>> space.contains("Guess: crane!")
        True
        >>> space.contains(3)
        False

    """

    def __init__(
        self,
        max_length: int,
        *,
        min_length: int = 0,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(
            max_length=max_length, min_length=min_length, charset=_SAMPLE_CHARSET, seed=seed
        )

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a ``str`` of an allowed length (any characters)."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A random string of up to 64 characters (longer ones say nothing new)."""
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        upper = min(self.max_length, max(self.min_length, _SAMPLE_MAX_LENGTH))
        length = int(self.np_random.integers(self.min_length, upper + 1))
        chars = self.np_random.choice(np.array(self.character_list), size=length)
        return "".join(chars.tolist())

    def __repr__(self) -> str:
        return f"Unicode({self.min_length}, {self.max_length})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Unicode)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )

    def __hash__(self) -> int:
        return hash(("Unicode", self.min_length, self.max_length))


class GameAction(Unicode):
    """String actions of a game with a fixed universe of action names.

    Any string is in the space (a bad one takes the game's invalid-action path);
    ``sample(mask)`` draws a name whose entry in the 0/1 ``mask`` (the observation's
    ``action_mask``, aligned with ``names``) is 1, which is how PettingZoo's tests
    and most RL code pick legal actions.

    Example:
        >>> import numpy as np
        >>> space = GameAction(["rock", "paper", "scissors"], seed=0)
        >>> space.sample(np.array([0, 1, 0], dtype=np.int8))
        'paper'
        >>> space.contains("anything at all")
        True

    """

    def __init__(
        self,
        names: Sequence[str],
        max_length: int = 10_000,
        *,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        if not names or len(set(names)) != len(names):
            raise ValueError(f"GameAction needs distinct action names, got {list(names)!r}")
        super().__init__(max_length, seed=seed)
        self.names: tuple[str, ...] = tuple(names)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A uniformly random name, among those ``mask`` allows when given."""
        if probability is not None:
            weights = np.asarray(probability, dtype=np.float64)
            return self.names[int(self.np_random.choice(len(self.names), p=weights))]
        if mask is None:
            return self.names[int(self.np_random.integers(len(self.names)))]
        allowed = np.flatnonzero(np.asarray(mask))
        if allowed.size == 0:  # nothing legal (the game is over): any name will do
            return self.names[0]
        return self.names[int(allowed[self.np_random.integers(allowed.size)])]

    def __repr__(self) -> str:
        return f"GameAction({len(self.names)} names)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameAction) and self.names == other.names

    def __hash__(self) -> int:
        return hash(("GameAction", self.names))


class Chat(spaces.Space[list[Message]]):
    """A conversation: a list of ``{"role", "content"}`` messages.

    Example:
        >>> from turngym.spaces import Chat
        >>> Chat().contains([{"role": "user", "content": "hi"}])
        True
        >>> Chat().contains([{"role": "robot", "content": "hi"}])
        False

    """

    def __init__(
        self,
        max_messages: int = 10_000,
        max_length: int = 1_000_000,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        if max_messages < 0 or max_length < 0:
            raise ValueError(
                f"Chat needs max_messages >= 0 and max_length >= 0, got {max_messages}, "
                f"{max_length}"
            )
        self.max_messages = int(max_messages)
        self.max_length = int(max_length)
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Conversations have no fixed-size array form."""
        return False

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a list of well-formed messages within the limits."""
        if not isinstance(x, Sequence) or isinstance(x, str) or len(x) > self.max_messages:
            return False
        return all(
            isinstance(m, dict)
            and m.get("role") in ROLES
            and isinstance(m.get("content"), str)
            and len(m["content"]) <= self.max_length
            for m in x
        )

    def sample(self, mask: Any = None, probability: Any = None) -> list[Message]:
        """A random short conversation that alternates user and assistant."""
        n = int(self.np_random.integers(0, min(self.max_messages, 4) + 1))
        text = Unicode(min(self.max_length, _SAMPLE_MAX_LENGTH), seed=self.np_random)
        roles: tuple[Role, Role] = ("user", "assistant")
        return [Message(role=roles[i % 2], content=text.sample()) for i in range(n)]

    def __repr__(self) -> str:
        return f"Chat(max_messages={self.max_messages}, max_length={self.max_length})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Chat)
            and self.max_messages == other.max_messages
            and self.max_length == other.max_length
        )

    def __hash__(self) -> int:
        return hash(("Chat", self.max_messages, self.max_length))

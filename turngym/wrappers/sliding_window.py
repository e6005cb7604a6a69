"""``SlidingWindow`` (DeepMiner): old env outputs give way to a placeholder; the agent's turns stay.

Over a chat conversation (a ``ChatHistory``), only the latest ``keep_last`` env outputs
(user messages after the task) are shown in full; older ones are replaced by
``placeholder``. The system message, the task and every assistant message (the agent's
own reasoning and actions) are kept, so the agent still knows what it did, while the
bulky tool/env outputs stop piling up. When an output is replaced, the context changes
shape: ``info["context_event"] = "evict"`` and ``info["segment"]`` + 1.

``SlidingWindow(env)`` on a string env puts a ``ChatHistory`` under itself (pass
``system=``/``max_turns=`` for it); on a ``ChatHistory`` it works on that one. It goes
outermost, over ``ParseAction``, ``MemoryTools`` or ``UnaryFeedback`` if any
(``turngym.wrappers.stack_order``).
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

from turngym.spaces import Chat, Message
from turngym.wrappers.chat_history import ChatHistory, ChatHistoryGame
from turngym.wrappers.stack_order import check_order

__all__ = ["SlidingWindow", "SlidingWindowGame", "window"]

PLACEHOLDER = "[earlier output omitted]"


def window(messages: list[Message], head: int, keep_last: int, placeholder: str) -> list[Message]:
    """``messages`` with old env outputs replaced by ``placeholder``.

    The user messages after the first ``head`` messages, all but the latest
    ``keep_last``, are the old outputs.

    >>> msgs = [{"role": "user", "content": c} for c in ("task", "o1", "o2", "o3")]
    >>> [m["content"] for m in window(msgs, head=1, keep_last=2, placeholder="...")]
    ['task', '...', 'o2', 'o3']
    """
    outputs = [k for k in range(head, len(messages)) if messages[k]["role"] == "user"]
    old = set(outputs[: max(0, len(outputs) - keep_last)])
    return [
        Message(role=m["role"], content=placeholder) if k in old else m
        for k, m in enumerate(messages)
    ]


class SlidingWindow(gym.Wrapper[list[Message], str, list[Message], str], RecordConstructorArgs):
    """Show only the latest ``keep_last`` env outputs in full (DeepMiner's sliding window).

    Args:
        env: a ``ChatHistory`` env, or a string env (a ``ChatHistory`` is put under it).
        keep_last: env outputs after the task shown in full (>= 1).
        placeholder: what replaces an older output.
        system: for the ``ChatHistory`` made for a string env.
        max_turns: for the ``ChatHistory`` made for a string env.

    Example:
        >>> import turngym
        >>> env = SlidingWindow(turngym.make("turngym/FrozenLake-v0"), keep_last=1)
        >>> _ = env.reset(seed=0)
        >>> _ = env.step("right")
        >>> obs, *_, info = env.step("right")
        >>> obs[2]["content"], info["context_event"]
        ('[earlier output omitted]', 'evict')

    """

    def __init__(
        self,
        env: gym.Env[Any, str],
        keep_last: int = 3,
        placeholder: str = PLACEHOLDER,
        system: str | None = None,
        max_turns: int | None = None,
    ) -> None:
        RecordConstructorArgs.__init__(
            self, keep_last=keep_last, placeholder=placeholder, system=system, max_turns=max_turns
        )
        if isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 1:
            raise ValueError(f"keep_last must be an int >= 1, got {keep_last!r}")
        if not isinstance(placeholder, str):
            raise ValueError(f"placeholder must be a string, got {placeholder!r}")
        check_order("SlidingWindow", env)
        chat = _find_chat(env)
        if chat is None:
            if not isinstance(env.observation_space, gym.spaces.Text):
                raise ValueError(
                    "SlidingWindow needs a text env or a ChatHistory, got observations in "
                    f"{env.observation_space}"
                )
            env = chat = ChatHistory(env, system=system, max_turns=max_turns)
        elif system is not None or max_turns is not None:
            raise ValueError("system= and max_turns= belong to the ChatHistory already there")
        gym.Wrapper.__init__(self, env)
        self.observation_space = Chat()
        self.keep_last = keep_last
        self.placeholder = placeholder
        self._chat = chat
        self._hidden = 0
        self.segment = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[list[Message], dict[str, Any]]:
        """Reset; the window starts empty."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._hidden, self.segment = 0, 0
        return self._view(obs), {**info, "context_event": info.get("context_event"), "segment": 0}

    def step(self, action: str) -> tuple[list[Message], SupportsFloat, bool, bool, dict[str, Any]]:
        """Step, then replace the outputs that left the window."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        before = self._hidden
        view = self._view(obs)
        event = info.get("context_event")
        if self._hidden > before or event is not None:
            self.segment += 1
            event = event or "evict"
        return (
            view,
            reward,
            terminated,
            truncated,
            {
                **info,
                "context_event": event,
                "segment": self.segment,
            },
        )

    def _view(self, messages: list[Message]) -> list[Message]:
        head = len(self._chat.log.head)
        shown = window(messages, head, self.keep_last, self.placeholder)
        self._hidden = sum(a is not b for a, b in zip(messages, shown, strict=True))
        return shown


def _find_chat(env: gym.Env[Any, Any]) -> ChatHistory | None:
    """The ``ChatHistory`` in ``env``'s wrapper stack, if any."""
    while isinstance(env, gym.Wrapper):
        if isinstance(env, ChatHistory):
            return env
        env = env.env
    return None


class SlidingWindowGame(ChatHistoryGame):
    """``SlidingWindow`` for a PettingZoo game: each player's conversation is windowed.

    When an output of a player's leaves its window, that player's context changes
    shape: ``infos[agent]["context_event"] = "evict"`` and its ``segment`` + 1 (see
    ``ChatHistoryGame``).

    Args:
        env: a turngym game (see ``ChatHistoryGame``).
        keep_last: outputs after the rules shown in full to each player.
        placeholder: what replaces an older output.
        system: as for ``ChatHistoryGame``.
        max_turns: as for ``ChatHistoryGame``.

    """

    def __init__(
        self,
        env: Any,
        keep_last: int = 3,
        placeholder: str = PLACEHOLDER,
        system: str | None = None,
        max_turns: int | None = None,
    ) -> None:
        if isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 1:
            raise ValueError(f"keep_last must be an int >= 1, got {keep_last!r}")
        if not isinstance(placeholder, str):
            raise ValueError(f"placeholder must be a string, got {placeholder!r}")
        super().__init__(env, system=system, max_turns=max_turns)
        self.keep_last = keep_last
        self.placeholder = placeholder

    def _conversation(self, agent: str) -> dict[str, Any]:
        """The agent's conversation with its older outputs replaced."""
        out = super()._conversation(agent)
        head = len(self._logs[agent].head)
        out["messages"] = window(out["messages"], head, self.keep_last, self.placeholder)
        return out

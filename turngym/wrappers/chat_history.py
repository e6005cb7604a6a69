"""``ChatHistory``: observations become the conversation so far, as chat messages.

The conversation is [system?, user: first observation, assistant: action, user: next
observation, ...] (ARCHITECTURE.md section 5), ready for a tokenizer's chat template.
``max_turns`` keeps only the latest exchanges after the task; dropping older ones is a
context change (``info["context_event"] = "evict"``, ``info["segment"]`` + 1).

The logic is the plain ``ChatLog``; ``ChatHistory`` applies it to a Gymnasium env and
``ChatHistoryGame`` to each player of a PettingZoo game (observations become
``{"messages": [...], "action_mask": ...}``).

``ChatHistory`` builds the context, so it goes outermost: ``ParseAction``,
``MemoryTools`` and ``UnaryFeedback`` go under it, and no other context builder goes
with it but ``SlidingWindow`` over it (``turngym.wrappers.stack_order``).
"""

from __future__ import annotations

from typing import Any, SupportsFloat, cast

import gymnasium as gym
from gymnasium import spaces
from gymnasium.utils import RecordConstructorArgs
from pettingzoo.utils.wrappers import BaseWrapper

from turngym.spaces import Chat, Message
from turngym.wrappers.stack_order import check_order

__all__ = ["ChatHistory", "ChatHistoryGame", "ChatLog"]


class ChatLog:
    """One agent's conversation: a head (system + task) and the exchanges after it.

    Example:
        >>> log = ChatLog(system="Be brief.", max_turns=1)
        >>> _ = log.start("Task: reach the goal.")
        >>> _ = log.add("left", "You moved left.")
        >>> [m["content"] for m in log.add("up", "You moved up.")[0]]
        ['Be brief.', 'Task: reach the goal.', 'up', 'You moved up.']

    """

    def __init__(self, system: str | None = None, max_turns: int | None = None) -> None:
        if system is not None and not isinstance(system, str):
            raise ValueError(f"system must be a string or None, got {system!r}")
        if max_turns is not None and (
            isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1
        ):
            raise ValueError(f"max_turns must be an int >= 1 or None, got {max_turns!r}")
        self.system = system
        self.max_turns = max_turns
        self.head: list[Message] = []
        self.turns: list[Message] = []
        self.segment = 0

    @property
    def messages(self) -> list[Message]:
        """The conversation now (a new list each call)."""
        return [*self.head, *self.turns]

    def start(self, obs: str) -> list[Message]:
        """Begin a new conversation whose task is ``obs``."""
        self.head = [Message(role="system", content=self.system)] if self.system else []
        self.head.append(Message(role="user", content=obs))
        self.turns, self.segment = [], 0
        return self.messages

    def refresh(self, obs: str) -> None:
        """Replace the latest observation (the agent has not acted on it yet)."""
        last = self.turns if self.turns else self.head
        last[-1] = Message(role="user", content=obs)

    def add(self, action: str, obs: str) -> tuple[list[Message], str | None]:
        """Append an exchange; returns the conversation and the context event (or None)."""
        self.turns += [Message(role="assistant", content=action), Message(role="user", content=obs)]
        event = None
        if self.max_turns is not None and len(self.turns) > 2 * self.max_turns:
            self.turns = self.turns[-2 * self.max_turns :]
            self.segment += 1
            event = "evict"
        return self.messages, event


def _text(action: Any) -> str:
    """What the conversation records of an action (non-strings as their repr)."""
    return action if isinstance(action, str) else repr(action)


class ChatHistory(gym.Wrapper[list[Message], str, str, str], RecordConstructorArgs):
    """Observations become ``list[Message]``: the conversation so far.

    Args:
        env: a text env (string observations and actions).
        system: a system message put first; None: none.
        max_turns: keep only the latest ``max_turns`` exchanges (assistant action + user
            observation) after the task; None: keep everything.

    A reused env starts a clean conversation on every reset.

    Example:
        >>> import turngym
        >>> env = ChatHistory(turngym.make("turngym/FrozenLake-v0"), system="Play well.")
        >>> obs, _ = env.reset(seed=0)
        >>> obs, *_ = env.step("down")
        >>> [m["role"] for m in obs]
        ['system', 'user', 'assistant', 'user']

    """

    def __init__(
        self, env: gym.Env[str, str], system: str | None = None, max_turns: int | None = None
    ) -> None:
        RecordConstructorArgs.__init__(self, system=system, max_turns=max_turns)
        check_order("ChatHistory", env)
        gym.Wrapper.__init__(self, env)  # type: ignore[misc]
        self.log = ChatLog(system, max_turns)
        self.observation_space = Chat()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[list[Message], dict[str, Any]]:
        """Reset the env; the conversation restarts from its first observation."""
        obs, info = self.env.reset(seed=seed, options=options)
        messages = self.log.start(cast(str, obs))
        return messages, {**info, "context_event": None, "segment": 0}

    def step(self, action: str) -> tuple[list[Message], SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and append the exchange."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        messages, event = self.log.add(_text(action), cast(str, obs))
        out = {**info, "context_event": event, "segment": self.log.segment}
        return messages, reward, terminated, truncated, out


class ChatHistoryGame(BaseWrapper[str, dict[str, Any], str]):
    """A PettingZoo game whose players each see their own conversation.

    ``observe(agent)`` returns ``{"messages": [...], "action_mask": ...}``: the agent's
    observations as user messages, its own actions as assistant messages. A new user
    message starts the first time the agent observes after it acted (and after reset);
    observing again before acting updates that message to what the agent reads now.

    Args:
        env: a turngym game (``turngym.make_game``) or any AEC env whose observations
            are ``{"text": str, ...}``.
        system: a system message for every player.
        max_turns: keep only each player's latest exchanges (see ``ChatHistory``).

    """

    def __init__(self, env: Any, system: str | None = None, max_turns: int | None = None) -> None:
        super().__init__(env)
        self.system = system
        self.max_turns = max_turns
        ChatLog(system, max_turns)  # checks the arguments now, not at reset
        self._logs: dict[str, ChatLog] = {}
        self._fresh: dict[str, bool] = {}
        self._acted: dict[str, str | None] = {}
        self._spaces: dict[str, spaces.Space[Any]] = {}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """``Dict(messages=Chat, action_mask=...)``, the mask as the game has it."""
        if agent in self._spaces:  # the same object every call (PettingZoo's api_test)
            return self._spaces[agent]
        inner = self.env.observation_space(agent)
        parts: dict[str, spaces.Space[Any]] = {"messages": Chat()}
        if isinstance(inner, spaces.Dict) and "action_mask" in inner.spaces:
            parts["action_mask"] = inner.spaces["action_mask"]
        space = self._spaces[agent] = spaces.Dict(parts)
        return space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the game and every player's conversation."""
        super().reset(seed=seed, options=options)
        self._logs = {a: ChatLog(self.system, self.max_turns) for a in self.possible_agents}
        self._fresh = dict.fromkeys(self.possible_agents, True)
        self._acted = dict.fromkeys(self.possible_agents, None)

    def observe(self, agent: str) -> dict[str, Any]:
        """The agent's conversation (and the game's action mask)."""
        inner = self.env.observe(agent)
        text = inner["text"] if isinstance(inner, dict) else str(inner)
        log = self._logs[agent]
        if self._fresh[agent]:
            log.start(text)
            self._fresh[agent] = False
        elif self._acted[agent] is not None:
            log.add(cast(str, self._acted[agent]), text)
            self._acted[agent] = None
        else:  # observed again before acting: what it reads now supersedes
            log.refresh(text)
        out: dict[str, Any] = {"messages": log.messages}
        if isinstance(inner, dict) and "action_mask" in inner:
            out["action_mask"] = inner["action_mask"]
        return out

    def step(self, action: Any) -> None:
        """Play ``action`` for the agent to move; it joins that agent's conversation."""
        agent = self.agent_selection
        done = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        if not done and agent in self._logs:
            if self._fresh[agent]:  # it acted without observing: its task is still news
                self.observe(agent)
            self._acted[agent] = _text(action)
        super().step(action)

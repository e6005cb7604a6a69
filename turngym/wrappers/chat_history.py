"""``ChatHistory``: observations become the conversation so far, as chat messages.

The conversation is [system?, user: first observation, assistant: action, user: next
observation, ...] (ARCHITECTURE.md section 5), ready for a tokenizer's chat template.
``max_turns`` keeps only the latest exchanges after the task; dropping older ones is a
context change (``info["context_event"] = "evict"``, ``info["segment"]`` + 1).

The logic is the plain ``ChatLog``; ``ChatHistory`` applies it to a Gymnasium env and
``ChatHistoryGame`` to each player of a PettingZoo game (observations become
``{"messages": [...], "action_mask": ...}``, and ``infos[agent]`` carries the player's
own ``context_event`` and ``segment``).

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
from turngym.wrappers.state_key import observation_key

__all__ = ["ChatHistory", "ChatHistoryGame", "ChatLog"]

CONTEXT_KEYS = ("context_event", "segment", "wrapper_turn", "summary_request")
"""What the game twins write into a player's ``infos`` about its own context and turns."""


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

    Each player's context is tracked on its own (ARCHITECTURE.md section 5): when what
    it observes no longer extends what it last acted on (plus its action), because old
    turns were evicted or the context was rebuilt, its ``infos[agent]["segment"]`` goes
    up by one and ``infos[agent]["context_event"]`` says why (``"evict"``; subclasses:
    ``"summary"``) until it acts again. Both are written when the agent observes, with
    a ``state_key`` of the game's own text when the game gives none (GiGPO's anchor).

    Args:
        env: a turngym game (``turngym.make_game``) or any AEC env whose observations
            are ``{"text": str, ...}``.
        system: a system message for every player.
        max_turns: keep only each player's latest exchanges (see ``ChatHistory``).

    Example:
        >>> import turngym
        >>> game = ChatHistoryGame(turngym.make_game("turngym/TicTacToe-v0"), max_turns=1)
        >>> game.reset(seed=0)
        >>> for move in ("a1", "b1", "a2", "b2"):
        ...     game.step(move)
        >>> obs, _, _, _, info = game.last()
        >>> [m["role"] for m in obs["messages"]], info["context_event"], info["segment"]
        (['user', 'assistant', 'user'], 'evict', 1)

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
        self._shown: dict[str, list[Message]] = {}  # the latest view each agent observed
        self._prompt: dict[str, list[Message]] = {}  # the view it acted on + its action
        self._event: dict[str, str | None] = {}  # its context change since it acted
        self._keys: dict[str, str] = {}  # the state keys this wrapper wrote
        self.segments: dict[str, int] = {}
        """Each player's context segment (``infos[agent]["segment"]``)."""

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
        self._shown, self._prompt, self._keys = {}, {}, {}
        self._event = dict.fromkeys(self.possible_agents, None)
        self.segments = dict.fromkeys(self.possible_agents, 0)

    def observe(self, agent: str) -> dict[str, Any]:
        """The agent's conversation (and the game's action mask)."""
        out = self._conversation(agent)
        messages: list[Message] = out["messages"]
        acted_on = self._prompt.get(agent)
        if acted_on is not None and messages[: len(acted_on)] != acted_on:
            self._rebuilt(agent, "evict")
        self._shown[agent] = messages
        self._note(agent, context_event=self._event[agent], segment=self.segments[agent])
        return out

    def _state_key(self, agent: str, text: str) -> None:
        """Key the agent's game state by the game's own text when the game has no key.

        GiGPO anchors turns by it (``StateKey``): the conversation differs between
        episodes that reach the same game state.
        """
        infos = self.unwrapped.infos
        mine = self._keys.get(agent)
        if agent in infos and infos[agent].get("state_key", mine) == mine:  # none of its own
            self._keys[agent] = key = observation_key(text)
            infos[agent] = {**infos[agent], "state_key": key}

    def _conversation(self, agent: str) -> dict[str, Any]:
        """The agent's view before context bookkeeping (subclasses reshape its messages)."""
        inner = self.env.observe(agent)
        text = inner["text"] if isinstance(inner, dict) else str(inner)
        self._state_key(agent, text)
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

    def _rebuilt(self, agent: str, event: str) -> int:
        """Note that ``agent``'s context was cut or rebuilt; returns its segment.

        One segment per change between two of its turns: the first reason given stays.
        """
        if self._event[agent] is None:
            self._event[agent] = event
            self.segments[agent] += 1
        return self.segments[agent]

    def _note(self, agent: str, **info: Any) -> None:
        """Put ``info`` into the game's ``infos[agent]`` (a new dict: games may share one)."""
        infos = self.unwrapped.infos
        if agent in infos:
            infos[agent] = {**infos[agent], **info}

    def _acting(self, agent: str, action: Any) -> None:
        """``agent`` acts on what it last observed: its next view is checked against it."""
        if self._fresh[agent] or self._acted[agent] is not None:
            self.observe(agent)  # it acts without having observed what is new to it
        self._prompt[agent] = [
            *self._shown[agent],
            Message(role="assistant", content=_text(action)),
        ]
        self._event[agent] = None
        infos = self.unwrapped.infos
        if agent in infos:  # what the twins said of the last view is not news for the game
            infos[agent] = {k: v for k, v in infos[agent].items() if k not in CONTEXT_KEYS}

    def step(self, action: Any) -> None:
        """Play ``action`` for the agent to move; it joins that agent's conversation."""
        agent = self.agent_selection
        done = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        if not done and agent in self._logs:
            self._acting(agent, action)
            self._acted[agent] = _text(action)
        super().step(action)

"""``SummarizeContext`` (SUPO): summarise the conversation when it outgrows a token budget.

The wrapper keeps the conversation as chat messages (the task, then the agent's actions
and the env's observations) and hands it to the agent as its observation. When the
conversation passes ``budget_tokens``, the next observation asks for a summary instead;
the agent's next action IS the summary: it is not sent to the env
(``info["wrapper_turn"] = True``), and the conversation restarts as [task, summary +
latest observation] (``info["context_event"] = "summary"``, ``info["segment"]`` + 1).
After ``max_summaries`` summaries, passing the budget again ends the episode as
truncated with ``info["overlong"] = True``. With ``summarizer=callable`` the wrapper
writes the summary itself and the agent never sees the request.

The budget is never exceeded: when even the summary request would not fit, the oldest
turns after the task are left out of it (``context_event = "evict"``); a summary longer
than its room is cut.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, SupportsFloat, cast

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

from turngym.spaces import Chat, Message
from turngym.wrappers.chat_history import ChatHistoryGame, ChatLog
from turngym.wrappers.game_turns import BlankEnv, wrapper_turn

__all__ = ["SummarizeContext", "SummarizeContextGame", "approx_tokens"]

DEFAULT_INSTRUCTION = (
    "Your context is full. Write a summary of everything you need to go on with the task "
    "(what you tried, what you learned, what is left to do). Your next message is the "
    "summary itself, not an action; the conversation then restarts from the task and "
    "your summary."
)
SUMMARY_HEADER = "Summary of your progress so far:"

Counter = Callable[[Sequence[Message]], int]


def approx_tokens(messages: Sequence[Message]) -> int:
    """A tokenizer-free estimate: 4 characters a token, plus 4 tokens a message."""
    return sum(math.ceil(len(m["content"]) / 4) + 4 for m in messages)


class SummarizeContext(gym.Wrapper[list[Message], str, str, str], RecordConstructorArgs):
    """Keep the chat context under ``budget_tokens`` with summaries (SUPO).

    Args:
        env: a text env (string observations and actions).
        budget_tokens: the most tokens the context may hold (by ``count_tokens``).
        count_tokens: messages -> tokens, e.g. ``lambda m: len(tok.apply_chat_template(m))``;
            None: ``approx_tokens``.
        summarizer: ``"self"`` (the agent writes the summary as its next action) or a
            callable ``messages -> summary`` (e.g. another model) called by the wrapper.
        max_summaries: summaries allowed in an episode; passing the budget after that
            truncates it (``info["overlong"] = True``).
        instruction: the summary request (a user message).
        system: an optional system message put first in every context.

    Raises:
        ValueError: a bad argument; at reset, a task that does not fit the budget.

    Example:
        >>> import turngym
        >>> env = SummarizeContext(turngym.make("turngym/FrozenLake-v0"), budget_tokens=400)
        >>> obs, info = env.reset(seed=0)
        >>> [m["role"] for m in obs], info["segment"]
        (['user'], 0)

    """

    def __init__(
        self,
        env: gym.Env[str, str],
        budget_tokens: int,
        count_tokens: Counter | None = None,
        summarizer: str | Callable[[list[Message]], str] = "self",
        max_summaries: int = 3,
        instruction: str = DEFAULT_INSTRUCTION,
        system: str | None = None,
    ) -> None:
        RecordConstructorArgs.__init__(
            self,
            budget_tokens=budget_tokens,
            max_summaries=max_summaries,
            instruction=instruction,
            system=system,
        )
        gym.Wrapper.__init__(self, env)  # type: ignore[misc]
        if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int):
            raise ValueError(f"budget_tokens must be an int >= 32, got {budget_tokens!r}")
        if budget_tokens < 32:
            raise ValueError(f"budget_tokens must be an int >= 32, got {budget_tokens!r}")
        if count_tokens is not None and not callable(count_tokens):
            raise ValueError(
                f"count_tokens must be a callable(messages) -> int, got {count_tokens!r}"
            )
        if summarizer != "self" and not callable(summarizer):
            raise ValueError(f"summarizer must be 'self' or a callable, got {summarizer!r}")
        if isinstance(max_summaries, bool) or not isinstance(max_summaries, int):
            raise ValueError(f"max_summaries must be an int >= 0, got {max_summaries!r}")
        if max_summaries < 0:
            raise ValueError(f"max_summaries must be an int >= 0, got {max_summaries!r}")
        if not isinstance(instruction, str) or not instruction.strip():
            raise ValueError("instruction must be a non-empty string")
        if system is not None and not isinstance(system, str):
            raise ValueError(f"system must be a string or None, got {system!r}")
        self.budget_tokens = budget_tokens
        self.count_tokens: Counter = count_tokens or approx_tokens
        self.summarizer = summarizer
        self.max_summaries = max_summaries
        self.instruction = instruction
        self.system = system
        self.observation_space = Chat()
        self._head: list[Message] = []  # system + task: kept in every context
        self._turns: list[Message] = []  # everything after the head
        self._last_obs = ""
        self._last_info: dict[str, Any] = {}
        self._awaiting = False
        self.summaries = 0
        self.segment = 0

    # -- the env API ---------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[list[Message], dict[str, Any]]:
        """Reset the env; the context is [system?, task]."""
        raw, info = self.env.reset(seed=seed, options=options)
        obs = cast(str, raw)
        self._head = [Message(role="system", content=self.system)] if self.system else []
        self._head.append(Message(role="user", content=obs))
        if self.count_tokens(self._head) > self.budget_tokens:
            raise ValueError(
                f"the task alone takes {self.count_tokens(self._head)} tokens, over "
                f"budget_tokens={self.budget_tokens}; raise the budget"
            )
        self._turns, self._last_obs, self._last_info = [], obs, dict(info)
        self._awaiting, self.summaries, self.segment = False, 0, 0
        return list(self._head), self._info(info, event=None, wrapper_turn=False)

    def step(self, action: str) -> tuple[list[Message], SupportsFloat, bool, bool, dict[str, Any]]:
        """An env action, or (after a summary request) the summary."""
        if self._awaiting and not isinstance(action, str):
            info = self._info(self._last_info, event=None, wrapper_turn=True)
            info.update(
                invalid_action=True,
                invalid_reason=f"a summary is text, got {type(action).__name__}",
                summary_request=True,
            )
            return (
                self._fit([Message(role="user", content=self.instruction)]),
                0.0,
                False,
                False,
                info,
            )
        if self._awaiting:
            summary = action
            self._awaiting = False
            context = self._restart(summary)
            info = self._info(self._last_info, event="summary", wrapper_turn=True)
            return context, 0.0, False, False, info
        raw, reward, terminated, truncated, info = self.env.step(action)
        obs = cast(str, raw)
        self._last_obs, self._last_info = obs, dict(info)
        self._turns += [
            Message(role="assistant", content=action if isinstance(action, str) else str(action)),
            Message(role="user", content=obs),
        ]
        context = self._head + self._turns
        if self.count_tokens(context) <= self.budget_tokens:
            return context, reward, terminated, truncated, self._info(info, None, False)
        if terminated or truncated:  # the episode is over: show what fits of its end
            return self._fit([]), reward, terminated, truncated, self._info(info, "evict", False)
        if self.summaries >= self.max_summaries:
            out = self._info(info, "evict", False)
            out["overlong"] = True
            return self._fit([]), reward, terminated, True, out
        if callable(self.summarizer):
            context = self._restart(self.summarizer(list(context)))
            return context, reward, terminated, truncated, self._info(info, "summary", False)
        self._awaiting = True
        request = [Message(role="user", content=self.instruction)]
        fitted = self._fit(request)
        event = "evict" if len(fitted) < len(context) + 1 else None
        out = self._info(info, event, False)
        out["summary_request"] = True
        return fitted, reward, terminated, truncated, out

    # -- context building -------------------------------------------------------------

    def _restart(self, summary: str) -> list[Message]:
        """The context after a summary: the head, then the summary and the latest obs."""
        self.summaries += 1
        self.segment += 1
        self._turns = [self._summary_message(summary)]
        return self._head + self._turns

    def _summary_message(self, summary: str) -> Message:
        """The summary and the latest observation in one user message, cut to fit."""

        def message(text: str) -> Message:
            body = f"{SUMMARY_HEADER}\n{text}\n\nCurrent observation:\n{self._last_obs}"
            return Message(role="user", content=body)

        if self.count_tokens([*self._head, message(summary)]) <= self.budget_tokens:
            return message(summary)
        low, high = 0, len(summary)  # the longest prefix of the summary that fits
        while low < high:
            mid = (low + high + 1) // 2
            if self.count_tokens([*self._head, message(summary[:mid])]) <= self.budget_tokens:
                low = mid
            else:
                high = mid - 1
        return message(summary[:low])

    def _fit(self, tail: list[Message]) -> list[Message]:
        """The head, as many of the latest turns as fit, then ``tail``, within the budget.

        Turns are dropped from the front in (assistant, user) pairs; the latest
        observation is kept even when nothing else fits, cut to fit as a last resort.
        """
        turns = list(self._turns)
        while turns and self.count_tokens(self._head + turns + tail) > self.budget_tokens:
            turns = turns[2:] if len(turns) > 1 else []
        if not turns and self._turns:
            last = self._turns[-1]
            turns = [last]
            while (
                self.count_tokens(self._head + turns + tail) > self.budget_tokens
                and turns[0]["content"]
            ):
                cut = turns[0]["content"][: len(turns[0]["content"]) * 3 // 4]
                turns = [Message(role=last["role"], content=cut)]
        self._turns = turns
        return self._head + turns + tail

    def _info(self, info: dict[str, Any], event: str | None, wrapper_turn: bool) -> dict[str, Any]:
        out = dict(info)
        out.update(
            context_event=event,
            segment=self.segment,
            wrapper_turn=wrapper_turn,
            summaries=self.summaries,
        )
        if wrapper_turn:
            out["invalid_action"] = False
        return out


class SummarizeContextGame(ChatHistoryGame):
    """``SummarizeContext`` for a PettingZoo game: each player's conversation stays in budget.

    Each player sees ``{"messages": [...], "action_mask": ...}`` (see ``ChatHistoryGame``).
    When a player's conversation passes ``budget_tokens`` on its turn, it is asked for a
    summary (``infos[agent]["summary_request"] = True``); its next action is the summary
    (a wrapper turn: the game waits, ``infos[agent]["wrapper_turn"] = True``) and its
    conversation restarts as [task, summary + latest observation]
    (``context_event = "summary"``, its ``segment`` + 1). Past ``max_summaries`` (a game
    cannot truncate one player) the oldest turns are dropped instead (``"evict"``).
    Arguments as for ``SummarizeContext``.
    """

    def __init__(
        self,
        env: Any,
        budget_tokens: int,
        count_tokens: Counter | None = None,
        max_summaries: int = 3,
        instruction: str = DEFAULT_INSTRUCTION,
        system: str | None = None,
    ) -> None:
        self._core = SummarizeContext(
            BlankEnv(),
            budget_tokens,
            count_tokens=count_tokens,
            max_summaries=max_summaries,
            instruction=instruction,
            system=system,
        )
        super().__init__(env, system=system)
        self._awaiting: dict[str, bool] = {}
        self.summaries: dict[str, int] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the game and every player's conversation."""
        super().reset(seed=seed, options=options)
        self._awaiting = dict.fromkeys(self.possible_agents, False)
        self.summaries = dict.fromkeys(self.possible_agents, 0)

    def _conversation(self, agent: str) -> dict[str, Any]:
        """The player's conversation, within the budget (with a summary request if due)."""
        out = super()._conversation(agent)
        core, log = self._core, self._logs[agent]
        messages = log.messages
        if core.count_tokens(messages) <= core.budget_tokens and not self._awaiting[agent]:
            return out
        to_move = agent == self.agent_selection and not (
            self.terminations.get(agent, False) or self.truncations.get(agent, False)
        )
        ask = to_move and (self._awaiting[agent] or self.summaries[agent] < core.max_summaries)
        tail = [Message(role="user", content=core.instruction)] if ask else []
        self._awaiting[agent] = ask
        self._note(agent, summary_request=ask)
        out["messages"] = self._fit(log, tail)
        return out

    def step(self, action: Any) -> None:
        """A due summary is taken here (the game waits); anything else is a move."""
        agent = self.agent_selection
        if not self._awaiting.get(agent) or not isinstance(action, str):
            super().step(action)
            return
        log, core = self._logs[agent], self._core
        self._acting(agent, action)
        self._awaiting[agent] = False
        self.summaries[agent] += 1
        segment = self._rebuilt(agent, "summary")
        latest = log.messages[-1]["content"]
        # Two messages: the observation stays last, so it can be refreshed on its own.
        log.turns = [
            Message(role="user", content=f"{SUMMARY_HEADER}\n{action}"),
            Message(role="user", content=latest),
        ]
        if core.count_tokens(log.messages) > core.budget_tokens:
            log.turns = self._fit(log, [])[len(log.head) :]
        wrapper_turn(self, agent, context_event="summary", segment=segment)

    def _fit(self, log: ChatLog, tail: list[Message]) -> list[Message]:
        """The head, the latest turns that fit with ``tail``, then ``tail``.

        The oldest turns go first, in pairs; the latest message is kept to the end and
        cut as a last resort.
        """
        core = self._core

        def over(turns: list[Message]) -> bool:
            return core.count_tokens([*log.head, *turns, *tail]) > core.budget_tokens

        turns = list(log.turns)
        while len(turns) > 1 and over(turns):
            turns = turns[2:] if len(turns) > 2 else turns[-1:]
        while turns and over(turns) and turns[-1]["content"]:
            content = turns[-1]["content"]
            turns = [Message(role=turns[-1]["role"], content=content[: len(content) * 3 // 4])]
        log.turns = turns
        return [*log.head, *turns, *tail]

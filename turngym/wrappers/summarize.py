"""``SummarizeContext`` (SUPO): summarise the conversation before it outgrows a token budget.

The wrapper keeps the conversation as chat messages and hands it to the agent as its
observation: the task (after the system message, if any), the latest summary, then the
exchanges since (the agent's actions, the env's observations). The task and the latest
summary are pinned: nothing evicts them, so each summary is written with the previous
one in view, as in SUPO.

A summary is asked for *before* a request would overflow ``budget_tokens``: when the
conversation, one more exchange the size of the latest one and the summary instruction
would not fit together, the next observation is the summary request (the conversation,
then the instruction). The agent's next action IS the summary: it is not sent to the
env (``info["wrapper_turn"] = True``), and the conversation restarts as [task, summary
+ latest observation] (``info["context_event"] = "summary"``, ``info["segment"]`` + 1).
The summary and that observation get at most half of the budget left after the task
and the instruction, the summary at least half of that: a longer summary is cut (its
start kept, ``CUT`` at the end), never dropped. After ``max_summaries`` summaries, a
conversation that no longer fits ends the episode as truncated with
``info["overlong"] = True`` (trainers then mask the whole rollout, as SUPO does). With
``summarizer=callable`` the wrapper writes the summary itself and the agent never sees
the request.

No observation passes the budget. When an exchange turns out larger than forecast, the
request cuts the latest observation (it is shown again after the summary) and, only if
that is not enough, leaves out the oldest exchanges since the summary
(``context_event = "evict"``, ``segment`` + 1).

Count tokens as the policy does: ``chat_token_counter(tokenizer)`` counts with the
tokenizer's chat template, and ``--wrappers summarize:...`` uses the policy's own
tokenizer; the default ``approx_tokens`` (4 characters a token) is only an estimate.
This wrapper builds the context, so it goes outermost (``turngym.wrappers.stack_order``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, SupportsFloat, cast

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

from turngym.spaces import Chat, Message
from turngym.wrappers.chat_history import ChatHistoryGame
from turngym.wrappers.game_turns import BlankEnv, wrapper_turn
from turngym.wrappers.stack_order import check_order

__all__ = [
    "CUT",
    "SummarizeContext",
    "SummarizeContextGame",
    "SummaryBudget",
    "approx_tokens",
    "chat_token_counter",
]

DEFAULT_INSTRUCTION = (
    "Your context is full. Write a summary of everything you need to go on with the task "
    "(what you tried, what you learned, what is left to do). Your next message is the "
    "summary itself, not an action; the conversation then restarts from the task and "
    "your summary."
)
SUMMARY_HEADER = "Summary of your progress so far:"
OBSERVATION_HEADER = "Current observation:"
CUT = " [...]"
"""Ends a text cut to fit the budget."""

Counter = Callable[[Sequence[Message]], int]


def approx_tokens(messages: Sequence[Message]) -> int:
    """A tokenizer-free estimate: 4 characters a token, plus 4 tokens a message."""
    return sum(math.ceil(len(m["content"]) / 4) + 4 for m in messages)


def chat_token_counter(tokenizer: Any, system: str | None = None) -> Counter:
    """A ``count_tokens`` that counts messages as an ``LLMAgent`` prompt of ``tokenizer``.

    The chat template with its generation prompt (a tokenizer without a template: the
    contents joined by blank lines, as ``LLMAgent(chat=False)`` prompts).

    Args:
        tokenizer: a Hugging Face tokenizer (``apply_chat_template`` and ``__call__``).
        system: the agent's system prompt, counted first when the messages have no
            system message (as ``LLMAgent(system_prompt=...)`` adds it).

    """
    if not callable(getattr(tokenizer, "apply_chat_template", None)):
        raise ValueError(f"tokenizer must be a Hugging Face tokenizer, got {tokenizer!r}")
    chat = bool(getattr(tokenizer, "chat_template", None))

    def count(messages: Sequence[Message]) -> int:
        listed = [{"role": m["role"], "content": m["content"]} for m in messages]
        if system is not None and (not listed or listed[0]["role"] != "system"):
            listed.insert(0, {"role": "system", "content": system})
        if not chat:
            return len(tokenizer("\n\n".join(m["content"] for m in listed))["input_ids"])
        ids = tokenizer.apply_chat_template(
            listed, add_generation_prompt=True, tokenize=True, return_dict=False
        )
        return len(ids)

    return count


def longest(text: str, fits: Callable[[str], bool]) -> str:
    """``text`` if it fits, else its longest prefix that fits with ``CUT`` after it, else "".

    >>> longest("abcdefghij", lambda t: len(t) <= 9)
    'abc [...]'
    """
    if fits(text):
        return text
    if not fits(CUT):
        return ""
    low, high = 0, len(text) - 1
    while low < high:
        mid = (low + high + 1) // 2
        if fits(text[:mid] + CUT):
            low = mid
        else:
            high = mid - 1
    return text[:low] + CUT


class SummaryBudget:
    """The budget arithmetic of ``SummarizeContext`` and ``SummarizeContextGame``.

    A conversation is ``head`` (system + task), ``pinned`` (the latest summary) and
    ``turns`` (what came after it); the head is never cut, the summary only as a last
    resort.

    Args:
        budget_tokens: the most tokens a context may hold.
        count_tokens: messages -> tokens.
        instruction: the summary request's text.

    Example:
        >>> budget = SummaryBudget(60, approx_tokens, "Summarise.")
        >>> head = [Message(role="user", content="Walk right.")]
        >>> turns = [Message(role="assistant", content="right")]
        >>> turns.append(Message(role="user", content="x" * 400))
        >>> _, fitted, dropped = budget.fit(head, [], turns, [budget.request], cut_first=True)
        >>> fitted[-1]["content"].endswith(CUT), dropped
        (True, False)

    """

    def __init__(self, budget_tokens: int, count_tokens: Counter, instruction: str) -> None:
        self.budget = budget_tokens
        self.count = count_tokens
        self.request = Message(role="user", content=instruction)

    def fits(self, messages: Sequence[Message]) -> bool:
        """Whether ``messages`` fit the budget."""
        return self.count(messages) <= self.budget

    def due(self, messages: Sequence[Message], latest: Sequence[Message]) -> bool:
        """Whether a summary is due: ``messages``, one more ``latest`` and the request overflow."""
        return not self.fits([*messages, *latest, self.request])

    def fit(
        self,
        head: list[Message],
        pinned: list[Message],
        turns: list[Message],
        tail: list[Message],
        cut_first: bool,
    ) -> tuple[list[Message], list[Message], bool]:
        """``(pinned, turns, dropped)`` cut so that head + pinned + turns + tail fits.

        With ``cut_first`` (a summary request) the latest message is cut before anything
        is dropped; then the oldest turns go, two at a time down to the latest exchange,
        the latest message is cut, and the messages before it go (``dropped``). The
        summary is cut, then dropped, only when nothing else is left.
        """

        def over(p: list[Message], t: list[Message]) -> bool:
            return not self.fits([*head, *p, *t, *tail])

        turns, dropped = list(turns), False
        if cut_first and turns and over(pinned, turns):
            turns[-1] = self.cut([*head, *pinned, *turns[:-1]], turns[-1], tail)
        while len(turns) > 2 and over(pinned, turns):
            turns, dropped = turns[2:], True
        if turns and over(pinned, turns):
            turns[-1] = self.cut([*head, *pinned, *turns[:-1]], turns[-1], tail)
        while len(turns) > 1 and over(pinned, turns):
            turns, dropped = turns[1:], True
        if turns and over(pinned, turns):
            turns[-1] = self.cut([*head, *pinned], turns[-1], tail)
            if over(pinned, turns):
                turns, dropped = [], True
        if pinned and over(pinned, turns):  # a budget too small for anything but the task
            pinned = [*pinned[:-1], self.cut([*head, *pinned[:-1]], pinned[-1], tail)]
            if over(pinned, turns):
                pinned = []
        return pinned, turns, dropped

    def cut(self, before: list[Message], message: Message, after: list[Message]) -> Message:
        """``message`` cut so that ``before + [message] + after`` fits (see ``longest``)."""

        def build(text: str) -> Message:
            return Message(role=message["role"], content=text)

        return build(longest(message["content"], lambda t: self.fits([*before, build(t), *after])))

    def pinned(self, head: list[Message], summary: str, obs: str, split: bool) -> list[Message]:
        """The summary and the observation it was written at, within their room.

        Their room is half of what the head, the request and the block's own headers
        leave; the summary keeps at least half of it, the observation takes what the
        summary leaves, and the summary then takes the rest. ``split``: two user
        messages (the observation last, a game refreshes it), else one.
        """

        def block(s: str, o: str) -> list[Message]:
            if split:
                return [
                    Message(role="user", content=f"{SUMMARY_HEADER}\n{s}"),
                    Message(role="user", content=o),
                ]
            return [
                Message(role="user", content=f"{SUMMARY_HEADER}\n{s}\n\n{OBSERVATION_HEADER}\n{o}")
            ]

        def within(messages: list[Message], cap: int) -> bool:
            return self.count([*head, *messages, self.request]) <= cap

        base = self.count([*head, *block("", ""), self.request])
        room = (base + self.budget) // 2
        if within(block(summary, obs), room):
            return block(summary, obs)
        share = longest(summary, lambda s: within(block(s, ""), (base + room) // 2))
        obs = longest(obs, lambda o: within(block(share, o), room))
        summary = longest(summary, lambda s: within(block(s, obs), room))
        return block(summary, obs)


class SummarizeContext(gym.Wrapper[list[Message], str, str, str], RecordConstructorArgs):
    """Keep the chat context under ``budget_tokens`` with summaries (SUPO).

    Args:
        env: a text env (string observations and actions).
        budget_tokens: the most tokens any context may hold, the summary request
            included (by ``count_tokens``).
        count_tokens: messages -> tokens, e.g. ``chat_token_counter(tokenizer)``;
            None: ``approx_tokens``.
        summarizer: ``"self"`` (the agent writes the summary as its next action) or a
            callable ``messages -> summary`` (e.g. another model) called by the wrapper
            with the request the agent would have seen (the instruction last).
        max_summaries: summaries allowed in an episode; a conversation that no longer
            fits after that truncates it (``info["overlong"] = True``).
        instruction: the summary request (a user message).
        system: an optional system message put first in every context.

    Raises:
        ValueError: a bad argument or wrapper order; at reset, a task that leaves no
            room for the summary request.

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
        check_order("SummarizeContext", env)
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
        self.core = SummaryBudget(budget_tokens, self.count_tokens, instruction)
        self.observation_space = Chat()
        self._head: list[Message] = []  # system + task: kept in every context
        self._pinned: list[Message] = []  # the latest summary: kept in every context
        self._turns: list[Message] = []  # the exchanges since
        self._request: list[Message] = []  # the pending summary request, if any
        self._last_obs = ""
        self._last_info: dict[str, Any] = {}
        self.summaries = 0
        self.segment = 0

    @property
    def _awaiting(self) -> bool:
        """Whether the agent's next action is the summary."""
        return bool(self._request)

    # -- the env API ---------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[list[Message], dict[str, Any]]:
        """Reset the env; the context is [system?, task]."""
        raw, info = self.env.reset(seed=seed, options=options)
        obs = cast(str, raw)
        self._head = [Message(role="system", content=self.system)] if self.system else []
        self._head.append(Message(role="user", content=obs))
        if not self.core.fits(self._head):
            raise ValueError(
                f"the task alone takes {self.count_tokens(self._head)} tokens, over "
                f"budget_tokens={self.budget_tokens}; raise the budget"
            )
        with_request = [*self._head, self.core.request]
        if self.max_summaries and not self.core.fits(with_request):
            raise ValueError(
                f"the task and the summary instruction take {self.count_tokens(with_request)} "
                f"tokens, over budget_tokens={self.budget_tokens}; raise the budget"
            )
        self._pinned, self._turns, self._request = [], [], []
        self._last_obs, self._last_info = obs, dict(info)
        self.summaries, self.segment = 0, 0
        return list(self._head), self._info(info, event=None, wrapper_turn=False)

    def step(self, action: str) -> tuple[list[Message], SupportsFloat, bool, bool, dict[str, Any]]:
        """An env action, or (after a summary request) the summary."""
        if self._request:
            if not isinstance(action, str):
                info = self._info(self._last_info, event=None, wrapper_turn=True)
                info.update(
                    invalid_action=True,
                    invalid_reason=f"a summary is text, got {type(action).__name__}",
                    summary_request=True,
                )
                return list(self._request), 0.0, False, False, info
            self._request = []
            context = self._restart(action)
            info = self._info(self._last_info, event="summary", wrapper_turn=True)
            return context, 0.0, False, False, info
        raw, reward, terminated, truncated, info = self.env.step(action)
        obs = cast(str, raw)
        self._last_obs, self._last_info = obs, dict(info)
        latest = [
            Message(role="assistant", content=action if isinstance(action, str) else str(action)),
            Message(role="user", content=obs),
        ]
        self._turns += latest
        context = self._context()
        if terminated or truncated:  # the episode is over: show what fits of its end
            fitted, event = self._fit([], cut_first=False)
            return fitted, reward, terminated, truncated, self._info(info, event, False)
        if self.summaries >= self.max_summaries:
            if self.core.fits(context):
                return context, reward, terminated, truncated, self._info(info, None, False)
            fitted, event = self._fit([], cut_first=False)
            out = self._info(info, event, False)
            out["overlong"] = True
            return fitted, reward, terminated, True, out
        if not self.core.due(context, latest):
            return context, reward, terminated, truncated, self._info(info, None, False)
        request, event = self._fit([self.core.request], cut_first=True)
        if callable(self.summarizer):
            context = self._restart(self.summarizer(list(request)))
            return context, reward, terminated, truncated, self._info(info, "summary", False)
        self._request = request
        out = self._info(info, event, False)
        out["summary_request"] = True
        return list(request), reward, terminated, truncated, out

    # -- context building -------------------------------------------------------------

    def _context(self) -> list[Message]:
        return [*self._head, *self._pinned, *self._turns]

    def _restart(self, summary: str) -> list[Message]:
        """The context after a summary: the head, then the summary and the latest obs."""
        self.summaries += 1
        self.segment += 1
        self._pinned = self.core.pinned(self._head, summary, self._last_obs, split=False)
        self._turns = []
        return self._context()

    def _fit(self, tail: list[Message], cut_first: bool) -> tuple[list[Message], str | None]:
        """The context cut to fit with ``tail`` after it (see ``SummaryBudget.fit``)."""
        self._pinned, self._turns, dropped = self.core.fit(
            self._head, self._pinned, self._turns, tail, cut_first
        )
        if dropped:
            self.segment += 1
        return [*self._context(), *tail], "evict" if dropped else None

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
    When, on a player's turn, its conversation would leave no room for a summary request
    after another exchange like its latest one, it is asked for a summary
    (``infos[agent]["summary_request"] = True``); its next action is the summary (a
    wrapper turn: the game waits, ``infos[agent]["wrapper_turn"] = True``) and its
    conversation restarts as [task, summary, latest observation]
    (``context_event = "summary"``, its ``segment`` + 1), the summary pinned and cut to
    its room as in ``SummarizeContext``. Past ``max_summaries`` (a game cannot truncate
    one player) the oldest turns after the summary are dropped instead (``"evict"``).
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
        self._pinned: dict[str, int] = {}  # messages of a player's turns that are its summary
        self._latest: dict[str, str] = {}  # what each player reads now, uncut
        self.summaries: dict[str, int] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the game and every player's conversation."""
        super().reset(seed=seed, options=options)
        self._awaiting = dict.fromkeys(self.possible_agents, False)
        self._pinned = dict.fromkeys(self.possible_agents, 0)
        self._latest = {}
        self.summaries = dict.fromkeys(self.possible_agents, 0)

    def _conversation(self, agent: str) -> dict[str, Any]:
        """The player's conversation, within the budget (with a summary request if due)."""
        out = super()._conversation(agent)
        core, budget, log = self._core, self._core.core, self._logs[agent]
        messages = log.messages
        self._latest[agent] = messages[-1]["content"]
        to_move = agent == self.agent_selection and not (
            self.terminations.get(agent, False) or self.truncations.get(agent, False)
        )
        turns = log.turns[self._pinned[agent] :]
        # Its latest exchange; none yet since the start or its last summary, and then
        # there is nothing new to summarise (as in SummarizeContext).
        latest = turns[-2:] if len(turns) >= 2 and turns[-2]["role"] == "assistant" else []
        ask = to_move and (
            self._awaiting[agent]
            or (
                bool(latest)
                and self.summaries[agent] < core.max_summaries
                and budget.due(messages, latest)
            )
        )
        self._awaiting[agent] = ask
        self._note(agent, summary_request=ask)
        if ask:
            out["messages"] = self._fit(agent, [budget.request], cut_first=True)
        elif not budget.fits(messages):
            out["messages"] = self._fit(agent, [], cut_first=False)
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
        # Two messages: the observation stays last, so it can be refreshed on its own.
        latest = self._latest.get(agent, log.messages[-1]["content"])
        log.turns = core.core.pinned(log.head, action, latest, split=True)
        self._pinned[agent] = 1
        wrapper_turn(self, agent, context_event="summary", segment=segment)

    def _fit(self, agent: str, tail: list[Message], cut_first: bool) -> list[Message]:
        """The player's conversation cut to fit with ``tail`` (see ``SummaryBudget.fit``).

        A cut or dropped turn shows as ``"evict"`` when the player next observes
        (``ChatHistoryGame`` sees its view no longer extend what it acted on).
        """
        log, k = self._logs[agent], self._pinned[agent]
        pinned, turns, _ = self._core.core.fit(
            log.head, log.turns[:k], log.turns[k:], tail, cut_first
        )
        log.turns, self._pinned[agent] = [*pinned, *turns], len(pinned)
        return [*log.head, *log.turns, *tail]

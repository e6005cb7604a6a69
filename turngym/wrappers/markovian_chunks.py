"""``MarkovianChunks`` (Delethink): long reasoning in fixed-size chunks with a short carry-over.

Instead of one ever-growing chain of thought, the agent reasons in chunks of at most
``chunk_tokens`` tokens. A chunk without an answer is a wrapper turn
(``info["wrapper_turn"] = True``, ``context_event = "chunk"``, ``segment`` + 1): the env
does not see it, and the next observation is the env's latest observation (the task,
in a single-answer env) plus only the last ``carry_tokens`` tokens of that chunk, so
the context stays constant in size however long the reasoning runs. A chunk with
``<answer>...</answer>`` sends the answer to the env. After ``max_chunks`` chunks in a
row without an answer the episode is truncated (``info["overlong"] = True``).

Tokens are counted with ``tokenizer`` (anything with ``encode``/``decode``, e.g. a
Hugging Face tokenizer) or, without one, as whitespace-separated words.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs
from pettingzoo.utils.wrappers import BaseWrapper

from turngym.wrappers.game_turns import BlankEnv, wrapper_turn
from turngym.wrappers.parse_action import UNPARSED, ActionParser
from turngym.wrappers.stack_order import check_order
from turngym.wrappers.state_key import observation_key

__all__ = ["MarkovianChunks", "MarkovianChunksGame"]

CARRY_HEADER = "Your reasoning so far ends with:"
_OWN_KEYS = ("wrapper_turn", "context_event", "format_error")  # what the game twin writes


class MarkovianChunks(gym.Wrapper[str, str, str, str], RecordConstructorArgs):
    """Reason in chunks; the context is the latest observation plus the last chunk's tail.

    Args:
        env: a text env (typically one that ends after one answer).
        chunk_tokens: the most tokens of a chunk that count (a longer chunk is cut;
            generate with ``max_new_tokens=chunk_tokens``; ``info["chunk_tokens"]``).
        carry_tokens: how many of the chunk's last tokens the next context keeps.
        max_chunks: chunks in a row without an answer before the episode is truncated.
        tag: the tag around the answer (``<answer>...</answer>``).
        tokenizer: ``encode(text) -> ids`` / ``decode(ids) -> text``; None: words.

    Example:
        >>> import turngym
        >>> env = MarkovianChunks(turngym.make("turngym/Countdown-v0"), 64, 8)
        >>> obs, info = env.reset(seed=0)
        >>> obs, r, term, trunc, info = env.step("Let me try adding the two biggest numbers first")
        >>> info["context_event"], obs.endswith("the two biggest numbers first")
        ('chunk', True)

    """

    def __init__(
        self,
        env: gym.Env[str, str],
        chunk_tokens: int,
        carry_tokens: int,
        max_chunks: int = 16,
        tag: str = "answer",
        tokenizer: Any = None,
    ) -> None:
        RecordConstructorArgs.__init__(
            self,
            chunk_tokens=chunk_tokens,
            carry_tokens=carry_tokens,
            max_chunks=max_chunks,
            tag=tag,
        )
        check_order("MarkovianChunks", env)
        gym.Wrapper.__init__(self, env)
        for name, value, low in (
            ("chunk_tokens", chunk_tokens, 1),
            ("carry_tokens", carry_tokens, 0),
            ("max_chunks", max_chunks, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
        if carry_tokens >= chunk_tokens:
            raise ValueError(
                f"carry_tokens ({carry_tokens}) must be below chunk_tokens ({chunk_tokens})"
            )
        if tokenizer is not None and not (
            callable(getattr(tokenizer, "encode", None))
            and callable(getattr(tokenizer, "decode", None))
        ):
            raise ValueError("tokenizer must have encode(text) and decode(ids)")
        self.chunk_tokens = chunk_tokens
        self.carry_tokens = carry_tokens
        self.max_chunks = max_chunks
        self.parser = ActionParser(tag)
        self.tokenizer = tokenizer
        self._prompt = ""
        self._last_info: dict[str, Any] = {}
        self.chunks = 0  # reasoning chunks this episode
        self._since = 0  # ... since the last answer

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Reset the env; the first context is the task alone."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._prompt, self._last_info, self.chunks, self._since = obs, dict(info), 0, 0
        return obs, self._info(info, event=None, wrapper_turn=False)

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """A chunk with an answer goes to the env; one without carries its tail over."""
        if not isinstance(action, str):
            return self._to_env(action)
        chunk = self._cut(action)
        answer = self.parser.parse(chunk)
        if answer is not None:
            return self._to_env(answer)
        self.chunks += 1
        self._since += 1
        overlong = self._since >= self.max_chunks
        carry = self._tail(chunk)
        obs = f"{self._prompt}\n\n{CARRY_HEADER}\n{carry}" if carry else self._prompt
        info = self._info(self._last_info, event="chunk", wrapper_turn=True)
        info["invalid_action"] = False
        if overlong:
            info["overlong"] = True
        return obs, 0.0, False, overlong, info

    # -- internals -----------------------------------------------------------------

    def _to_env(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        self._since = 0
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._prompt, self._last_info = obs, dict(info)
        return obs, reward, terminated, truncated, self._info(info, None, False)

    def _tokens(self, text: str) -> list[Any]:
        return list(self.tokenizer.encode(text)) if self.tokenizer is not None else text.split()

    def _text(self, tokens: list[Any]) -> str:
        return (
            str(self.tokenizer.decode(tokens)) if self.tokenizer is not None else " ".join(tokens)
        )

    def _cut(self, chunk: str) -> str:
        """``chunk`` cut to ``chunk_tokens`` tokens."""
        tokens = self._tokens(chunk)
        return (
            chunk if len(tokens) <= self.chunk_tokens else self._text(tokens[: self.chunk_tokens])
        )

    def _tail(self, chunk: str) -> str:
        """The last ``carry_tokens`` tokens of ``chunk``."""
        if self.carry_tokens == 0:
            return ""
        return self._text(self._tokens(chunk)[-self.carry_tokens :]).strip()

    def _info(self, info: dict[str, Any], event: str | None, wrapper_turn: bool) -> dict[str, Any]:
        out = dict(info)
        out.update(
            context_event=event,
            segment=self.chunks,
            wrapper_turn=wrapper_turn,
            chunk_tokens=self.chunk_tokens,
        )
        return out


class MarkovianChunksGame(BaseWrapper[str, Any, str]):
    """``MarkovianChunks`` for a PettingZoo game: each player reasons in its own chunks.

    A chunk without an answer is a wrapper turn (``infos[agent]["wrapper_turn"] = True``,
    ``context_event = "chunk"``, the player's ``segment`` + 1): the game waits, the
    player stays to move, and its next observation ends with the chunk's tail. Only a
    player's own observations show its tail; the game receives answers only, so no
    other player ever reads the reasoning. The ``max_chunks``-th chunk in a row without
    an answer is the player's last word: when it is exactly one of the game's
    ``legal_actions`` it is the move; otherwise the player has not answered (where
    ``MarkovianChunks`` truncates) and the game receives ``"[no action found]"``
    (``ParseAction``'s marker, not a move of any turngym game), so the game's
    invalid-action rules (penalty, retry, forfeit) decide, with
    ``infos[agent]["format_error"] = True``. A game without a ``state_key`` gets one of
    its own text (not the carried tail), so GiGPO anchors by the game's state.
    Arguments as for ``MarkovianChunks``.

    Example:
        >>> import turngym
        >>> game = MarkovianChunksGame(turngym.make_game("turngym/TicTacToe-v0"), 16, 3)
        >>> game.reset(seed=0)
        >>> game.step("the centre is strong")
        >>> obs, _, _, _, info = game.last()
        >>> info["wrapper_turn"], info["context_event"], info["segment"]
        (True, 'chunk', 1)
        >>> obs["text"].endswith("centre is strong")
        True

    """

    def __init__(
        self,
        env: Any,
        chunk_tokens: int,
        carry_tokens: int,
        max_chunks: int = 16,
        tag: str = "answer",
        tokenizer: Any = None,
    ) -> None:
        super().__init__(env)
        self._core = MarkovianChunks(
            BlankEnv(), chunk_tokens, carry_tokens, max_chunks, tag, tokenizer
        )
        self._carry: dict[str, str] = {}
        self._since: dict[str, int] = {}
        self._event: dict[str, str | None] = {}
        self._keys: dict[str, str] = {}  # the state keys this wrapper wrote
        self.chunks: dict[str, int] = {}
        """Each player's reasoning chunks this game: its ``infos[agent]["segment"]``."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the game; nobody has reasoned yet."""
        super().reset(seed=seed, options=options)
        self._carry, self._since, self._event, self._keys, self.chunks = {}, {}, {}, {}, {}

    def observe(self, agent: str) -> dict[str, Any]:
        """The game's observation, then the tail of the player's last chunk."""
        inner = self.env.observe(agent)
        text = inner["text"] if isinstance(inner, dict) else str(inner)
        infos = self.unwrapped.infos
        if agent in infos:
            info = dict(infos[agent])
            mine = self._keys.get(agent)
            if info.get("state_key", mine) == mine:  # GiGPO's anchor: the game's state
                info["state_key"] = self._keys[agent] = observation_key(text)
            info.update(context_event=self._event.get(agent), segment=self.chunks.get(agent, 0))
            infos[agent] = info
        carry = self._carry.get(agent)
        if not carry:
            return dict(inner) if isinstance(inner, dict) else {"text": text}
        shown = f"{text}\n\n{CARRY_HEADER}\n{carry}"
        return {**inner, "text": shown} if isinstance(inner, dict) else {"text": shown}

    def step(self, action: Any) -> None:
        """An answer is the move; other chunks wait, up to ``max_chunks`` in a row."""
        agent = self.agent_selection
        done = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        if done:
            super().step(action)
            return
        self._event[agent] = None
        infos = self.unwrapped.infos
        if agent in infos:  # what this wrapper said of the player's last turn is old news
            infos[agent] = {k: v for k, v in infos[agent].items() if k not in _OWN_KEYS}
        if not isinstance(action, str):
            self._move(agent, action)
            return
        core = self._core
        chunk = core._cut(action)
        answer = core.parser.parse(chunk)
        since = self._since.get(agent, 0) + 1
        if answer is None and since < core.max_chunks:
            self._since[agent] = since
            self._carry[agent] = core._tail(chunk)
            self._event[agent] = "chunk"
            self.chunks[agent] = segment = self.chunks.get(agent, 0) + 1
            wrapper_turn(self, agent, context_event="chunk", segment=segment)
            return
        if answer is None:  # out of chunks: only a chunk that is exactly a legal move plays
            legal = self.unwrapped.infos.get(agent, {}).get("legal_actions") or []
            answer = chunk.strip() if chunk.strip() in legal else None
        self._move(agent, UNPARSED.strip() if answer is None else answer)
        infos = self.unwrapped.infos
        if answer is None and agent in infos:
            infos[agent] = {**infos[agent], "format_error": True}

    def _move(self, agent: str, move: Any) -> None:
        """Send ``move`` to the game: the player's reasoning starts afresh."""
        self._since[agent], self._carry[agent] = 0, ""
        super().step(move)

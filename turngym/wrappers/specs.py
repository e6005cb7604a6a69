"""Wrapper stacks named by text: ``"sliding_window:keep_last=2"``, as flags and configs say.

A spec is a wrapper's name (``WRAPPERS``) and optional ``key=value;...`` options
(Python literals where they parse as one, else strings). ``turngym train``, ``eval`` and
``collect`` take ``--wrappers`` in this form, a run's ``config.json`` records it and a
trained model's settings keep the stack it was trained under.

- ``wrapper_spec``: the class name and keyword arguments of one spec.
- ``wrap_env`` / ``wrap_game``: a text env, or a PettingZoo game (each wrapper's game
  twin, ``GAME_WRAPPERS``), with a stack of specs applied innermost first.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

__all__ = [
    "GAME_WRAPPERS",
    "WRAPPERS",
    "split_specs",
    "top_level_split",
    "wrap_env",
    "wrap_game",
    "wrapper_spec",
]

WRAPPERS = {
    "chat_history": "ChatHistory",
    "sliding_window": "SlidingWindow",
    "summarize": "SummarizeContext",
    "internal_state": "InternalState",
    "markovian_chunks": "MarkovianChunks",
    "memory": "MemoryTools",
    "parse_action": "ParseAction",
    "gated_reward": "GatedReward",
    "unary_feedback": "UnaryFeedback",
    "horizon_curriculum": "HorizonCurriculum",
}
"""Wrapper names a spec may start with (text envs): ``name`` or ``name:key=value;...``."""

GAME_WRAPPERS = {
    "chat_history": "ChatHistoryGame",
    "sliding_window": "SlidingWindowGame",
    "summarize": "SummarizeContextGame",
    "internal_state": "InternalStateGame",
    "markovian_chunks": "MarkovianChunksGame",
    "memory": "MemoryToolsGame",
    "parse_action": "ParseActionGame",
}
"""The game twin a wrapper name gives on a PettingZoo game (``wrap_game``)."""


def split_specs(text: str) -> list[str]:
    """A comma list of specs split at the commas outside brackets, each checked.

    An option's value may hold Python literals with commas of their own:

    >>> split_specs("horizon_curriculum:schedule=[(0, 2), (9, 4)], chat_history")
    ['horizon_curriculum:schedule=[(0, 2), (9, 4)]', 'chat_history']

    Raises:
        ValueError: a spec ``wrapper_spec`` refuses.

    """
    specs = [part.strip() for part in top_level_split(text) if part.strip()]
    for spec in specs:
        wrapper_spec(spec)
    return specs


def top_level_split(text: str) -> list[str]:
    """``text`` split at the commas outside brackets (``()``, ``[]``, ``{}``)."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def wrapper_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """The wrapper class name and keyword arguments a ``name:key=value;...`` spec gives.

    Values are Python literals where they parse as one, else strings.

    >>> wrapper_spec("sliding_window:keep_last=2")
    ('SlidingWindow', {'keep_last': 2})

    Raises:
        ValueError: an unknown wrapper name or an option that is not ``key=value``.

    """
    name, _, rest = spec.partition(":")
    if name not in WRAPPERS:
        raise ValueError(f"unknown wrapper {spec!r}; known: {', '.join(WRAPPERS)}")
    kwargs: dict[str, Any] = {}
    for pair in filter(None, rest.split(";")):
        key, sep, raw = pair.partition("=")
        if not sep:
            raise ValueError(f"wrapper options are key=value;..., got {spec!r}")
        try:
            kwargs[key.strip()] = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError):
            kwargs[key.strip()] = raw.strip()
    return WRAPPERS[name], kwargs


def _count_like_the_policy(
    spec: str, kwargs: dict[str, Any], tokenizer: Any, system_prompt: str | None
) -> None:
    """Give a token-counting wrapper the policy's ``tokenizer``, unless ``spec`` set one."""
    if tokenizer is None:
        return
    name = spec.partition(":")[0]
    if name == "summarize":
        from turngym.wrappers.summarize import chat_token_counter

        kwargs.setdefault("count_tokens", chat_token_counter(tokenizer, system_prompt))
    elif name == "markovian_chunks":
        kwargs.setdefault("tokenizer", tokenizer)


def wrap_env(
    env: Any,
    specs: Sequence[str],
    tokenizer: Any = None,
    system_prompt: str | None = None,
) -> Any:
    """``env`` with the wrappers of ``specs`` around it, innermost first.

    With the policy's ``tokenizer`` (and the agent's ``system_prompt``), wrappers that
    count tokens count them as the policy does unless the spec says otherwise:
    ``summarize`` gets ``count_tokens=chat_token_counter(...)``, ``markovian_chunks``
    gets ``tokenizer``. Under wrappers the env first gets ``StateKey``: an env without a
    ``state_key`` of its own reports its observation's, so GiGPO anchors by the env's
    state and not by a wrapper's prompt.

    Raises:
        ValueError: bad wrapper names, options or order (one line).

    """
    import turngym.wrappers

    if specs:
        env = turngym.wrappers.StateKey(env)
    for spec in specs:
        name, kwargs = wrapper_spec(spec)
        _count_like_the_policy(spec, kwargs, tokenizer, system_prompt)
        try:
            env = getattr(turngym.wrappers, name)(env, **kwargs)
        except TypeError as error:
            raise ValueError(f"wrapper {spec!r}: {error}") from None
    return env


def wrap_game(
    game: Any,
    specs: Sequence[str],
    tokenizer: Any = None,
    system_prompt: str | None = None,
) -> Any:
    """``game`` with the game twin (``GAME_WRAPPERS``) of each wrapper of ``specs``.

    Each twin acts for every seat; ``tokenizer`` and ``system_prompt`` as for
    ``wrap_env``.

    Raises:
        ValueError: a wrapper with no game twin, or bad options (one line).

    """
    import turngym.wrappers

    for spec in specs:
        _, kwargs = wrapper_spec(spec)  # unknown names and malformed options fail here
        _count_like_the_policy(spec, kwargs, tokenizer, system_prompt)
        name = spec.partition(":")[0]
        if name not in GAME_WRAPPERS:
            raise ValueError(
                f"wrapper {name!r} has no game twin; games take: {', '.join(GAME_WRAPPERS)}"
            )
        try:
            game = getattr(turngym.wrappers, GAME_WRAPPERS[name])(game, **kwargs)
        except TypeError as error:
            raise ValueError(f"wrapper {spec!r}: {error}") from None
    return game

"""``check_order``: the order context wrappers stack in, and the one-line error for a wrong one.

Context wrappers stack in one order, outermost first::

    ChatHistory (optionally under SlidingWindow) | SummarizeContext | InternalState
        | MarkovianChunks          one of them: it builds what the policy sees
      MemoryTools                  reads tool calls from the whole reply
        ParseAction                hands the env only the action inside the reply
          UnaryFeedback            retries the env's task (it may also sit above the two above)
            the env

Why: the context builders turn string observations into the policy's context, so a
wrapper above one would see a conversation where it expects text (ChatHistory over
SummarizeContext shows the policy a Python repr of a list) and would overwrite its
``context_event``/``segment``; two builders fight over the context; ParseAction above
SummarizeContext, InternalState or MemoryTools would parse summaries, states and tool
calls as env actions (format errors); MarkovianChunks finds the ``<answer>`` itself, so
a ParseAction under it would see a bare answer and call it a format error; a wrapper
twice in one stack (two ParseActions: the inner one sees no tags) is refused too. Every
wrapper named here calls ``check_order`` in its constructor, so a wrong order fails at
once with the right one in the message. ``--wrappers`` lists wrappers innermost first.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

__all__ = ["BUILDERS", "HELPERS", "ORDER", "check_order"]

BUILDERS = ("ChatHistory", "SlidingWindow", "SummarizeContext", "InternalState", "MarkovianChunks")
"""Wrappers that build the policy's context (at most one a stack, outermost)."""

HELPERS = ("MemoryTools", "ParseAction", "UnaryFeedback")
"""Wrappers that go under the context builder."""

ORDER = (
    "context wrappers stack outermost first as one of ChatHistory (optionally under "
    "SlidingWindow), SummarizeContext, InternalState or MarkovianChunks, then MemoryTools, "
    "ParseAction, UnaryFeedback, then the env"
)
"""The right order, as every refusal states it."""


def _name(env: Any) -> str | None:
    """The context wrapper ``env`` is (a subclass counts as its base), or None."""
    for cls in type(env).__mro__:
        if cls.__name__ in BUILDERS or cls.__name__ in HELPERS:
            return cls.__name__
    return None


def _conflict(outer: str, inner: str) -> str | None:
    """Why ``outer`` may not wrap ``inner`` (anywhere below it), or None when it may."""
    if outer == inner:
        return f"{outer} is already in the stack: keep one"
    if outer in HELPERS and inner in BUILDERS:
        return f"put {outer} under {inner}, as {inner}({outer}(env))"
    if outer in BUILDERS and inner in BUILDERS:
        if outer == "SlidingWindow" and inner == "ChatHistory":
            return None
        return f"{outer} and {inner} each build the context: keep one"
    if outer == "ParseAction" and inner == "MemoryTools":
        return "put ParseAction under MemoryTools, as MemoryTools(ParseAction(env))"
    if outer == "MarkovianChunks" and inner == "ParseAction":
        return "MarkovianChunks finds the <answer> itself: leave ParseAction out"
    return None


def check_order(outer: str, env: gym.Env[Any, Any]) -> None:
    """Raise a one-line ``ValueError`` when wrapper ``outer`` may not go on ``env``'s stack.

    Example:
        >>> import turngym
        >>> from turngym.wrappers import ParseAction, SummarizeContext
        >>> inner = SummarizeContext(turngym.make("turngym/FrozenLake-v0"), 400)
        >>> check_order("ParseAction", inner)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: ParseAction(SummarizeContext(...)) is the wrong order: put ParseAction ...

    """
    while isinstance(env, gym.Wrapper):
        inner = _name(env)
        problem = None if inner is None else _conflict(outer, inner)
        if problem is not None:
            raise ValueError(f"{outer}({inner}(...)) is the wrong order: {problem}; {ORDER}")
        env = env.env

"""Stacks of context wrappers: every order either works or is refused with the right one."""

from __future__ import annotations

import itertools

import pytest

from tests.toy_envs import LongWalk
from turngym.wrappers import (
    ChatHistory,
    InternalState,
    MarkovianChunks,
    MemoryTools,
    ParseAction,
    SlidingWindow,
    SummarizeContext,
    UnaryFeedback,
)
from turngym.wrappers.stack_order import ORDER, check_order
from turngym.wrappers.summarize import approx_tokens

BUDGET = 400

WRAPPERS = {
    "ChatHistory": ChatHistory,
    "SlidingWindow": lambda env: SlidingWindow(env, keep_last=2),
    "SummarizeContext": lambda env: SummarizeContext(env, BUDGET, max_summaries=50),
    "ParseAction": ParseAction,
    "InternalState": InternalState,
    "MemoryTools": MemoryTools,
    "UnaryFeedback": UnaryFeedback,
    "MarkovianChunks": lambda env: MarkovianChunks(env, chunk_tokens=64, carry_tokens=8),
}

STACKS = [
    *itertools.product(WRAPPERS, repeat=2),  # (outer, inner), every ordered pair
    ("ChatHistory", "ParseAction", "SummarizeContext"),  # the stack of issue 26
    ("SummarizeContext", "MemoryTools", "ParseAction", "UnaryFeedback"),
    ("SlidingWindow", "ChatHistory", "ParseAction"),
    ("InternalState", "ParseAction", "UnaryFeedback"),
]


def build(stack):
    env = LongWalk(max_invalid_actions=None)
    for name in reversed(stack):  # innermost first
        env = WRAPPERS[name](env)
    return env


def texts(obs):
    """The strings the policy reads in ``obs`` (a str or a list of messages)."""
    if isinstance(obs, str):
        return [obs]
    assert isinstance(obs, list), type(obs)
    for message in obs:
        assert set(message) == {"role", "content"} and isinstance(message["content"], str), message
    return [m["content"] for m in obs]


def check_episode(env, stack, steps=40):
    """Play ``env``: the policy reads text, the budget holds, summaries are summaries."""
    obs, info = env.reset(seed=0)
    asked = False
    for _ in range(steps):
        for text in texts(obs):
            assert "{'role'" not in text, text[:200]  # no Python repr of a conversation
        if "SummarizeContext" in stack:
            assert approx_tokens(obs) <= BUDGET
        if asked:
            assert info["context_event"] == "summary" and info["wrapper_turn"], info
        assert not info.get("format_error")  # every reply holds an <answer>
        assert info.get("context_event") in (None, "summary", "evict", "chunk")
        asked = bool(info.get("summary_request"))
        reply = (
            "SUMMARY: I walked right."
            if asked
            else "<state>going right</state> <answer>right</answer>"
        )
        obs, _, terminated, truncated, info = env.step(reply)
        if terminated or truncated:
            obs, info = env.reset()
            asked = False
    return True


@pytest.mark.parametrize("stack", STACKS, ids="(".join)
def test_every_order_works_or_is_refused_with_the_right_one(stack):
    try:
        env = build(stack)
    except ValueError as error:
        message = str(error)
        assert "\n" not in message and "is the wrong order" in message and ORDER in message
        return
    assert check_episode(env, stack)


def test_the_issues_stack_is_refused_and_the_right_one_works():
    with pytest.raises(ValueError, match=r"put ParseAction under SummarizeContext, as Summ"):
        ChatHistory(ParseAction(SummarizeContext(LongWalk(), BUDGET)))
    env = SummarizeContext(ParseAction(LongWalk()), BUDGET, max_summaries=50)
    assert check_episode(env, ("SummarizeContext", "ParseAction"), steps=120)
    assert env.summaries >= 2


@pytest.mark.parametrize(
    ("outer", "inner", "why"),
    [
        ("ChatHistory", "SummarizeContext", "each build the context: keep one"),
        ("SummarizeContext", "ChatHistory", "each build the context: keep one"),
        ("SlidingWindow", "SummarizeContext", "each build the context: keep one"),
        ("InternalState", "ChatHistory", "each build the context: keep one"),
        ("MarkovianChunks", "InternalState", "each build the context: keep one"),
        ("UnaryFeedback", "ChatHistory", "put UnaryFeedback under ChatHistory"),
        ("MemoryTools", "SummarizeContext", "put MemoryTools under SummarizeContext"),
        ("ParseAction", "MemoryTools", "put ParseAction under MemoryTools"),
        ("MarkovianChunks", "ParseAction", "MarkovianChunks finds the <answer> itself"),
        ("ParseAction", "ParseAction", "ParseAction is already in the stack: keep one"),
    ],
)
def test_wrong_orders_name_the_fix(outer, inner, why):
    with pytest.raises(ValueError, match=why):
        build((outer, inner))


def test_orders_that_compose_are_accepted():
    for stack in (
        ("SlidingWindow", "ChatHistory"),
        ("SummarizeContext", "ParseAction"),
        ("InternalState", "MemoryTools", "ParseAction"),
        ("MarkovianChunks", "UnaryFeedback"),
        ("UnaryFeedback", "ParseAction"),
        ("ParseAction", "UnaryFeedback"),
    ):
        build(stack)
    check_order("ChatHistory", LongWalk())  # no wrapper below: nothing to refuse

"""A check shared by the chat game twins' tests: each player's segments follow its context.

A player's context is cut or rebuilt when what it observes no longer extends what it
last acted on plus its action; exactly then its ``segment`` goes up by one and its
``context_event`` names the change (ARCHITECTURE.md section 5).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

Act = Callable[[str, dict[str, Any], dict[str, Any]], str]


def play_checking_segments(game: Any, seed: int, act: Act, max_steps: int = 400) -> Counter[str]:
    """Play ``game`` with ``act(agent, obs, info)``; returns the context events seen, by kind."""
    game.reset(seed=seed)
    before: dict[str, tuple[list[dict[str, str]], int]] = {}
    events: Counter[str] = Counter()
    for agent in game.agent_iter(max_steps):
        obs, _, terminated, truncated, info = game.last()
        messages = obs["messages"]
        if agent in before:
            prompt, segment = before[agent]
            cut = messages[: len(prompt)] != prompt
            assert info["segment"] == segment + cut, (agent, info)
            assert (info["context_event"] is not None) == cut, (agent, info)
            if cut:
                events[info["context_event"]] += 1
        else:
            assert info["segment"] == 0 and info["context_event"] is None
        if terminated or truncated:
            game.step(None)
            continue
        action = act(agent, obs, info)
        before[agent] = ([*messages, {"role": "assistant", "content": action}], info["segment"])
        game.step(action)
    return events

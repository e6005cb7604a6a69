"""Experts for the classic text envs: Taxi and CliffWalking plan, Blackjack plays basic strategy."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.classic import BlackjackTextEnv, CliffWalkingTextEnv, TaxiTextEnv, TextAdapter

__all__ = ["BlackjackExpert", "CliffWalkingExpert", "TabularExpert", "TaxiExpert"]

# Each step costs -1 in Taxi and CliffWalking, so with a discount just below 1 the
# greedy policy of value iteration is the shortest path on deterministic dynamics
# (and the safest quick route when moves slip).
_GAMMA = 0.99
_TOLERANCE = 1e-6


def _plan(model: dict[int, dict[int, list[tuple[float, int, float, bool]]]]) -> np.ndarray:
    """Greedy action per state by value iteration on a Gymnasium ``P`` table."""
    n_states, n_actions = len(model), len(model[0])
    prob = np.zeros((n_states, n_actions, n_states))
    reward = np.zeros((n_states, n_actions))
    for s, by_action in model.items():
        for a, outcomes in by_action.items():
            for p, nxt, r, terminated in outcomes:
                reward[s, a] += p * r
                if not terminated:  # the episode ends: no value after it
                    prob[s, a, int(nxt)] += p
    value = np.zeros(n_states)
    for _ in range(10_000):
        q = reward + _GAMMA * prob @ value
        new = q.max(axis=1)
        if np.abs(new - value).max() < _TOLERANCE:
            break
        value = new
    best: np.ndarray = q.argmax(axis=1)
    return best


class TabularExpert(BaseAgent):
    """Plans once on the classic env's transition table ``P`` and acts greedily.

    It reads the true state (``env.s``) from the wrapped env, so it works for any
    ``TextAdapter`` over a toy-text env that exposes ``P`` and ``s``.
    """

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, TextAdapter, "TabularExpert")
        classic = inner.inner.unwrapped
        if not hasattr(classic, "P"):
            raise TypeError(f"{type(classic).__name__} has no transition table P to plan on")
        self._env = inner
        self._policy = _plan(classic.P)

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The planned action in the current state."""
        state = int(self._env.inner.unwrapped.s)  # type: ignore[attr-defined]
        return self._env.action_names[int(self._policy[state])]


class TaxiExpert(TabularExpert):
    """Taxi: the shortest route to the passenger, pickup, the shortest route on, dropoff.

    It replans from the true state each turn, so rain and fickle passengers (a
    changed destination is a new state) are handled too.
    """

    def __init__(self, env: gym.Env) -> None:
        unwrap(env, TaxiTextEnv, "TaxiExpert")
        super().__init__(env)


class CliffWalkingExpert(TabularExpert):
    """CliffWalking: the shortest path that never steps onto the cliff.

    On slippery ground the same planner keeps a safe distance from the edge.
    """

    def __init__(self, env: gym.Env) -> None:
        unwrap(env, CliffWalkingTextEnv, "CliffWalkingExpert")
        super().__init__(env)


def basic_strategy(total: int, dealer: int, soft: bool) -> str:
    """Hit or stick by basic strategy (no doubling or splitting; dealer stands on 17).

    Args:
        total: the player's hand total.
        dealer: the dealer's face-up card, 1 for an ace.
        soft: the hand has an ace counted as 11.

    >>> basic_strategy(16, 10, False), basic_strategy(13, 5, False), basic_strategy(18, 9, True)
    ('hit', 'stick', 'hit')

    """
    if soft:
        if total >= 19:
            return "stick"
        if total == 18:
            return "hit" if dealer in (9, 10, 1) else "stick"
        return "hit"
    if total >= 17:
        return "stick"
    if total >= 13:
        return "stick" if 2 <= dealer <= 6 else "hit"
    if total == 12:
        return "stick" if 4 <= dealer <= 6 else "hit"
    return "hit"


class BlackjackExpert(BaseAgent):
    """Blackjack: basic strategy on the player's total, soft ace and the dealer's card."""

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, BlackjackTextEnv, "BlackjackExpert")
        self._env = inner

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """Hit or stick for the current hand."""
        game = self._env.inner.unwrapped
        total, dealer, soft = game._get_obs()  # type: ignore[attr-defined]
        return basic_strategy(int(total), int(dealer), bool(soft))

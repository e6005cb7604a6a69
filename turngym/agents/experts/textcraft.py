"""Expert for ``TextCraft-v0``: a recursive planner that fetches bases and crafts bottom-up.

``plan(target, inventory)`` walks the recipe tree depth-first: for each missing item
it first obtains the ingredients of enough whole batches (recursively), reserves them,
then emits the craft command. Reserving (subtracting from a simulated inventory as
soon as an ingredient is secured) keeps a later branch from spending what an earlier
one set aside, so every command of the plan is valid when it is played in order.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.textcraft import TextCraftEnv, recipe_text
from turngym.envs.text.textcraft_data import RECIPES

__all__ = ["TextCraftExpert", "plan"]


def plan(target: str, inventory: dict[str, int]) -> list[str]:
    """The commands that craft one ``target`` from ``inventory``.

    >>> plan("stick", {})
    ['get 1 oak log', 'craft 4 oak planks using 1 oak log', 'craft 4 stick using 2 oak planks']
    >>> plan("stick", {"oak planks": 3})
    ['craft 4 stick using 2 oak planks']
    """
    stock = dict(inventory)
    commands: list[str] = []

    def obtain(item: str, qty: int) -> None:
        missing = qty - stock.get(item, 0)
        if missing > 0:
            if item not in RECIPES:
                commands.append(f"get {missing} {item}")
                stock[item] = stock.get(item, 0) + missing
            else:
                made, ingredients = RECIPES[item]
                batches = -(-missing // made)
                for name, n in ingredients.items():
                    obtain(name, n * batches)
                    stock[name] -= n * batches
                commands.append(recipe_text(item, batches))
                stock[item] = stock.get(item, 0) + made * batches

    obtain(target, 1)
    return commands


class TextCraftExpert(BaseAgent):
    """Plays ``plan`` for the env's target, replanning at each new episode."""

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, TextCraftEnv, "TextCraftExpert")
        self._env = inner
        self._queue: list[str] = []

    def reset(self, seed: int | None = None) -> None:
        """Forget the current plan."""
        self._queue = []

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next command of the plan (a fresh plan at turn 0 or when it ran out)."""
        if info.get("turn", 0) == 0 or not self._queue:
            self._queue = plan(self._env.target, self._env.inventory) or ["inventory"]
        return self._queue.pop(0)

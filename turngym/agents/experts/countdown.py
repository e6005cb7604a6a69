"""Expert for ``Countdown-v0``: a depth-first solver over pairs of numbers, with a memo.

``solve`` searches the multi-mode moves (positive whole-number results only), which
every generated puzzle admits by construction, and remembers the pools it has already
found hopeless. The expert plays the whole expression (single mode) or the first step
of a solution from the current pool (multi mode).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.countdown import CountdownEnv, apply_op, format_step

__all__ = ["CountdownExpert", "Solution", "solve"]

_Item = tuple[int, str]  # a value and the expression that made it


@dataclass(frozen=True)
class Solution:
    """Steps as canonical ``a op b`` texts, and the same solution as one expression."""

    steps: tuple[str, ...]
    expression: str


def _wrap(expr: str) -> str:
    return f"({expr})" if " " in expr else expr


def solve(numbers: list[int] | tuple[int, ...], target: int, use_all: bool) -> Solution | None:
    """A way to reach ``target`` from ``numbers`` by positive whole-number steps, or None.

    With ``use_all`` the last number left must be the target; otherwise any step may make it.

    >>> solve([25, 5, 4, 7], 87, use_all=True).expression
    '((25 - 5) * 4) + 7'
    >>> solve([1, 2], 10, use_all=True) is None
    True
    """
    hopeless: set[tuple[int, ...]] = set()

    def search(pool: list[_Item], steps: list[str]) -> Solution | None:
        if len(pool) == 1:
            return Solution(tuple(steps), pool[0][1]) if pool[0][0] == target else None
        key = tuple(sorted(v for v, _ in pool))
        if key in hopeless:
            return None
        for i in range(len(pool)):
            for j in range(len(pool)):
                if i == j:
                    continue
                (a, ea), (b, eb) = pool[i], pool[j]
                for op in "+*-/":
                    if op in "+*" and (a < b or (a == b and i > j)):
                        continue  # commutative: try each unordered pair once
                    value = apply_op(a, op, b)
                    if value is None:
                        continue
                    expr = f"{_wrap(ea)} {op} {_wrap(eb)}"
                    step = format_step(a, op, b)
                    if value == target and not use_all:
                        return Solution((*steps, step), expr)
                    rest = [p for n, p in enumerate(pool) if n not in (i, j)]
                    found = search([*rest, (value, expr)], [*steps, step])
                    if found is not None:
                        return found
        hopeless.add(key)
        return None

    items = [(n, str(n)) for n in numbers]
    if not use_all and target in numbers:
        return Solution((), str(target))
    return search(items, [])


class CountdownExpert(BaseAgent):
    """Solves every generated Countdown puzzle, in single and multi mode.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/Countdown-v0")
        >>> obs, info = env.reset(options={"numbers": [25, 5, 4, 7], "target": 87})
        >>> CountdownExpert(env).act(obs, info)
        '((25 - 5) * 4) + 7'

    """

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, CountdownEnv, "CountdownExpert")
        self._env = inner

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The solution expression (single mode) or the next step (multi mode)."""
        env = self._env
        if env.mode == "single":
            found = solve(env.numbers, env.target, env.use_all)
            return found.expression if found is not None else " + ".join(map(str, env.numbers))
        found = solve(env.pool, env.target, env.use_all)
        if found is None or not found.steps:
            return (info.get("legal_actions") or ["1 + 1"])[0]  # unsolvable: any legal move
        return found.steps[0]

"""Expert for ``ScreenGraph-v0``: the fewest clicks to the target, Back presses included.

From the current screen the Back stack offers a few places to restart from; the expert
weighs each (the Backs it takes plus the icon clicks from there, by BFS over the app's
links to the target) and clicks the first step of the cheapest route.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.gui.screen_graph import ScreenGraphEnv

__all__ = ["ScreenGraphExpert"]


class ScreenGraphExpert(BaseAgent):
    """Reads the app's graph from the env and clicks along a shortest route.

    A route is ``k`` presses of Back (popping the Back stack) and then icon clicks; the
    expert picks the ``k`` with the fewest clicks in all (k = 0 on a tie) and answers
    ``click(index)`` for the widget that starts it.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/ScreenGraph-v0")
        >>> obs, info = env.reset(seed=3)
        >>> expert = ScreenGraphExpert(env)
        >>> done = False
        >>> while not done:
        ...     obs, reward, terminated, truncated, info = env.step(expert.act(obs, info))
        ...     done = terminated or truncated
        >>> info["success"], reward
        (True, 1.0)

    """

    def __init__(self, env: gym.Env) -> None:
        self._env = unwrap(env, ScreenGraphEnv, "ScreenGraphExpert")

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """``click(index)`` of the widget that starts the shortest route to the target."""
        env = self._env
        links = env.links
        distance = _distances_to(env.target, links)
        stack = env.history
        # Route k: k Backs to stack[-k], then icon clicks from there.
        costs = [distance.get(env.screen)] + [
            k + d if (d := distance.get(stack[-k])) is not None else None
            for k in range(1, len(stack) + 1)
        ]
        options = [(cost, k) for k, cost in enumerate(costs) if cost is not None]
        if not options:
            return "fail"
        _, backs = min(options)
        widgets = env.widgets
        if backs:
            return f"click({next(w.index for w in widgets if w.to is None)})"
        if env.screen == env.target:
            return "done"
        for w in widgets:
            if w.to is not None and distance.get(w.name) == distance[env.screen] - 1:
                return f"click({w.index})"
        return "fail"  # unreachable: a finite distance has a next step


def _distances_to(target: str, links: dict[str, tuple[str, ...]]) -> dict[str, int]:
    """Icon clicks from each screen to ``target`` (BFS on the reversed links)."""
    into: dict[str, list[str]] = {name: [] for name in links}
    for source, targets in links.items():
        for to in targets:
            into[to].append(source)
    distance = {target: 0}
    queue = deque([target])
    while queue:
        screen = queue.popleft()
        for source in into[screen]:
            if source not in distance:
                distance[source] = distance[screen] + 1
                queue.append(source)
    return distance

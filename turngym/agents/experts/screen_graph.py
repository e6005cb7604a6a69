"""Agents for ``ScreenGraph-v0``: the expert, and an explorer that reads no map.

``ScreenGraphExpert`` takes the fewest clicks to the target, Back presses included:
from the current screen the Back stack offers a few places to restart from; the expert
weighs each (the Backs it takes plus the icon clicks from there, by BFS over the app's
links to the target) and clicks the first step of the cheapest route.

``ScreenGraphExplorer`` is the baseline between the expert and luck: it sees only what
an agent sees (the instruction and the widgets on show) and searches depth-first.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.gui.screen_graph import ScreenGraphEnv

__all__ = ["ScreenGraphExpert", "ScreenGraphExplorer"]

_TARGET = re.compile(r'Open the "(.+)" screen\.')


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


class ScreenGraphExplorer(BaseAgent):
    """Depth-first search from the observations alone: no map, no privileged state.

    Each turn it clicks the target's icon if one is on show, else an icon to a screen
    it has not seen this episode, else Back; on the home screen with nothing new left,
    it gives up. It reads ``info["instruction"]``, ``info["screen"]`` and
    ``info["widgets"]``, what an agent reading the text observation also has.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/ScreenGraph-v0")
        >>> explorer = ScreenGraphExplorer()
        >>> obs, info = env.reset(seed=0)
        >>> explorer.act(obs, info).startswith("click(")
        True

    """

    def __init__(self, env: gym.Env | None = None) -> None:
        self._seen: set[str] = set()

    def reset(self, seed: int | None = None) -> None:
        """Forget the screens seen."""
        self._seen.clear()

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The target's icon, else an icon to an unseen screen, else Back, else ``fail``."""
        if info.get("turn") == 0:  # a new episode, even without a reset() call
            self._seen.clear()
        found = _TARGET.search(str(info.get("instruction", "")))
        target = found.group(1) if found else None
        self._seen.add(str(info.get("screen")))
        widgets = info.get("widgets", [])
        icons = [w for w in widgets if w["role"] == "icon"]
        for w in icons:
            if w["name"] == target:
                return f"click({w['index']})"
        for w in icons:
            if w["name"] not in self._seen:
                return f"click({w['index']})"
        for w in widgets:
            if w["role"] == "button" and w["name"] == "Back":
                return f"click({w['index']})"
        return "fail"

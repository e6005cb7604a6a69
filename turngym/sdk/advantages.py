"""Advantage estimators: pure functions from Episodes to one advantage per turn.

Every estimator returns ``list[list[float]]``: for each episode, one value per turn of
``episode.turns`` (opponents' turns included; trainers mask what they do not train).
Groups are ``Episode.group`` (episodes that share a seed/task). ``RAEBaseline`` keeps
state across batches; everything else is stateless.

- ``grpo``: trajectory-level group-relative advantage (RAGEN's StarPO); ``scale="none"``
  is Dr. GRPO (no division by the standard deviation).
- ``reinforce``: the return minus the batch's mean return, groups ignored (the plain
  policy-gradient baseline).
- ``gigpo``: GiGPO, the episode-level advantage plus a step-level one over turns taken
  from the same anchor state (same observation) across the group.
- ``turn_level``: MT-GRPO, per-turn rewards normalised per turn index, plus the outcome.
- ``RAEBaseline``: SPIRAL's role-conditioned advantage, A = R - b(game, seat) with an
  EMA baseline per (game, seat).
- ``per_agent_norm``: MARS, returns normalised per agent.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Literal

from turngym.sdk.records import Episode, Turn

__all__ = [
    "RAEBaseline",
    "anchor_key",
    "episode_return",
    "gigpo",
    "grpo",
    "per_agent_norm",
    "reinforce",
    "turn_level",
]

Scale = Literal["group", "batch", "none"]
EPS = 1e-6


def episode_return(episode: Episode) -> float:
    """The episode's total reward over all agents' turns (single-agent: its return)."""
    return math.fsum(float(t.reward) for t in episode.turns)


def _mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and population standard deviation (0 for fewer than two values)."""
    if not values:
        return 0.0, 0.0
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))


def _groups(episodes: Sequence[Episode]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = defaultdict(list)
    for k, ep in enumerate(episodes):
        out[ep.group].append(k)
    return out


def _trajectory(episodes: Sequence[Episode], values: Sequence[float]) -> list[list[float]]:
    """One value per episode, repeated on each of its turns."""
    return [[v] * ep.length for ep, v in zip(episodes, values, strict=True)]


def grpo(episodes: Sequence[Episode], scale: Scale = "group") -> list[list[float]]:
    """Group-relative trajectory advantage: (R - group mean) / std.

    Args:
        episodes: the batch; ``Episode.group`` marks episodes of the same task.
        scale: ``"group"`` divides by the group's std, ``"batch"`` by the batch's std of
            the centred returns, ``"none"`` does not divide (Dr. GRPO).

    >>> from turngym.sdk.records import Turn
    >>> eps = [Episode("x", group=0, turns=[Turn(reward=r)]) for r in (1.0, 0.0)]
    >>> [[round(a, 3) for a in row] for row in grpo(eps)]
    [[1.0], [-1.0]]

    """
    if scale not in ("group", "batch", "none"):
        raise ValueError(f"scale must be 'group', 'batch' or 'none', got {scale!r}")
    returns = [episode_return(ep) for ep in episodes]
    centred = [0.0] * len(episodes)
    stds = [0.0] * len(episodes)
    for members in _groups(episodes).values():
        mean, std = _mean_std([returns[k] for k in members])
        for k in members:
            centred[k] = returns[k] - mean
            stds[k] = std
    if scale == "none":
        values = centred
    elif scale == "group":
        values = [c / (s + EPS) for c, s in zip(centred, stds, strict=True)]
    else:
        _, batch_std = _mean_std(centred)
        values = [c / (batch_std + EPS) for c in centred]
    return _trajectory(episodes, values)


def anchor_key(turn: Turn) -> Hashable:
    """The state a turn acted from, for GiGPO's anchors: its observation's text."""
    obs = turn.obs
    if isinstance(obs, dict):
        obs = obs.get("text", obs)
    if isinstance(obs, list):  # a chat: the latest message is the current state
        obs = obs[-1].get("content", "") if obs and isinstance(obs[-1], dict) else str(obs)
    return obs if isinstance(obs, str) else repr(obs)


def reinforce(episodes: Sequence[Episode]) -> list[list[float]]:
    """REINFORCE with a baseline: each episode's return minus the batch's mean return.

    Unlike ``grpo`` it ignores groups: episodes from different tasks share one baseline,
    the plain policy-gradient estimator that actor-critic methods are compared with.

    >>> from turngym.sdk.records import Turn
    >>> rewards = (1.0, 0.0, 0.5)
    >>> eps = [Episode("x", group=k, turns=[Turn(reward=r)] * 2) for k, r in enumerate(rewards)]
    >>> reinforce(eps)
    [[1.0, 1.0], [-1.0, -1.0], [0.0, 0.0]]

    """
    returns = [episode_return(ep) for ep in episodes]
    mean = sum(returns) / len(returns) if returns else 0.0
    return _trajectory(episodes, [r - mean for r in returns])


def gigpo(
    episodes: Sequence[Episode],
    gamma: float = 0.95,
    weight: float = 1.0,
    key: Callable[[Turn], Hashable] = anchor_key,
) -> list[list[float]]:
    """GiGPO: episode-level GRPO plus ``weight`` x a step-level advantage.

    The step-level advantage of a turn compares its discounted return-to-go with that of
    every turn in the same group taken from the same anchor state (``key(turn)``):
    (G - mean) / std over the anchor's turns; 0 for an anchor seen once.
    """
    if not 0 <= gamma <= 1:
        raise ValueError(f"gamma must be in [0, 1], got {gamma!r}")
    episode_level = grpo(episodes, scale="group")
    to_go: list[list[float]] = []
    for ep in episodes:
        g, out = 0.0, [0.0] * ep.length
        for t in range(ep.length - 1, -1, -1):
            g = float(ep.turns[t].reward) + gamma * g
            out[t] = g
        to_go.append(out)
    result = [list(row) for row in episode_level]
    for members in _groups(episodes).values():
        anchors: dict[Hashable, list[tuple[int, int]]] = defaultdict(list)
        for k in members:
            for t, turn in enumerate(episodes[k].turns):
                anchors[key(turn)].append((k, t))
        for places in anchors.values():
            if len(places) < 2:
                continue
            mean, std = _mean_std([to_go[k][t] for k, t in places])
            for k, t in places:
                result[k][t] += weight * (to_go[k][t] - mean) / (std + EPS)
    return result


def turn_level(episodes: Sequence[Episode], outcome_weight: float = 1.0) -> list[list[float]]:
    """MT-GRPO: turn rewards normalised per turn index, plus the weighted outcome.

    A turn's advantage is its reward normalised among the group's turns with the same
    index, plus ``outcome_weight`` x the episode's group-normalised return.
    """
    outcome = grpo(episodes, scale="group")
    result = [[outcome_weight * a for a in row] for row in outcome]
    for members in _groups(episodes).values():
        longest = max(episodes[k].length for k in members)
        for t in range(longest):
            present = [k for k in members if t < episodes[k].length]
            mean, std = _mean_std([float(episodes[k].turns[t].reward) for k in present])
            for k in present:
                reward = float(episodes[k].turns[t].reward)
                result[k][t] += (reward - mean) / (std + EPS) if len(present) > 1 else 0.0
    return result


class RAEBaseline:
    """SPIRAL's role-conditioned advantage estimation: an EMA baseline per (game, seat).

    ``advantages(episodes)`` gives each turn of seat ``s`` in game ``g`` the advantage
    ``R_s - b(g, s)`` with the baseline as it was before this episode, then updates
    ``b <- decay * b + (1 - decay) * R_s``; episodes are taken in order.

    >>> from turngym.sdk.records import Turn
    >>> rae = RAEBaseline(decay=0.5)
    >>> turns = [Turn(agent="player_0", reward=1.0), Turn(agent="player_1", reward=-1.0)]
    >>> ep = Episode("ttt", turns=turns)
    >>> rae.advantages([ep, ep])
    [[1.0, -1.0], [0.5, -0.5]]
    """

    def __init__(self, decay: float = 0.95) -> None:
        if not 0 <= decay < 1:
            raise ValueError(f"decay must be in [0, 1), got {decay!r}")
        self.decay = decay
        self.baselines: dict[tuple[str, str], float] = {}

    def advantages(self, episodes: Sequence[Episode]) -> list[list[float]]:
        """Per-turn advantages, updating the baselines as it goes (see the class docstring)."""
        result = []
        for ep in episodes:
            returns: dict[str, float] = defaultdict(float)
            for turn in ep.turns:
                returns[turn.agent] += float(turn.reward)
            adv = {}
            for seat, ret in returns.items():
                b = self.baselines.get((ep.env_id, seat), 0.0)
                adv[seat] = ret - b
                self.baselines[ep.env_id, seat] = self.decay * b + (1 - self.decay) * ret
            result.append([adv[turn.agent] for turn in ep.turns])
        return result

    def state_dict(self) -> dict[str, Any]:
        """The baselines, for checkpoints."""
        rows = [[g, s, b] for (g, s), b in self.baselines.items()]
        return {"decay": self.decay, "baselines": rows}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what ``state_dict`` saved."""
        self.decay = float(state["decay"])
        self.baselines = {(g, s): float(b) for g, s, b in state["baselines"]}


def per_agent_norm(episodes: Sequence[Episode]) -> list[list[float]]:
    """MARS: each agent's episode return normalised over that agent's returns in the batch."""
    per_episode: list[dict[str, float]] = []
    by_agent: dict[str, list[float]] = defaultdict(list)
    for ep in episodes:
        returns: dict[str, float] = defaultdict(float)
        for turn in ep.turns:
            returns[turn.agent] += float(turn.reward)
        per_episode.append(returns)
        for agent, ret in returns.items():
            by_agent[agent].append(ret)
    stats = {agent: _mean_std(values) for agent, values in by_agent.items()}
    return [
        [
            (returns[turn.agent] - stats[turn.agent][0]) / (stats[turn.agent][1] + EPS)
            for turn in ep.turns
        ]
        for ep, returns in zip(episodes, per_episode, strict=True)
    ]

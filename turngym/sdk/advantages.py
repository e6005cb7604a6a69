"""Advantage estimators: pure functions from Episodes to one advantage per turn.

Every estimator returns ``list[list[float]]``: for each episode, one value per turn of
``episode.turns`` (opponents' turns included; trainers mask what they do not train).
Groups are ``Episode.group`` (episodes that share a seed/task). ``RAEBaseline`` keeps
state across batches; everything else is stateless.

Every estimator scores a turn by the return of the seat that took it (``seat_returns``),
never by the sum over seats: in a zero-sum game that sum is 0 in every episode, so a
group baseline over it would see no difference and train nothing. A single-agent
episode has one seat, ``"agent"``, whose return is the episode's.

- ``grpo``: trajectory-level group-relative advantage (RAGEN's StarPO); ``scale="none"``
  is Dr. GRPO (no division by the standard deviation).
- ``reinforce``: the return minus the batch's mean return, groups ignored (the plain
  policy-gradient baseline).
- ``gigpo``: GiGPO, the episode-level advantage plus a step-level one over turns taken
  from the same anchor state (the env's ``state_key``, else the same observation)
  across the group; ``anchor_groups`` lists those turns.
- ``turn_level``: MT-GRPO, per-turn rewards normalised per env turn index, plus the
  outcome.
- ``RAEBaseline``: SPIRAL's role-conditioned advantage, A = R - b(game, seat) with an
  EMA baseline per (game, seat).
- ``per_agent_norm``: MARS, returns normalised per agent.

Wrapper turns (``Turn.wrapper_turn``: a summary, a memory call, a reasoning chunk whose
action a context wrapper consumed) do not move the env, so the step-level estimators
follow the env, not the turn list. A wrapper turn belongs to the seat's next env turn
and is at that turn's env state. ``gigpo`` anchors env turns by their env state
whatever their index, and a wrapper turn only with wrapper turns written at the same
env state (two episodes that both summarise in the same state compare how their
summaries paid off); a wrapper turn's return-to-go is its reward plus that of its env
turn, undiscounted (it is no env step). ``turn_level`` compares the k-th env turns of
the group; a wrapper turn gets the outcome term only (its reward, 0 for a summary or a
tool's penalty, has no k-th-turn peers and still counts in the return). Trajectory-level
estimators give a wrapper turn its episode's advantage like any other turn.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Literal

from turngym.sdk.records import Episode, Turn

__all__ = [
    "RAEBaseline",
    "anchor_groups",
    "anchor_key",
    "episode_return",
    "gigpo",
    "grpo",
    "per_agent_norm",
    "reinforce",
    "seat_returns",
    "turn_level",
]

Scale = Literal["group", "batch", "none"]
EPS = 1e-6


def episode_return(episode: Episode) -> float:
    """The episode's total reward over all agents' turns (single-agent: its return).

    Not an advantage's return in games (it is 0 in zero-sum ones): see ``seat_returns``.
    """
    return math.fsum(float(t.reward) for t in episode.turns)


def seat_returns(episode: Episode) -> dict[str, float]:
    """Each acting seat's total reward in ``episode`` (single-agent: ``{"agent": R}``).

    >>> turns = [Turn(agent="player_0", reward=0.0), Turn(agent="player_1", reward=1.0),
    ...          Turn(agent="player_0", reward=-1.0)]
    >>> seat_returns(Episode("ttt", turns=turns))
    {'player_0': -1.0, 'player_1': 1.0}
    """
    out: dict[str, float] = {}
    for turn in episode.turns:
        out[turn.agent] = out.get(turn.agent, 0.0) + float(turn.reward)
    return out


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


def grpo(episodes: Sequence[Episode], scale: Scale = "group") -> list[list[float]]:
    """Group-relative trajectory advantage: (R - group mean) / std.

    In games R is the acting seat's return and the mean and std are over that seat's
    returns in the group (a turn of ``player_1`` is compared with ``player_1``'s results).

    Args:
        episodes: the batch; ``Episode.group`` marks episodes of the same task.
        scale: ``"group"`` divides by the group's std, ``"batch"`` by the batch's std of
            the centred returns, ``"none"`` does not divide (Dr. GRPO).

    >>> from turngym.sdk.records import Turn
    >>> eps = [Episode("x", group=0, turns=[Turn(reward=r)]) for r in (1.0, 0.0)]
    >>> [[round(a, 3) for a in row] for row in grpo(eps)]
    [[1.0], [-1.0]]

    """
    values = _group_relative(episodes, [seat_returns(ep) for ep in episodes], scale)
    return _per_turn(episodes, values)


def _check_scale(scale: str) -> None:
    if scale not in ("group", "batch", "none"):
        raise ValueError(f"scale must be 'group', 'batch' or 'none', got {scale!r}")


def _group_relative(
    episodes: Sequence[Episode], returns: Sequence[dict[str, float]], scale: str
) -> list[dict[str, float]]:
    """Per episode and seat: (R - mean) / std over the same seat in the same group."""
    _check_scale(scale)
    centred: list[dict[str, float]] = [{} for _ in episodes]
    stds: list[dict[str, float]] = [{} for _ in episodes]
    for members in _groups(episodes).values():
        for seat in dict.fromkeys(s for k in members for s in returns[k]):
            sitting = [k for k in members if seat in returns[k]]
            mean, std = _mean_std([returns[k][seat] for k in sitting])
            for k in sitting:
                centred[k][seat] = returns[k][seat] - mean
                stds[k][seat] = std
    if scale == "none":
        return centred
    if scale == "batch":
        _, batch_std = _mean_std([c for row in centred for c in row.values()])
        return [{s: c / (batch_std + EPS) for s, c in row.items()} for row in centred]
    return [
        {s: c / (std[s] + EPS) for s, c in row.items()}
        for row, std in zip(centred, stds, strict=True)
    ]


def _per_turn(episodes: Sequence[Episode], values: Sequence[dict[str, float]]) -> list[list[float]]:
    """Each turn gets the value of the seat that took it."""
    return [[v[t.agent] for t in ep.turns] for ep, v in zip(episodes, values, strict=True)]


def anchor_key(turn: Turn) -> Hashable:
    """The env state a turn acted from, for GiGPO's anchors.

    The env's ``state_key`` that came with the turn's observation (``Turn.state_key``)
    when there is one: under a context wrapper the observation is the wrapper's prompt
    (a summary, memory, a window), the state key is still the env's. Otherwise the
    observation's text (a chat: its latest message).

    >>> anchor_key(Turn(obs="You are at row 0.", state_key="0,0"))
    ('state_key', '0,0')
    >>> anchor_key(Turn(obs=[{"role": "user", "content": "You are at row 0."}]))
    'You are at row 0.'
    """
    if turn.state_key is not None:
        return ("state_key", _hashable(turn.state_key))
    obs = turn.obs
    if isinstance(obs, dict):
        obs = obs.get("text", obs)
    if isinstance(obs, list):  # a chat: the latest message is the current state
        obs = obs[-1].get("content", "") if obs and isinstance(obs[-1], dict) else str(obs)
    return obs if isinstance(obs, str) else repr(obs)


def _hashable(value: Any) -> Hashable:
    """``value`` as a hashable key (a state key read back from JSON is a list)."""
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _hashable(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def _env_turn_of(episode: Episode) -> list[int]:
    """For each turn, the index of the env turn whose env state it acts from.

    An env turn is its own; a wrapper turn's is the same seat's next env turn (the env
    does not move in between), or itself when the episode ends first.
    """
    owner = list(range(episode.length))
    nxt: dict[str, int] = {}
    for t in range(episode.length - 1, -1, -1):
        turn = episode.turns[t]
        if turn.wrapper_turn:
            owner[t] = nxt.get(turn.agent, t)
        else:
            nxt[turn.agent] = t
    return owner


def anchor_groups(
    episodes: Sequence[Episode], key: Callable[[Turn], Hashable] = anchor_key
) -> list[list[tuple[int, int]]]:
    """GiGPO's anchors: the ``(episode, turn)`` places that share an anchor state.

    Turns share an anchor when they are in the same group, taken by the same seat, of
    the same kind (env turn or wrapper turn) and from the same env state:
    ``key(turn)`` for an env turn, ``key`` of the env turn it belongs to for a wrapper
    turn (see the module docstring). Every turn is in exactly one anchor (most alone).

    >>> turns = lambda *obs: [Turn(obs=o) for o in obs]
    >>> anchor_groups([Episode("x", turns=turns("a", "b")), Episode("x", turns=turns("b"))])
    [[(0, 0)], [(0, 1), (1, 0)]]
    """
    out: list[list[tuple[int, int]]] = []
    for members in _groups(episodes).values():
        anchors: dict[tuple[str, bool, Hashable], list[tuple[int, int]]] = {}
        for k in members:
            ep = episodes[k]
            owner = _env_turn_of(ep)
            for t, turn in enumerate(ep.turns):
                where = (turn.agent, turn.wrapper_turn, key(ep.turns[owner[t]]))
                anchors.setdefault(where, []).append((k, t))
        out += anchors.values()
    return out


def reinforce(episodes: Sequence[Episode]) -> list[list[float]]:
    """REINFORCE with a baseline: each episode's return minus the batch's mean return.

    Unlike ``grpo`` it ignores groups: episodes from different tasks share one baseline,
    the plain policy-gradient estimator that actor-critic methods are compared with. In
    games the return is the acting seat's and the baseline that seat's batch mean.

    >>> from turngym.sdk.records import Turn
    >>> rewards = (1.0, 0.0, 0.5)
    >>> eps = [Episode("x", group=k, turns=[Turn(reward=r)] * 2) for k, r in enumerate(rewards)]
    >>> reinforce(eps)
    [[1.0, 1.0], [-1.0, -1.0], [0.0, 0.0]]

    """
    returns = [seat_returns(ep) for ep in episodes]
    by_seat: dict[str, list[float]] = defaultdict(list)
    for row in returns:
        for seat, value in row.items():
            by_seat[seat].append(value)
    means = {seat: math.fsum(values) / len(values) for seat, values in by_seat.items()}
    return _per_turn(episodes, [{s: r - means[s] for s, r in row.items()} for row in returns])


def gigpo(
    episodes: Sequence[Episode],
    gamma: float = 0.95,
    weight: float = 1.0,
    key: Callable[[Turn], Hashable] = anchor_key,
    scale: Scale = "group",
) -> list[list[float]]:
    """GiGPO: episode-level GRPO plus ``weight`` x a step-level advantage.

    The step-level advantage of a turn compares its discounted return-to-go with that of
    every turn of its anchor (``anchor_groups``: same group, seat, kind of turn and env
    state, ``key``): (G - mean) / std over the anchor's turns; 0 for an anchor seen
    once. The return-to-go is discounted per env turn (a wrapper turn is no env step).
    In games it sums the acting seat's rewards only, discounted per own turn.
    ``scale`` is ``grpo``'s for the episode level; ``"none"`` also leaves the step level
    undivided (the Dr. GRPO form), ``"group"`` and ``"batch"`` divide it by the anchor's std.
    """
    if not 0 <= gamma <= 1:
        raise ValueError(f"gamma must be in [0, 1], got {gamma!r}")
    episode_level = grpo(episodes, scale=scale)
    to_go: list[list[float]] = []
    for ep in episodes:
        out = [0.0] * ep.length
        later: dict[str, float] = defaultdict(float)  # each seat's discounted future
        for t in range(ep.length - 1, -1, -1):
            turn = ep.turns[t]
            discount = 1.0 if turn.wrapper_turn else gamma
            later[turn.agent] = float(turn.reward) + discount * later[turn.agent]
            out[t] = later[turn.agent]
        to_go.append(out)
    result = [list(row) for row in episode_level]
    for places in anchor_groups(episodes, key):
        if len(places) < 2:
            continue
        mean, std = _mean_std([to_go[k][t] for k, t in places])
        divisor = 1.0 if scale == "none" else std + EPS
        for k, t in places:
            result[k][t] += weight * (to_go[k][t] - mean) / divisor
    return result


def turn_level(episodes: Sequence[Episode], outcome_weight: float = 1.0) -> list[list[float]]:
    """MT-GRPO: turn rewards normalised per env turn index, plus the weighted outcome.

    An env turn's advantage is its reward normalised among the group's env turns with
    the same index, plus ``outcome_weight`` x the episode's group-normalised return.
    The index counts env turns only, so a wrapper turn (a summary) does not shift the
    turns after it; a wrapper turn gets the outcome term only. In games the index
    counts the acting seat's own env turns and the outcome is that seat's return.
    """
    outcome = grpo(episodes, scale="group")
    result = [[outcome_weight * a for a in row] for row in outcome]
    for members in _groups(episodes).values():
        # (seat, the seat's env turn number) -> the (episode, turn) places that share it
        slots: dict[tuple[str, int], list[tuple[int, int]]] = defaultdict(list)
        for k in members:
            count: dict[str, int] = defaultdict(int)
            for t, turn in enumerate(episodes[k].turns):
                if turn.wrapper_turn:
                    continue
                slots[turn.agent, count[turn.agent]].append((k, t))
                count[turn.agent] += 1
        for places in slots.values():
            if len(places) < 2:
                continue
            rewards = [float(episodes[k].turns[t].reward) for k, t in places]
            mean, std = _mean_std(rewards)
            for (k, t), reward in zip(places, rewards, strict=True):
                result[k][t] += (reward - mean) / (std + EPS)
    return result


class RAEBaseline:
    """SPIRAL's role-conditioned advantage estimation: an EMA baseline per (game, seat).

    ``advantages(episodes)`` gives each turn of seat ``s`` in game ``g`` the advantage
    ``R_s - b(g, s)`` with the baseline as it was before this episode, then updates
    ``b <- decay * b + (1 - decay) * R_s``; episodes are taken in order. As in SPIRAL only
    trained players move the baselines: in an episode with trainable turns, a seat with
    none (a frozen pool opponent, a scripted agent) gets advantage 0 and leaves ``b`` alone.

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
            # an episode with no trainable turn at all (hand-made, scripted) trains every seat
            trained = {t.agent for t in ep.turns if t.trainable} or set(ep.agents)
            adv = {}
            for seat, ret in seat_returns(ep).items():
                if seat not in trained:
                    adv[seat] = 0.0
                    continue
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
    per_episode = [seat_returns(ep) for ep in episodes]
    by_agent: dict[str, list[float]] = defaultdict(list)
    for returns in per_episode:
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

"""A replay buffer of utterance-level transitions, with hindsight goal relabelling.

``ReplayBuffer`` holds ``ReplayTransition`` records built from ``Episode.transitions()``:
the observation and goal, the candidate actions at s and at s', the action, reward,
next observation and end flags. It evicts the oldest transition first once full,
samples uniformly with its own seeded RNG, and round-trips through ``state_dict`` /
``load_state_dict`` so a resumed run samples exactly what an uninterrupted one would.

Hindsight relabelling (HER, Andrychowicz et al. 2017) for goal-conditioned envs
(``info["goal"]``, ``info["achieved_goal"]``): a failed episode is added again with an
achieved goal in place of its goal (in the observation text too, where the goal is
written) and the reward recomputed by the env's goal function
``compute_reward(achieved_goal, goal)``:

- ``final``: one copy of the episode, the goal being the last goal it achieved;
- ``future``: each transition gets ``relabel_k`` copies, each with a goal achieved at
  that step or later (drawn uniformly, with replacement).

A relabelled transition whose reward is positive ends its episode (``terminated``), as
reaching the goal does in the env.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from turngym.sdk.records import Episode

__all__ = [
    "RELABEL_STRATEGIES",
    "ReplayBuffer",
    "ReplayTransition",
    "episode_transitions",
    "state_text",
]

RELABEL_STRATEGIES = ("none", "final", "future")
"""Hindsight strategies ``ReplayBuffer(relabel=...)`` accepts."""

GoalReward = Callable[[str, str], float]
"""``compute_reward(achieved_goal, goal) -> reward``, as goal-conditioned envs define it."""


@dataclass(frozen=True)
class ReplayTransition:
    """One (s, a, r, s') step with what a candidate-scoring learner needs.

    Attributes:
        obs: the observation the action answered (the env's text).
        goal: the goal the agent pursued (``info["goal"]``), or None.
        candidates: the legal actions at s.
        action: the action taken (one of ``candidates`` when they are known).
        reward: the reward it earned.
        next_obs: the next observation (the final one after the last turn).
        next_candidates: the legal actions at s' (empty at the episode's end).
        achieved_goal: the goal this action achieved (``info["achieved_goal"]``; "" none).
        done: the episode ended after this action (terminated or truncated).
        terminated: it ended in a terminal state: no bootstrapping from s'.
        relabelled: a hindsight copy (its goal and reward were substituted).

    """

    obs: Any
    goal: str | None
    candidates: tuple[str, ...]
    action: str
    reward: float
    next_obs: Any
    next_candidates: tuple[str, ...]
    achieved_goal: str = ""
    done: bool = False
    terminated: bool = False
    relabelled: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (tuples become lists)."""
        data = dataclasses.asdict(self)
        data["candidates"] = list(self.candidates)
        data["next_candidates"] = list(self.next_candidates)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReplayTransition:
        """The inverse of ``to_dict``."""
        data = dict(data)
        data["candidates"] = tuple(data["candidates"])
        data["next_candidates"] = tuple(data["next_candidates"])
        return cls(**data)


def episode_transitions(episode: Episode) -> list[ReplayTransition]:
    """The episode's turns (one agent's) as replay transitions.

    The candidates at s are the turn's recorded ``candidates`` (else the legal actions
    the previous step reported); those at s' are the legal actions the step reported
    (none after a terminal step; a truncated one keeps them, to bootstrap from s').

    >>> from turngym.sdk.records import Turn
    >>> ep = Episode("Demo", turns=[Turn(obs="s0", action="a", reward=1.0, terminated=True,
    ...     candidates=["a", "b"], info={"goal": "g", "achieved_goal": "g"})],
    ...     final_obs={"agent": "s1"})
    >>> t = episode_transitions(ep)[0]
    >>> (t.obs, t.goal, t.candidates, t.reward, t.next_obs, t.terminated)
    ('s0', 'g', ('a', 'b'), 1.0, 's1', True)
    """
    out = []
    previous_legal: Sequence[str] = ()
    for tr in episode.transitions():
        turn = episode.turns[tr.turn]
        info = turn.info
        legal_next = info.get("legal_actions") or ()
        candidates = turn.candidates or previous_legal
        out.append(
            ReplayTransition(
                obs=tr.obs,
                goal=info.get("goal"),
                candidates=tuple(str(a) for a in candidates),
                action=tr.action,
                reward=tr.reward,
                next_obs=tr.next_obs,
                next_candidates=() if tr.terminated else tuple(str(a) for a in legal_next),
                achieved_goal=str(info.get("achieved_goal") or ""),
                done=tr.done,
                terminated=tr.terminated,
            )
        )
        previous_legal = legal_next
    return out


def substitute_goal(obs: Any, goal: str, new_goal: str) -> Any:
    """``obs`` with ``goal`` replaced by ``new_goal`` wherever its text holds it.

    Works on a str, a ``{"text": str, ...}`` dict and a list of chat messages; anything
    else is returned unchanged.

    >>> substitute_goal("Your mission: go to the red ball.", "go to the red ball", "go to the box")
    'Your mission: go to the box.'
    """
    if not goal:
        return obs
    if isinstance(obs, str):
        return obs.replace(goal, new_goal)
    if isinstance(obs, dict) and isinstance(obs.get("text"), str):
        return {**obs, "text": obs["text"].replace(goal, new_goal)}
    if isinstance(obs, list) and all(isinstance(m, dict) and "content" in m for m in obs):
        return [{**m, "content": str(m["content"]).replace(goal, new_goal)} for m in obs]
    return obs


def state_text(obs: Any, goal: str | None) -> Any:
    r"""What the policy and critic read: the observation, with the goal when it lacks it.

    Text envs tell the task once, in the first observation; a goal-conditioned state
    needs it at every step, so a ``Mission:`` line is put first where the text lacks it.

    >>> state_text("You see a wall.", "go to the red ball")
    'Mission: go to the red ball\nYou see a wall.'
    >>> state_text("Your mission: go to the red ball.", "go to the red ball")
    'Your mission: go to the red ball.'
    """
    if isinstance(obs, dict) and isinstance(obs.get("text"), str):
        obs = obs["text"]
    if not goal or not isinstance(obs, str) or goal in obs:
        return obs
    return f"Mission: {goal}\n{obs}"


def relabel(
    transitions: Sequence[ReplayTransition], new_goal: str, compute_reward: GoalReward
) -> list[ReplayTransition]:
    """Copies of ``transitions`` pursuing ``new_goal``: texts, rewards and ends recomputed.

    A copy is terminal where its action achieved ``new_goal`` (positive reward) or where
    the original was terminal (a failure that ends the episode whatever the goal).
    """
    out = []
    for t in transitions:
        old = t.goal or ""
        reward = float(compute_reward(t.achieved_goal, new_goal))
        terminated = t.terminated or reward > 0
        out.append(
            dataclasses.replace(
                t,
                obs=substitute_goal(t.obs, old, new_goal),
                goal=new_goal,
                reward=reward,
                next_obs=substitute_goal(t.next_obs, old, new_goal),
                next_candidates=() if terminated else t.next_candidates,
                done=t.done or terminated,
                terminated=terminated,
                relabelled=True,
            )
        )
    return out


class ReplayBuffer:
    """Utterance-level transitions, FIFO once full, sampled uniformly with a seeded RNG.

    Args:
        capacity: the most transitions kept; the oldest go first.
        seed: seeds the sampling (and relabelling) RNG.
        relabel: hindsight strategy: ``"none"``, ``"final"`` or ``"future"``.
        relabel_k: ``future``: relabelled copies of each transition of a failed episode.
        relabel_ratio: the share of failed episodes that are relabelled (drawn per
            episode), in [0, 1].
        compute_reward: the env's goal function ``compute_reward(achieved, goal)``
            (``env.unwrapped.compute_reward``); required unless ``relabel="none"``.

    Example:
        >>> buffer = ReplayBuffer(capacity=1000, seed=0)
        >>> buffer.add(ReplayTransition("s", None, ("a",), "a", 1.0, "s'", ()))
        >>> len(buffer), buffer.sample(2)[0].reward
        (1, 1.0)

    """

    def __init__(
        self,
        capacity: int,
        seed: int = 0,
        relabel: str = "none",
        relabel_k: int = 4,
        relabel_ratio: float = 1.0,
        compute_reward: GoalReward | None = None,
    ) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be an int >= 1, got {capacity!r}")
        if relabel not in RELABEL_STRATEGIES:
            raise ValueError(
                f"relabel must be one of {', '.join(RELABEL_STRATEGIES)}, got {relabel!r}"
            )
        if isinstance(relabel_k, bool) or not isinstance(relabel_k, int) or relabel_k < 1:
            raise ValueError(f"relabel_k must be an int >= 1, got {relabel_k!r}")
        if not isinstance(relabel_ratio, (int, float)) or not 0 <= relabel_ratio <= 1:
            raise ValueError(f"relabel_ratio must be in [0, 1], got {relabel_ratio!r}")
        if relabel != "none" and not callable(compute_reward):
            raise ValueError(
                f"relabel={relabel!r} needs compute_reward(achieved_goal, goal): a "
                "goal-conditioned env's env.unwrapped.compute_reward"
            )
        self.capacity = capacity
        self.relabel = relabel
        self.relabel_k = relabel_k
        self.relabel_ratio = float(relabel_ratio)
        self.compute_reward = compute_reward
        self._data: deque[ReplayTransition] = deque(maxlen=capacity)
        self._rng = np.random.default_rng(seed)
        self.added = 0
        """Transitions added so far (relabelled ones included; evicted ones too)."""

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, index: int) -> ReplayTransition:
        return self._data[index]

    def add(self, transition: ReplayTransition) -> None:
        """Append one transition (the oldest is evicted when full)."""
        self._data.append(transition)
        self.added += 1

    def extend(self, transitions: Iterable[ReplayTransition]) -> int:
        """Append transitions in order; returns how many."""
        n = 0
        for t in transitions:
            self.add(t)
            n += 1
        return n

    def add_episode(self, episode: Episode) -> int:
        """Add an episode's transitions, plus hindsight copies when it failed.

        Returns how many transitions were added (relabelled ones included).
        """
        transitions = episode_transitions(episode)
        n = self.extend(transitions)
        if self.relabel == "none" or episode.success or not transitions:
            return n
        if transitions[0].goal is None:
            return n  # not a goal-conditioned env: nothing to relabel
        if self.relabel_ratio < 1 and self._rng.random() >= self.relabel_ratio:
            return n
        return n + self.extend(self.hindsight(transitions))

    def hindsight(self, transitions: Sequence[ReplayTransition]) -> list[ReplayTransition]:
        """The relabelled copies of one failed episode's transitions (in order)."""
        assert self.compute_reward is not None
        achieved = [t.achieved_goal for t in transitions]
        if self.relabel == "final":
            reached = [g for g in achieved if g]
            if not reached:
                return []
            return relabel(transitions, reached[-1], self.compute_reward)
        out: list[ReplayTransition] = []
        for i, t in enumerate(transitions):
            later = [g for g in achieved[i:] if g]
            if not later:
                continue
            for k in self._rng.integers(len(later), size=self.relabel_k):
                out += relabel([t], later[int(k)], self.compute_reward)
        return out

    def sample(self, batch_size: int) -> list[ReplayTransition]:
        """``batch_size`` transitions drawn uniformly, with replacement."""
        if not self._data:
            raise ValueError("cannot sample from an empty replay buffer; add episodes first")
        index = self._rng.integers(len(self._data), size=batch_size)
        return [self._data[int(i)] for i in index]

    def state_dict(self) -> dict[str, Any]:
        """Everything ``load_state_dict`` needs to continue exactly (contents and RNG)."""
        return {
            "capacity": self.capacity,
            "transitions": [t.to_dict() for t in self._data],
            "rng": self._rng.bit_generator.state,
            "added": self.added,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore contents, RNG and counters saved by ``state_dict``."""
        if state["capacity"] != self.capacity:
            raise ValueError(
                f"the saved buffer has capacity {state['capacity']}, this one {self.capacity}"
            )
        self._data = deque(
            (ReplayTransition.from_dict(t) for t in state["transitions"]), maxlen=self.capacity
        )
        self._rng.bit_generator.state = state["rng"]
        self.added = int(state["added"])

"""The record rollouts produce and trainers consume: ``Turn`` and ``Episode``.

An ``Episode`` stores its turns once; trainers read it through views derived on demand
(ARCHITECTURE.md section 7): ``samples()`` (one token sequence per trainable turn),
``packed()`` (one sequence for an append-only conversation) and ``transitions()``
((s, a, r, s', done) tuples for replay buffers). Episodes round-trip through plain
dicts and JSONL files (``save_jsonl`` / ``load_jsonl``: NumPy arrays become lists);
``turngym.sdk.episode_files`` stores them as datasets (JSONL or Parquet, arrays and
screenshots kept exactly, a versioned schema) and reads both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

__all__ = [
    "Decision",
    "Episode",
    "PackedSequence",
    "Sample",
    "Transition",
    "Turn",
    "load_jsonl",
    "save_jsonl",
]


@dataclass
class Turn:
    """One action of one agent, and what came of it.

    Scripted agents leave the token fields empty; LLM agents fill them so trainers can
    rebuild exactly what the model saw (``prompt_ids``) and produced (``action_ids``).

    Attributes:
        obs: what the env returned before the agent acted (str, chat messages or a
            game's ``{"text", "action_mask"}``).
        prompt_ids: the tokens the policy was conditioned on.
        action_ids: the tokens the policy generated (never an env token).
        action_logprobs: the behaviour policy's log-prob of each of ``action_ids``
            (empty when the backend reports none).
        action: the action string sent to the env.
        reward: the reward this action earned (in games: everything the agent received
            until its next turn or the end).
        terminated: the episode ended after this action (for this agent).
        truncated: the episode was cut after this action (time limit, forfeit).
        info: the env's info after the action (``invalid_action``, ``reward_parts``...).
        agent: who acted: ``"agent"`` in single-agent envs, the seat (``"player_0"``)
            in games.
        segment: the context segment (``info["segment"]`` of context wrappers).
        trainable: the turn came from a learnable policy (scripted opponents: False).
        candidates: the actions a candidate-scoring or guided-choice policy chose among.
        candidate_logprobs: its summed log-prob of each candidate.
        constrained: the action tokens were decoded restricted to ``candidates``
            (guided choice, ``turngym.sdk.choices``): trainers renormalise the same way.
        policy_version: the version of the weights that acted (trainers bump it).
        state_key: the env's ``info["state_key"]`` that came with ``obs`` (the state
            the turn acted from; ``info`` holds the one after it), None when the env
            gives none. GiGPO groups turns by it (``sdk.advantages.anchor_key``).

    Example:
        >>> Turn(obs="You are at the start.", action="right", reward=0.0).trainable
        False

    """

    obs: Any = None
    prompt_ids: list[int] = field(default_factory=list)
    action_ids: list[int] = field(default_factory=list)
    action_logprobs: list[float] = field(default_factory=list)
    action: str = ""
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    agent: str = "agent"
    segment: int = 0
    trainable: bool = False
    candidates: list[str] = field(default_factory=list)
    candidate_logprobs: list[float] = field(default_factory=list)
    constrained: bool = False
    policy_version: int = 0
    state_key: Any = None

    @property
    def done(self) -> bool:
        """The episode ended after this action (terminated or truncated)."""
        return self.terminated or self.truncated

    @property
    def wrapper_turn(self) -> bool:
        """A wrapper consumed the action (``info["wrapper_turn"]``), not the env.

        A summary, a memory call, a reasoning chunk: the env did not move, and the turn
        belongs to the env turn that follows it (ARCHITECTURE.md section 5).
        """
        return bool(self.info.get("wrapper_turn", False))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (NumPy arrays and scalars become lists and numbers)."""
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        """The inverse of ``to_dict`` (unknown keys are an error: they mean a newer format)."""
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown Turn fields {sorted(unknown)}; known: {sorted(names)}")
        return cls(**data)


@dataclass(frozen=True)
class Decision:
    """An agent's action and its own record of the turn, returned together.

    What an LLM agent's ``decide_batch`` returns, one per observation: the action the
    env gets and the ``Turn`` the agent filled (prompt and action tokens, log-probs,
    candidates). The rollout completes that same Turn with what the env says (reward,
    flags, info, seat); agents without ``decide_batch`` give actions only.

    >>> Decision("left").turn is None
    True
    """

    action: str
    turn: Turn | None = None


@dataclass(frozen=True)
class Sample:
    """One trainable turn as a token sequence (``Episode.samples``).

    Attributes:
        input_ids: ``prompt_ids + action_ids``.
        loss_mask: 1 on action tokens, 0 on prompt tokens.
        logprobs: the behaviour log-probs aligned with ``input_ids`` (0.0 on prompt
            tokens); empty when the turn has none.
        reward: the turn's reward.
        turn: the turn's index in ``Episode.turns``.
        agent: who acted.
        segment: the turn's context segment.

    """

    input_ids: list[int]
    loss_mask: list[int]
    logprobs: list[float]
    reward: float
    turn: int
    agent: str
    segment: int


@dataclass(frozen=True)
class PackedSequence:
    """A whole append-only conversation as one token sequence (``Episode.packed``).

    Attributes:
        input_ids: the last turn's ``prompt_ids + action_ids``, which contains every
            earlier prompt and action.
        loss_mask: 1 on the action tokens of trainable turns, 0 on env/user/template
            tokens.
        logprobs: behaviour log-probs aligned with ``input_ids`` (0.0 off the actions);
            empty when some turn has none.
        action_spans: ``(start, end)`` of each turn's action tokens in ``input_ids``.
        rewards: each turn's reward, in order.
        turns: each turn's index in ``Episode.turns``.
        agent: whose conversation this is.

    """

    input_ids: list[int]
    loss_mask: list[int]
    logprobs: list[float]
    action_spans: list[tuple[int, int]]
    rewards: list[float]
    turns: list[int]
    agent: str


@dataclass(frozen=True)
class Transition:
    """One (s, a, r, s', done) step of one agent (``Episode.transitions``).

    ``next_obs`` is the agent's next observation (its final one after the last turn).
    ``done`` is ``terminated or truncated``; bootstrap only when ``terminated`` is False.
    """

    obs: Any
    action: str
    reward: float
    next_obs: Any
    done: bool
    terminated: bool
    agent: str
    turn: int


@dataclass
class Episode:
    """One episode of one env or game, turn by turn.

    Attributes:
        env_id: the env or game id.
        seed: the seed the env was reset with.
        group: episodes with the same group share the seed/task (group baselines).
        turns: every agent's turns in the order they were played.
        returns: the total reward of each agent (``{"agent": ...}`` in single-agent
            envs, ``{"player_0": ..., "player_1": ...}`` in games).
        success: the task was solved (single-agent: the final ``info["success"]``;
            games: a seat played by a learnable agent won, any seat when none is).
        final_obs: each agent's observation after its last turn.
        index: the episode's number in its collection (the order episodes started).
        meta: anything else worth keeping (agent names per seat, ...).

    Example:
        >>> ep = Episode("turngym/Bandit-v0", seed=0, turns=[Turn(action="pull 1", reward=1.0)])
        >>> ep.returns, ep.length
        ({'agent': 1.0}, 1)

    """

    env_id: str
    seed: int | None = None
    group: int = 0
    turns: list[Turn] = field(default_factory=list)
    returns: dict[str, float] = field(default_factory=dict)
    success: bool = False
    final_obs: dict[str, Any] = field(default_factory=dict)
    index: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.returns and self.turns:
            returns: dict[str, float] = {}
            for turn in self.turns:
                returns[turn.agent] = returns.get(turn.agent, 0.0) + float(turn.reward)
            self.returns = returns

    @property
    def length(self) -> int:
        """The number of turns (all agents)."""
        return len(self.turns)

    @property
    def agents(self) -> list[str]:
        """The agents that acted, in order of their first turn."""
        return list(dict.fromkeys(t.agent for t in self.turns))

    def _indexed(self, agent: str | None) -> list[tuple[int, Turn]]:
        if agent is not None and agent not in self.agents:
            raise ValueError(f"no turns of agent {agent!r}; agents: {self.agents}")
        return [(k, t) for k, t in enumerate(self.turns) if agent is None or t.agent == agent]

    def samples(self, agent: str | None = None) -> list[Sample]:
        """One sequence per trainable turn: ``prompt_ids + action_ids``, loss on the action.

        Raises:
            ValueError: a trainable turn has no token ids (it was not played by an LLM).

        """
        out = []
        for k, t in self._indexed(agent):
            if not t.trainable:
                continue
            if not t.action_ids:
                raise ValueError(
                    f"turn {k} is trainable but has no action_ids; only turns of LLM agents "
                    "(which record token ids) can be trained on"
                )
            n_prompt, n_action = len(t.prompt_ids), len(t.action_ids)
            logprobs = [0.0] * n_prompt + list(t.action_logprobs) if t.action_logprobs else []
            out.append(
                Sample(
                    input_ids=[*t.prompt_ids, *t.action_ids],
                    loss_mask=[0] * n_prompt + [1] * n_action,
                    logprobs=logprobs,
                    reward=float(t.reward),
                    turn=k,
                    agent=t.agent,
                    segment=t.segment,
                )
            )
        return out

    def _conversation(self, agent: str | None) -> tuple[str, list[tuple[int, Turn]]]:
        """The one agent whose token turns ``packed`` joins, and those turns."""
        token_turns = [(k, t) for k, t in self._indexed(agent) if t.prompt_ids or t.action_ids]
        who = list(dict.fromkeys(t.agent for _, t in token_turns))
        if len(who) > 1:
            raise ValueError(
                f"turns of several agents {who} have token ids; pass agent= to pick one "
                "conversation"
            )
        if not token_turns:
            raise ValueError("no turn has token ids; only LLM agents' turns can be packed")
        return who[0], token_turns

    def _break(self, turns: list[tuple[int, Turn]]) -> str | None:
        """Why ``turns`` are not one append-only conversation, or None when they are."""
        prefix: list[int] = []
        for k, t in turns:
            if t.prompt_ids[: len(prefix)] != prefix:
                at = next(
                    (
                        i
                        for i, (a, b) in enumerate(zip(prefix, t.prompt_ids, strict=False))
                        if a != b
                    ),
                    min(len(prefix), len(t.prompt_ids)),
                )
                return (
                    f"turn {k}'s prompt does not extend the previous prompt + action "
                    f"(they differ at token {at})"
                )
            prefix = [*t.prompt_ids, *t.action_ids]
        return None

    def is_append_only(self, agent: str | None = None) -> bool:
        """Whether each token turn's prompt extends the previous prompt + action."""
        try:
            _, turns = self._conversation(agent)
        except ValueError:
            return False
        return self._break(turns) is None

    def packed(self, agent: str | None = None) -> PackedSequence:
        """The whole conversation as one sequence, env/user tokens masked.

        Raises:
            ValueError: the conversation is not append-only (a context wrapper rebuilt
                it, the chat template re-renders past actions differently, or the prompt
                is one turn only); check with ``is_append_only()`` or use ``samples()``.

        """
        who, turns = self._conversation(agent)
        why = self._break(turns)
        if why is not None:
            raise ValueError(
                f"episode is not append-only for {who}: {why}; use samples() for "
                "one sequence per turn"
            )
        last = turns[-1][1]
        input_ids = [*last.prompt_ids, *last.action_ids]
        loss_mask = [0] * len(input_ids)
        have_logprobs = all(t.action_logprobs or not t.action_ids for _, t in turns)
        logprobs = [0.0] * len(input_ids) if have_logprobs else []
        spans = []
        for _, t in turns:
            start = len(t.prompt_ids)
            end = start + len(t.action_ids)
            spans.append((start, end))
            if t.trainable:
                loss_mask[start:end] = [1] * (end - start)
            if have_logprobs and t.action_logprobs:
                logprobs[start:end] = list(t.action_logprobs)
        return PackedSequence(
            input_ids=input_ids,
            loss_mask=loss_mask,
            logprobs=logprobs,
            action_spans=spans,
            rewards=[float(t.reward) for _, t in turns],
            turns=[k for k, _ in turns],
            agent=who,
        )

    def transitions(self, agent: str | None = None) -> list[Transition]:
        """(s, a, r, s', done) per turn; s' is the same agent's next observation."""
        by_agent: dict[str, list[tuple[int, Turn]]] = {}
        for k, t in self._indexed(agent):
            by_agent.setdefault(t.agent, []).append((k, t))
        out = []
        for who, turns in by_agent.items():
            for j, (k, t) in enumerate(turns):
                last = j + 1 == len(turns)
                next_obs = self.final_obs.get(who) if last else turns[j + 1][1].obs
                out.append(
                    Transition(
                        obs=t.obs,
                        action=t.action,
                        reward=float(t.reward),
                        next_obs=next_obs,
                        done=t.done or last,
                        terminated=t.terminated,
                        agent=who,
                        turn=k,
                    )
                )
        out.sort(key=lambda tr: tr.turn)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data = {f.name: _jsonable(getattr(self, f.name)) for f in fields(self) if f.name != "turns"}
        data["turns"] = [t.to_dict() for t in self.turns]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Episode:
        """The inverse of ``to_dict``."""
        data = dict(data)
        turns = [Turn.from_dict(t) for t in data.pop("turns", [])]
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown Episode fields {sorted(unknown)}; known: {sorted(names)}")
        return cls(turns=turns, **data)


def save_jsonl(episodes: Iterable[Episode], path: str | Path) -> int:
    """Write one episode per line to ``path``; returns how many were written.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "eps.jsonl")
    >>> save_jsonl([Episode("turngym/Bandit-v0", seed=3)], path)
    1
    >>> load_jsonl(path)[0].seed
    3
    """
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for ep in episodes:
            f.write(json.dumps(ep.to_dict(), ensure_ascii=False, allow_nan=True) + "\n")
            n += 1
    return n


def load_jsonl(path: str | Path) -> list[Episode]:
    """Read episodes written by ``save_jsonl``.

    Raises:
        ValueError: a line is not an episode (names the line).

    """
    out = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(Episode.from_dict(json.loads(line)))
            except (ValueError, TypeError) as error:
                raise ValueError(f"{path}:{lineno}: not an episode record ({error})") from None
    return out


def _jsonable(value: Any) -> Any:
    """``value`` with NumPy arrays/scalars and tuples turned into JSON types."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value  # json writes NaN as NaN, which json.loads reads back
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    tolist = getattr(value, "tolist", None)  # NumPy arrays and scalars, torch tensors
    if callable(tolist):
        return _jsonable(tolist())
    if isinstance(value, Sequence):
        return [_jsonable(v) for v in value]
    return str(value)

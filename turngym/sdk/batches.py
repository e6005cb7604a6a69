"""From Episodes and advantages to training sequences: filtering, packing, masking.

``select_groups`` drops groups that cannot teach anything (every advantage zero) and,
with ``keep_fraction < 1``, keeps only the groups whose returns vary most (RAGEN's
StarPO-S filtering). ``training_sequences`` turns each kept episode into token
sequences with a per-token advantage: one packed sequence per learner for an
append-only conversation (one forward pass per episode), else one sequence per turn
(when a context wrapper rebuilt the prompt); the choice is made per episode. An
episode a context wrapper cut short (a turn with ``info["overlong"]``) is masked whole,
as SUPO does: none of its turns trains, and ``without_overlong`` keeps it out of every
baseline (its group's mean and std, the batch's statistics). Turns decoded by
guided choice (``Turn.constrained``) carry, per action token, the tokens that were
allowed there, so the trainer renormalises over them; tokens that had no alternative
are masked (they were not a decision).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from turngym.sdk.advantages import seat_returns
from turngym.sdk.choices import ChoiceTree
from turngym.sdk.records import Episode, Turn

ChoiceIds = Callable[[Sequence[str]], list[list[int]]]
"""Maps a guided turn's candidates to the token sequences decoding chose among."""

__all__ = [
    "TrainSequence",
    "is_overlong",
    "select_groups",
    "training_sequences",
    "without_overlong",
]

Estimator = Callable[[Sequence[Episode]], list[list[float]]]
"""Episodes -> one advantage per turn (``turngym.sdk.advantages``)."""


@dataclass(frozen=True)
class TrainSequence:
    """One forward pass worth of training data.

    Attributes:
        input_ids: the tokens (prompt(s) and actions).
        loss_mask: 1 on the action tokens the loss is taken over, else 0.
        old_logprobs: the behaviour log-probs, aligned with ``input_ids`` (0.0 off the
            actions); empty when the episode carries none.
        advantages: per token, aligned with ``input_ids`` (0.0 where the mask is 0).
        episode: the episode's index in the batch.
        packed: whether it holds a whole conversation (else one turn).
        allowed: ``(position, token ids)`` for each loss position decoded by guided
            choice: the tokens the distribution was renormalised over there.

    """

    input_ids: list[int]
    loss_mask: list[int]
    old_logprobs: list[float]
    advantages: list[float]
    episode: int
    packed: bool
    allowed: list[tuple[int, list[int]]] = field(default_factory=list)


def is_overlong(episode: Episode) -> bool:
    """Whether a context wrapper cut ``episode`` short (a turn with ``info["overlong"]``)."""
    return any(turn.info.get("overlong") for turn in episode.turns)


def without_overlong(estimator: Estimator, episodes: Sequence[Episode]) -> list[list[float]]:
    """``estimator``'s advantages with the overlong episodes left out, as SUPO does.

    The estimator sees only the other episodes, so an overlong rollout counts in no
    baseline; its own turns get 0 (and ``training_sequences`` masks them all).

    >>> from turngym.sdk.advantages import grpo
    >>> eps = [Episode("x", group=0, turns=[Turn(reward=r)]) for r in (1.0, 0.0, 0.0)]
    >>> eps[2].turns[0].info["overlong"] = True
    >>> [[round(a, 3) for a in row] for row in without_overlong(grpo, eps)]
    [[1.0], [-1.0], [0.0]]
    """
    kept = [k for k, ep in enumerate(episodes) if not is_overlong(ep)]
    if len(kept) == len(episodes):
        return estimator(episodes)
    out = [[0.0] * ep.length for ep in episodes]
    if kept:
        for k, row in zip(kept, estimator([episodes[k] for k in kept]), strict=True):
            out[k] = row
    return out


def select_groups(
    episodes: Sequence[Episode],
    advantages: Sequence[Sequence[float]],
    keep_fraction: float = 1.0,
) -> list[int]:
    """Indices of the episodes worth training on, in order.

    Groups whose advantages are all zero are dropped. With ``keep_fraction < 1`` only
    that share of the remaining groups (at least one), those with the largest standard
    deviation of returns, is kept (StarPO-S). In games the spread is that of each seat's
    returns across the group, averaged over the seats (the sum over seats of a zero-sum
    game never varies).
    """
    if not 0 < keep_fraction <= 1:
        raise ValueError(f"keep_fraction must be in (0, 1], got {keep_fraction!r}")
    groups: dict[int, list[int]] = defaultdict(list)
    for k, ep in enumerate(episodes):
        groups[ep.group].append(k)
    useful = {
        g: members
        for g, members in groups.items()
        if any(a != 0 for k in members for a in advantages[k])
    }
    if keep_fraction < 1 and useful:

        def spread(members: list[int]) -> float:
            rows = [seat_returns(episodes[k]) for k in members]
            seats = list(dict.fromkeys(s for row in rows for s in row))
            total = 0.0
            for seat in seats:
                returns = [row[seat] for row in rows if seat in row]
                mean = sum(returns) / len(returns)
                total += sum((r - mean) ** 2 for r in returns) / len(returns)
            return total / max(1, len(seats))

        ranked = sorted(useful, key=lambda g: spread(useful[g]), reverse=True)
        keep = max(1, round(keep_fraction * len(ranked)))
        useful = {g: useful[g] for g in ranked[:keep]}
    return sorted(k for members in useful.values() for k in members)


def training_sequences(
    episodes: Sequence[Episode],
    advantages: Sequence[Sequence[float]],
    indices: Sequence[int] | None = None,
    choices: ChoiceIds | None = None,
) -> list[TrainSequence]:
    """The training sequences of ``episodes[indices]`` (default: all of them).

    Each learner (agent with trainable token turns) of an episode gives one packed
    sequence when its conversation is append-only, else one sequence per turn. A turn's
    advantage goes on its action tokens; every turn of an overlong episode is masked.
    ``choices`` rebuilds the candidate token sequences of guided turns (required when
    there are any; ``LLMAgent.choice_ids`` is one).
    """
    out: list[TrainSequence] = []
    for k in range(len(episodes)) if indices is None else indices:
        ep, adv = episodes[k], advantages[k]
        if len(adv) != ep.length:
            raise ValueError(f"episode {k} has {ep.length} turns but {len(adv)} advantages")
        learners = list(dict.fromkeys(t.agent for t in ep.turns if t.trainable and t.action_ids))
        for who in learners:
            if ep.is_append_only(who):
                out.append(_packed(ep, adv, k, who, choices))
            else:
                out += _per_turn(ep, adv, k, who, choices)
    return out


def _guide(
    turn: Turn, start: int, mask: list[int], choices: ChoiceIds | None
) -> list[tuple[int, list[int]]]:
    """The allowed tokens of a guided turn's action positions; forced tokens get masked."""
    if not turn.constrained:
        return []
    if choices is None:
        raise ValueError(
            "an episode has turns decoded by guided choice (Turn.constrained); pass "
            "choices= to rebuild their candidates' tokens"
        )
    tree = ChoiceTree(choices(turn.candidates))
    out = []
    for j, allowed in enumerate(tree.positions(turn.action_ids)):
        if len(allowed) < 2:
            mask[start + j] = 0
        elif mask[start + j]:
            out.append((start + j, allowed))
    return out


def _packed(
    ep: Episode, adv: Sequence[float], k: int, who: str, choices: ChoiceIds | None
) -> TrainSequence:
    seq = ep.packed(who)
    mask = list(seq.loss_mask)
    overlong = is_overlong(ep)
    per_token = [0.0] * len(seq.input_ids)
    allowed = []
    for (start, end), turn_index in zip(seq.action_spans, seq.turns, strict=True):
        turn = ep.turns[turn_index]
        if overlong:
            mask[start:end] = [0] * (end - start)
        if turn.trainable:
            allowed += _guide(turn, start, mask, choices)
        for j in range(start, end):
            per_token[j] = float(adv[turn_index]) if mask[j] else 0.0
    return TrainSequence(seq.input_ids, mask, list(seq.logprobs), per_token, k, True, allowed)


def _per_turn(
    ep: Episode, adv: Sequence[float], k: int, who: str, choices: ChoiceIds | None
) -> list[TrainSequence]:
    out = []
    overlong = is_overlong(ep)
    for sample in ep.samples(who):
        turn = ep.turns[sample.turn]
        mask = [0] * len(sample.loss_mask) if overlong else list(sample.loss_mask)
        allowed = _guide(turn, len(turn.prompt_ids), mask, choices)
        per_token = [float(adv[sample.turn]) if m else 0.0 for m in mask]
        out.append(
            TrainSequence(
                sample.input_ids, mask, list(sample.logprobs), per_token, k, False, allowed
            )
        )
    return out

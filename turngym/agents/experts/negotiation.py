"""Expert for ``SimpleNegotiation-v0``: a rule-based trader that uses only what it may know.

It reads its own holdings and values and the public history of the game, never the
other player's values or holdings. What the other player probably values is taken
from the published value scale (``BASE_VALUES``, the centre of everyone's values).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from turngym.agents.base import BaseAgent, game_of
from turngym.envs.games.negotiation import (
    BASE_VALUES,
    RESOURCES,
    START_QUANTITY,
    Counts,
    SimpleNegotiation,
    format_items,
    format_offer,
)

__all__ = ["NegotiationExpert", "best_offer"]

_EXPERT_STREAM = (0x4E60,)
_MAX_ASK = 5  # never ask for more of a resource than the other surely started with
_MAX_GIVE = 12


def _worth(counts: Counts, values: tuple[int, ...]) -> int:
    return sum(n * v for n, v in zip(counts, values, strict=True))


def best_offer(
    holdings: list[int],
    values: tuple[int, ...],
    their_floor: list[int],
    *,
    zero_sum: bool,
    declined: frozenset[tuple[Counts, Counts]] = frozenset(),
) -> tuple[Counts, Counts] | None:
    """The one-for-one trade (give units of one resource for units of another) to offer.

    Among trades that are fair or better for the other player at the published base
    values (so a sensible opponent may take them), that raise our value (and, in a
    zero-sum game, raise it more than the other's likely gain), pick the one that
    raises our value most; trades already declined come last. None: nothing fits.

    Args:
        holdings: our units of each resource.
        values: our value per unit of each resource.
        their_floor: units of each resource the other player surely holds.
        zero_sum: whether only beating the other's gain counts.
        declined: (give, get) offers of ours the other player did not take.

    >>> best_offer([9, 0, 0, 0, 0], (4, 10, 15, 25, 48), [5, 5, 5, 5, 5], zero_sum=True)
    ((8, 0, 0, 0, 0), (0, 0, 0, 0, 1))

    """
    n = len(RESOURCES)
    best: tuple[tuple[bool, int, int], Counts, Counts] | None = None
    for a in range(n):  # what we give
        for b in range(n):  # what we get
            if a == b or not holdings[a] or their_floor[b] <= 0:
                continue
            for h in range(1, min(_MAX_ASK, their_floor[b]) + 1):
                for g in range(1, min(_MAX_GIVE, holdings[a]) + 1):
                    gain = h * values[b] - g * values[a]
                    theirs = g * BASE_VALUES[a] - h * BASE_VALUES[b]
                    if gain <= 0 or theirs < 0 or (zero_sum and gain <= theirs):
                        continue
                    give = tuple(g if k == a else 0 for k in range(n))
                    get = tuple(h if k == b else 0 for k in range(n))
                    score = gain - theirs if zero_sum else gain
                    key = ((give, get) not in declined, score, -g)
                    if best is None or key > best[0]:
                        best = (key, give, get)
    return None if best is None else (best[1], best[2])


class NegotiationExpert(BaseAgent):
    """A rule-based negotiator for ``SimpleNegotiation`` that only plays valid actions.

    On its turn, for the player to move:

    1. An offer made to it is accepted when it holds what is asked, the trade raises
       its own value, and (``reward="zero_sum"``) raises it by more than the other
       player would gain at the published base values. Otherwise it is declined
       (by a counter-offer when there is one to make).
    2. It offers a one-for-one trade from ``best_offer``: what is cheap to it for what
       is dear to it, priced fairly at base values, asking for at most 5 units of a
       resource the other player is known to hold (everyone starts with 5+; accepted
       trades are public). An offer the other declined is not repeated while another
       fits.
    3. In its last turn (no reply could come) it only answers the open offer.

    Commands are always in the canonical form (``[Offer: 8 Wheat -> 1 Ore]``) with a
    short line of talk. Deterministic given the game; ``reset(seed)`` is kept for the
    agent protocol.
    """

    def __init__(self, env: Any, seed: int | None = None) -> None:
        self.game = game_of(env, SimpleNegotiation, "NegotiationExpert")
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the (unused, kept for the protocol) RNG."""
        self._rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=_EXPERT_STREAM))

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """Accept a good open offer, else make the best fair-looking offer, else decline."""
        game = self.game
        i = game.current
        values = game.values[i]
        holdings = game.holdings[i]
        offer = game.offer
        open_to_me = offer is not None and offer[0] != i
        if offer is not None and open_to_me:
            _, they_give, they_get = offer
            holds = all(n <= held for n, held in zip(they_get, holdings, strict=True))
            gain = _worth(they_give, values) - _worth(they_get, values)
            theirs = _worth(they_get, BASE_VALUES) - _worth(they_give, BASE_VALUES)
            if holds and gain > 0 and (not game.zero_sum or gain > theirs):
                return "That works for me. [Accept]"
        if game.turn + 1 < game.max_turns:  # someone can still answer an offer
            floor, declined = self._public_knowledge(i)
            trade = best_offer(holdings, values, floor, zero_sum=game.zero_sum, declined=declined)
            if trade is not None:
                give, get = trade
                return f"I can spare {format_items(give)}; I need {format_items(get)}. " + (
                    format_offer(give, get)
                )
        if open_to_me:
            return "No, thank you. [Deny]"
        return "Nothing more from me."

    def _public_knowledge(self, i: int) -> tuple[list[int], frozenset[tuple[Counts, Counts]]]:
        """What the other player surely holds, and our offers it did not take."""
        floor = [START_QUANTITY[0]] * len(RESOURCES)
        offers: dict[int, tuple[Counts, Counts]] = {}
        accepted: set[int] = set()
        for turn, player, kind, give, get in self.game.history:
            if kind == "accept":  # give/get from the accepting player's side
                sign = 1 if player == i else -1  # the other player gets what we give
                for k in range(len(RESOURCES)):
                    floor[k] += sign * (give[k] - get[k])
                accepted.add(turn - 1)
            elif kind == "offer" and player == i:
                offers[turn] = (give, get)
        declined = frozenset(o for t, o in offers.items() if t not in accepted)
        return floor, declined

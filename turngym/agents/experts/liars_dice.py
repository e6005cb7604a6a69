"""Expert for ``LiarsDice-v0``: bids and challenges by the binomial odds of each bid.

It looks only at what its seat may know: its own dice and how many dice each player
holds. For a bid "at least Q dice show F" it counts its own matching dice ``k``
(wild 1s included) and takes the other players' ``N`` dice as independent, each
matching with probability ``p`` (1/3 for faces 2-6 when 1s are wild, else 1/6), so

    P(bid true) = P(Binomial(N, p) >= Q - k).

Its turn: for each face, the bids from the smallest legal raise upward; a raise is
a candidate when its probability is within ``tolerance`` of the best raise's. It
challenges when the last bid is more likely false than the best raise is true
(``1 - P(last) > P(best raise)``); otherwise it makes the candidate raise with the
most dice (a face drawn at random among equals, with its own seeded RNG), which
pushes the next player as far as it safely can.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from turngym.agents.base import BaseAgent, game_of
from turngym.envs.games.liars_dice import FACES, LIAR, LiarsDice

__all__ = ["LiarsDiceExpert", "bid_probability"]

_EXPERT_STREAM = (0x11D1,)


@functools.lru_cache(maxsize=4096)
def _at_least(n: int, m: int, p: float) -> float:
    """P(Binomial(n, p) >= m)."""
    if m <= 0:
        return 1.0
    if m > n:
        return 0.0
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(m, n + 1))


def bid_probability(
    quantity: int, face: int, mine: tuple[int, ...], others: int, wild_ones: bool
) -> float:
    """The chance that at least ``quantity`` dice show ``face``, given one's own dice.

    Args:
        quantity: the dice the bid claims at least.
        face: the face it names.
        mine: one's own dice.
        others: how many dice the other players hold (unseen).
        wild_ones: whether 1s count as every face.

    >>> round(bid_probability(3, 4, (4, 4, 2), others=3, wild_ones=False), 4)  # 1 of 3 more
    0.4213

    """
    wild = wild_ones and face != 1
    own = sum(1 for d in mine if d == face or (wild and d == 1))
    return _at_least(others, quantity - own, 2 / FACES if wild else 1 / FACES)


class LiarsDiceExpert(BaseAgent):
    """Challenges unlikely bids, otherwise raises as high as the odds safely allow.

    Args:
        env: the ``LiarsDice`` game, wrapped or not, or a ``GameView`` of it.
        seed: seeds the RNG that picks among equally good faces.
        tolerance: raises whose probability is within this of the best raise's are
            candidates (0 to 1).

    Example:
        >>> from turngym.envs.games.liars_dice import LiarsDice
        >>> game = LiarsDice(dice=2)
        >>> game.reset(seed=0)
        >>> game.dice[0]
        (4, 6)
        >>> game.step("bid 4 6")  # player_0 claims four 6s: all dice, unlikely
        >>> LiarsDiceExpert(game, seed=0).act(None, game.infos["player_1"])
        'liar'

    """

    def __init__(self, env: Any, seed: int | None = None, tolerance: float = 0.05) -> None:
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)):
            raise ValueError(f"tolerance must be a number from 0 to 1, got {tolerance!r}")
        if not 0 <= tolerance <= 1:
            raise ValueError(f"tolerance must be a number from 0 to 1, got {tolerance!r}")
        self.game = game_of(env, LiarsDice, "LiarsDiceExpert")
        self.tolerance = float(tolerance)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the RNG that picks among equally good faces."""
        self._rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=_EXPERT_STREAM))

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """``liar`` or a bid (``bid Q F``) for the player to move."""
        game = self.game
        mine = game.dice[game.current]
        others = game.in_play - len(mine)
        wild = game.wild_ones
        raises: list[tuple[float, int, int]] = []  # (probability, quantity, face)
        last_q, last_f = game.bids[game.bid] if game.bid >= 0 else (0, FACES)
        for face in range(game.low_face, FACES + 1):
            for q in range(last_q + (face <= last_f), game.in_play + 1):
                p = bid_probability(q, face, mine, others, wild)
                raises.append((p, q, face))
                if p < 0.01:  # higher quantities only get less likely
                    break
        best = max(raises, default=(0.0, 0, 0))[0]
        if game.bid >= 0:
            last = bid_probability(last_q, last_f, mine, others, wild)
            if not raises or 1 - last > best:
                return LIAR
        floor = best - self.tolerance
        candidates = [(q, f) for p, q, f in raises if p >= floor]
        most = max(q for q, _ in candidates)
        faces = [f for q, f in candidates if q == most]
        return f"bid {most} {faces[int(self._rng.integers(len(faces)))]}"

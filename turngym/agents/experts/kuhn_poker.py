"""Expert for ``KuhnPoker-v0``: a Nash equilibrium strategy of Kuhn poker.

Kuhn (1950) found the equilibria: a one-parameter family for the first player
(``alpha`` in [0, 1/3]) against one strategy for the second. The first player's
expected value is -1/18 chip a hand for every ``alpha``. The probability of the
aggressive action (bet when no bet is out, call when facing one), by card J, Q, K:

    first player, opening:             bet  alpha, 0, 3 * alpha
    first player, after check-bet:     call 0, alpha + 1/3, 1
    second player, facing a bet:       call 0, 1/3, 1
    second player, after a check:      bet  1/3, 0, 1
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from turngym.agents.base import BaseAgent, game_of
from turngym.envs.games.kuhn_poker import KuhnPoker

__all__ = ["KuhnPokerExpert", "nash_strategy"]

_EXPERT_STREAM = (0x4B48,)
_AGGRESSIVE = {"": ("bet", "check"), "check": ("bet", "check")}
_FACING = ("call", "fold")


def nash_strategy(alpha: Fraction | float = Fraction(1, 3)) -> dict[str, tuple[Any, Any, Any]]:
    """The probability of betting (or calling) for each betting line and card J, Q, K.

    Lines are the hand's actions so far: ``""`` (first player opens), ``"check"``
    (second player after a check), ``"bet"`` (second player facing a bet) and
    ``"check bet"`` (first player facing a bet after checking).

    >>> nash_strategy(Fraction(1, 3))["check bet"]
    (0, Fraction(2, 3), 1)
    """
    third = Fraction(1, 3) if isinstance(alpha, Fraction) else 1 / 3
    return {
        "": (alpha, 0, 3 * alpha),
        "check bet": (0, alpha + third, 1),
        "bet": (0, third, 1),
        "check": (third, 0, 1),
    }


class KuhnPokerExpert(BaseAgent):
    """Plays Kuhn poker's Nash equilibrium for whichever player is to act.

    It reads only its own card and the public betting line of the hand (never the
    other player's card), and draws its mixed actions from its own seeded RNG.

    Args:
        env: the ``KuhnPoker`` game, wrapped or not, or a ``GameView`` of it.
        alpha: the first player's bluffing frequency with the J, in [0, 1/3] (it then
            bets the K with probability ``3 * alpha`` and calls with the Q with
            ``alpha + 1/3``); every value is an equilibrium.
        seed: seeds the RNG (``reset(seed)`` reseeds it).

    Example:
        >>> game = KuhnPoker()
        >>> expert = KuhnPokerExpert(game, seed=0)
        >>> game.reset(seed=6)  # player_0 holds the K and bets it (alpha = 1/3)
        >>> expert.act(None, game.infos["player_0"])
        'bet'

    """

    def __init__(self, env: Any, alpha: float = 1 / 3, seed: int | None = None) -> None:
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float, Fraction)):
            raise ValueError(f"alpha must be a number in [0, 1/3], got {alpha!r}")
        if not 0 <= alpha <= 1 / 3 + 1e-12:
            raise ValueError(f"alpha must be in [0, 1/3] (a Nash equilibrium), got {alpha!r}")
        self.game = game_of(env, KuhnPoker, "KuhnPokerExpert")
        self.alpha = float(alpha)
        self._strategy = {line: tuple(map(float, p)) for line, p in nash_strategy(alpha).items()}
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the RNG that mixes its actions."""
        self._rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=_EXPERT_STREAM))

    def action_probabilities(self, obs: Any, info: dict[str, Any]) -> dict[str, float]:
        """The equilibrium's probability of each legal action for the player to act.

        What ``act`` samples from; ``turngym.sdk.exploitability`` reads it.
        """
        game = self.game
        line = game.line
        p = self._strategy[line][game.cards[game.current]]  # its own card only
        strong, weak = _AGGRESSIVE.get(line, _FACING)
        return {strong: p, weak: 1.0 - p}

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """Bet/call or check/fold with the equilibrium probability for its card and line."""
        game = self.game
        line = game.line
        card = game.cards[game.current]  # its own card only
        p = self._strategy[line][card]
        strong, weak = _AGGRESSIVE.get(line, _FACING)
        if p >= 1.0:
            return strong
        if p <= 0.0:
            return weak
        return strong if self._rng.random() < p else weak

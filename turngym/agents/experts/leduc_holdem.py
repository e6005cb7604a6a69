"""Expert for ``LeducHoldem-v0``: a hand-strength heuristic (not an equilibrium).

It sorts its hand into strong, medium or weak from its own card and, in round 2,
the public card, and bets by that class:

    round 1: K strong, Q medium, J weak
    round 2: a pair with the public card strong; the best rank left without a pair
             (K, or Q when the public card is a K) medium; anything else weak

    strong: bet or raise when it can, else call
    medium: check with no bet out; call a bet or a raise
    weak:   check with no bet out; in round 1 call a bet but fold to a raise;
            in round 2 fold to any bet

It never bluffs and it is deterministic, so a good player can read it; it still
beats uniformly random play by a wide margin (see the tests for the measured rate).
"""

from __future__ import annotations

from typing import Any

from turngym.agents.base import BaseAgent, game_of
from turngym.envs.games.leduc_holdem import LeducHoldem

__all__ = ["LeducHoldemExpert", "hand_class"]

STRONG, MEDIUM, WEAK = "strong", "medium", "weak"


def hand_class(card: int, public: int | None) -> str:
    """``strong``, ``medium`` or ``weak``, from the player's card and the public card.

    ``public`` is None in round 1 (not shown yet). Cards are ``LeducHoldem`` indices:
    rank ``card // 2`` (0 = J, 1 = Q, 2 = K).

    >>> hand_class(4, None), hand_class(2, None), hand_class(0, 1)  # K, Q; J with a J public
    ('strong', 'medium', 'strong')
    """
    rank = card // 2
    if public is None:
        return (WEAK, MEDIUM, STRONG)[rank]
    public_rank = public // 2
    if rank == public_rank:
        return STRONG
    best_left = 1 if public_rank == 2 else 2  # the highest rank that is not the public's
    return MEDIUM if rank == best_left else WEAK


def choose(kind: str, stage: int, legal: tuple[str, ...] | list[str]) -> str:
    """The heuristic's action for a hand class, betting round (0 or 1) and legal actions.

    >>> choose("weak", 0, ("call", "raise", "fold")), choose("weak", 0, ("call", "fold"))
    ('call', 'fold')
    """
    if "check" in legal:  # no bet out
        return "bet" if kind == STRONG else "check"
    if kind == STRONG:
        return "raise" if "raise" in legal else "call"
    if kind == MEDIUM:
        return "call"
    # weak: a single bet in round 1 is worth calling (the public card may pair it)
    return "call" if stage == 0 and "raise" in legal else "fold"


class LeducHoldemExpert(BaseAgent):
    """Plays the hand-strength heuristic for whichever player is to act.

    It reads only its own card, the public card once it is shown, and the public
    betting (never the other player's card).

    Example:
        >>> game = LeducHoldem()
        >>> expert = LeducHoldemExpert(game)
        >>> game.reset(seed=0)  # player_0 holds a Q: medium in round 1, so it checks
        >>> expert.act(None, game.infos["player_0"])
        'check'

    """

    def __init__(self, env: Any, seed: int | None = None) -> None:
        self.game = game_of(env, LeducHoldem, "LeducHoldemExpert")

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The heuristic's action for the player to act."""
        game = self.game
        stage = game.stage
        public = game.public if stage else None  # hidden in round 1
        kind = hand_class(game.cards[game.current], public)
        return choose(kind, stage, game.legal_actions(game.current))

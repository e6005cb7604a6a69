"""``LeducHoldem-v0``: Leduc hold'em for two players, with real chip accounting.

The standard game of Southey et al. (2005), as in OpenSpiel and RLCard: six cards
(J, Q, K in two suits), an ante of 1 chip, one private card each, a betting round,
one public card, a second betting round; bets and raises are 2 chips in the first
round and 4 in the second, with at most two bets a round (a bet and one raise). A
pair with the public card beats everything, else the higher card wins, and equal
ranks split the pot. Each hand's net chip change is paid as its reward.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any, ClassVar

from turngym.envs.games.poker import PLAYERS, PokerGame

__all__ = ["BET_SIZES", "CARDS", "RANKS", "LeducHoldem", "strength"]

RANKS: tuple[str, ...] = ("J", "Q", "K")
SUITS: tuple[str, ...] = ("♠", "♥")
CARDS: tuple[str, ...] = tuple(f"{r}{s}" for r in RANKS for s in SUITS)
"""Card names by index: card ``c`` has rank ``c // 2`` (0 = J, 1 = Q, 2 = K)."""
BET_SIZES: tuple[int, int] = (2, 4)
"""The bet (and raise) size in betting round 1 and round 2."""


def strength(card: int, public: int) -> int:
    """Showdown strength: a pair with the public card (3-5) beats any high card (0-2).

    >>> strength(CARDS.index("Q♠"), CARDS.index("Q♥")) > strength(CARDS.index("K♠"), 2)
    True
    """
    rank = card // 2
    return rank + 3 if rank == public // 2 else rank


# The betting of one round is a line of actions; the legal actions after each line.
_LEGAL: dict[str, tuple[str, ...]] = {
    "": ("check", "bet"),
    "check": ("check", "bet"),
    "bet": ("call", "raise", "fold"),
    "check bet": ("call", "raise", "fold"),
    "bet raise": ("call", "fold"),
    "check bet raise": ("call", "fold"),
}
_DEALS: tuple[tuple[int, ...], ...] = tuple(permutations(range(6), 3))  # 120 ordered deals
_SAY = {
    (i, a, stage): f"{p} {verb}."
    for stage, size in enumerate(BET_SIZES)
    for i, p in enumerate(PLAYERS)
    for a, verb in (
        ("check", "checks"),
        ("bet", f"bets {size} chips"),
        ("raise", f"raises by {size} (puts in {2 * size} chips)"),
        ("call", f"calls {size} chips"),
        ("fold", "folds"),
    )
}


def _said(first: int, stage: int, actions: list[str]) -> str:
    return " ".join(_SAY[(first + k) % 2, a, stage] for k, a in enumerate(actions))


_BETTING = {  # what the view says of the round's betting, by first player, round and line
    (first, stage, line): line and f"\nThis round so far: {_said(first, stage, line.split(' '))}"
    for first in (0, 1)
    for stage in (0, 1)
    for line in _LEGAL
}
_ROUND = (
    f"Betting round 1 of 2 (bets and raises of {BET_SIZES[0]})",
    f"Betting round 2 of 2 (bets and raises of {BET_SIZES[1]})",
)
_TO_ACT = tuple(f"{p} to act." for p in PLAYERS)
_WHY_NOT = {
    "check": "there is a bet to call or fold to",
    "bet": "there is already a bet this round (to bet more, raise)",
    "call": "there is no bet to call",
    "fold": "there is no bet to fold to",
    "raise": "this round already has a bet and a raise (the most allowed)",
}


class LeducHoldem(PokerGame):
    """Leduc hold'em: 6 cards, ante 1, two betting rounds (bets 2, then 4), one public card.

    Actions: ``check``, ``bet``, ``call``, ``raise``, ``fold`` (any case; ``[call]``;
    ``raise`` means ``bet`` when no bet is out; ``pass`` means ``check``, or ``fold``
    when facing a bet). With no bet out a player checks or bets; facing a bet it
    calls, raises (once a round: a bet and one raise at most) or folds. A round ends
    when both check or a bet is called; a fold ends the hand. The same player acts
    first in both rounds of a hand: ``player_0`` in hand 1, then alternating.

    Args:
        rounds: hands per episode (default 1).
        starting_chips: each player's stack at the start; None: ``max(100, 13 * rounds)``.
            At least ``13 * rounds`` (a player loses at most 1 + 2 * 2 + 2 * 4 = 13 chips
            a hand).
        **kwargs: ``TextGame`` options (``invalid_action_penalty``,
            ``max_invalid_actions``, ``render_mode``). Too many invalid actions in a row
            fold the hand and end the episode.

    ``gym.make`` stops a seat's episode after 200 of its steps; pass ``max_episode_steps``
    for more hands than that allows.

    Example:
        >>> game = LeducHoldem()
        >>> game.reset(seed=87)
        >>> [CARDS[c] for c in (*game.cards, game.public)]  # player_0, player_1, public
        ['Q♥', 'J♠', 'Q♠']
        >>> for action in ["bet", "call", "bet", "call"]:  # player_0 pairs the public Q
        ...     game.step(action)
        >>> game.returns
        [7.0, -7.0]

    """

    metadata: ClassVar[dict[str, Any]] = {**PokerGame.metadata, "name": "leduc_holdem_v0"}
    action_names = ("check", "bet", "call", "raise", "fold")
    max_loss = 1 + 2 * BET_SIZES[0] + 2 * BET_SIZES[1]

    def __init__(
        self, *, rounds: int = 1, starting_chips: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(rounds=rounds, starting_chips=starting_chips, **kwargs)
        self._deal_news: dict[int, tuple[str, ...]] = {}
        hands = f"{rounds} hand{'s' * (rounds != 1)}"
        self._rules = (
            f"Leduc hold'em, {hands}, two players. The deck has six cards: J, Q and K in two "
            "suits (suits do not matter). Each hand both players ante 1 chip into the pot and "
            "get one private card. Then a betting round: with no bet out you may check or bet; "
            "facing a bet you may call (match it), raise (match it and bet again) or fold "
            "(give up the pot). At most two bets a round: a bet and one raise. The round "
            "ends when both check or a bet is called. Bets and raises are 2 chips in round "
            "1. Then one public card is shown and a second betting round follows with bets "
            "and raises of 4 chips. At the showdown a card that pairs the public card wins; "
            "otherwise the higher card wins (K > Q > J); equal ranks split the pot. Each "
            f"player starts with {self.starting_chips} chips; at the end of each hand your "
            "reward is your net chip change, so your score is the chips you win in all. "
            "player_0 acts first in both rounds of hand 1; the first player alternates from "
            "hand to hand. Actions: check, bet, call, raise, fold ('raise' with no bet out "
            "means bet; 'pass' means check, or fold when facing a bet)."
        )

    # -- the rules -----------------------------------------------------------------------

    def _deal(self) -> None:
        """Start hand ``self.hand``: antes, cards (two private, one public), first player."""
        hand = self.hand
        self.first = self.current = hand % 2
        c0, c1, public = _DEALS[self.random.below(120)]
        self.cards = [c0, c1]
        self.public = public  # shown after round 1
        self.stage = 0
        self.line = ""
        self.round1 = ""
        self._antes()
        news = self._deal_news.get(hand)
        if news is None:  # depends only on the hand number: built once per game object
            head = (
                f"Hand {hand + 1} of {self.rounds}: both players ante {self.ante} chip; "
                f"{PLAYERS[hand % 2]} acts first. You are dealt the "
            )
            news = self._deal_news[hand] = tuple(f"{head}{card}." for card in CARDS)
        self.tell(0, news[c0])
        self.tell(1, news[c1])

    def _legal_now(self) -> tuple[str, ...]:
        return _LEGAL[self.line]

    def _why_not(self, name: str) -> str:
        return _WHY_NOT[name]

    def _apply(self, action: str) -> None:
        i, stage, line = self.current, self.stage, self.line
        self.announce(_SAY[i, action, stage])
        if action == "fold":
            self._win(1 - i, f"{PLAYERS[1 - i]} wins the pot of {self.pot}")
            return
        size = BET_SIZES[stage]
        if action == "bet" or action == "call":
            self._post(i, size)
        elif action == "raise":
            self._post(i, 2 * size)  # calls the bet and bets again
        if action == "call" or (action == "check" and line == "check"):
            self._end_round([*line.split(" "), action] if line else [action])
        else:
            self.line = f"{line} {action}" if line else action
            self.current = 1 - i

    def _end_round(self, actions: list[str]) -> None:
        if self.stage == 1:
            self._showdown()
            return
        self.stage = 1
        self.line = ""
        self.current = self.first
        self.round1 = f"\nRound 1: {_said(self.first, 0, actions)}"
        self.announce(
            f"Round 1 is over. The public card is {CARDS[self.public]}. Round 2: bets and "
            f"raises of {BET_SIZES[1]}; {PLAYERS[self.first]} acts first."
        )

    def _showdown(self) -> None:
        c0, c1 = self.cards
        public = self.public
        s0, s1 = strength(c0, public), strength(c1, public)
        shown = (
            f"Showdown with the public {CARDS[public]}: player_0 shows {CARDS[c0]}"
            f"{' (a pair)' * (s0 > 2)}, player_1 shows {CARDS[c1]}{' (a pair)' * (s1 > 2)}"
        )
        if s0 == s1:
            self._split(f"{shown}; equal ranks split the pot of {self.pot}")
        else:
            winner = 0 if s0 > s1 else 1
            self._win(winner, f"{shown}; {PLAYERS[winner]} wins the pot of {self.pot}")

    # -- what players see ----------------------------------------------------------------

    def _view(self, i: int) -> str:
        other = PLAYERS[1 - i]
        if self.over:
            return (
                f"You are {PLAYERS[i]}. Final stacks: you {self.stacks[i]}, {other} "
                f"{self.stacks[1 - i]} (your net: {self.net[i]:+d})."
            )
        current, stage = self.current, self.stage
        public = CARDS[self.public] if stage else "not shown yet"
        turn = "Your turn." if current == i else _TO_ACT[current]
        return (
            f"You are {PLAYERS[i]}, hand {self.hand + 1} of {self.rounds}; your card: "
            f"{CARDS[self.cards[i]]}; public card: {public}.\n{_ROUND[stage]}. Pot: "
            f"{self.pot} (you put in {self.put[i]}, {other} {self.put[1 - i]}). Stacks: you "
            f"{self.stacks[i]}, {other} {self.stacks[1 - i]}.{self.round1}"
            f"{_BETTING[self.first, stage, self.line]}\n{turn}"
        )

    def _render(self) -> str:
        if self.over:
            return self._final()
        c0, c1 = self.cards
        return (
            f"Hand {self.hand + 1}/{self.rounds}, round {self.stage + 1}: player_0 {CARDS[c0]} "
            f"(stack {self.stacks[0]}, in {self.put[0]}), player_1 {CARDS[c1]} (stack "
            f"{self.stacks[1]}, in {self.put[1]}), public {CARDS[self.public]}"
            f"{'' if self.stage else ' (hidden)'}; pot {self.pot}; betting: {self.line or '-'}; "
            f"{PLAYERS[self.current]} to act"
        )

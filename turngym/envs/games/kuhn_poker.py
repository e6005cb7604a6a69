"""``KuhnPoker-v0``: Kuhn's three-card poker for two players, with real chip accounting.

A deck of J, Q and K; each hand both players ante 1 chip and get one private card;
one betting round with bets of 1 chip; the higher card wins the pot at a showdown.
Each player has a chip stack; every hand's net chip change is paid as that hand's
reward, so an episode's return is the chips won over its ``rounds`` hands.
"""

from __future__ import annotations

from typing import Any, ClassVar

from turngym.envs.games.poker import PLAYERS, PokerGame

__all__ = ["RANKS", "KuhnPoker"]

RANKS: tuple[str, ...] = ("J", "Q", "K")
"""Card names by rank: 0 = J (lowest), 1 = Q, 2 = K (highest)."""
BET = 1

# The betting of a hand is a line of actions; the legal actions after each line:
_LEGAL: dict[str, tuple[str, ...]] = {
    "": ("check", "bet"),
    "check": ("check", "bet"),
    "bet": ("call", "fold"),
    "check bet": ("call", "fold"),
}
_DEALS: tuple[tuple[int, int], ...] = ((0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1))
_SAY = {
    (i, a): f"{p} {verb}."
    for i, p in enumerate(PLAYERS)
    for a, verb in (
        ("check", "checks"),
        ("bet", f"bets {BET} chip"),
        ("call", f"calls {BET} chip"),
        ("fold", "folds"),
    )
}
_BETTING = {  # what the view says of the hand's betting, by first player and line
    (first, line): line
    and "\nThis hand so far: "
    + " ".join(_SAY[(first + k) % 2, a] for k, a in enumerate(line.split(" ")))
    for first in (0, 1)
    for line in _LEGAL
}
_TO_ACT = tuple(f"{p} to act." for p in PLAYERS)
_POTS = (2, 3, 4)  # antes only; a bet and a fold; a bet and a call
_FOLDED = {(w, pot): f"{PLAYERS[w]} wins the pot of {pot}" for w in (0, 1) for pot in _POTS}
_SHOWDOWN = {
    (c0, c1, pot): f"Showdown: player_0 shows {RANKS[c0]}, player_1 shows {RANKS[c1]}; "
    f"{PLAYERS[0 if c0 > c1 else 1]} wins the pot of {pot}"
    for c0, c1 in _DEALS
    for pot in _POTS
}
_WHY_NOT = {
    "check": "there is a bet to call or fold to",
    "bet": "there is already a bet (one bet a hand)",
    "call": "there is no bet to call",
    "fold": "there is no bet to fold to",
    "raise": "Kuhn poker has no raises (one bet a hand)",
}


class KuhnPoker(PokerGame):
    """Kuhn poker: J < Q < K, ante 1, one bet of 1 chip, higher card wins at showdown.

    Actions: ``check``, ``bet``, ``call``, ``fold`` (any case; ``[bet]``; ``raise``
    means ``bet`` when a bet is legal; ``pass`` means ``check``, or ``fold`` when
    facing a bet). The first player of a hand may check or bet; after a check the
    second may check (showdown) or bet; facing a bet a player calls (showdown) or
    folds (the bettor takes the pot). ``player_0`` acts first in hand 1, and the first
    player alternates from hand to hand.

    Args:
        rounds: hands per episode (default 1).
        starting_chips: each player's stack at the start; None: ``max(100, 2 * rounds)``.
            At least ``2 * rounds`` (a player loses at most 2 chips a hand).
        **kwargs: ``TextGame`` options (``invalid_action_penalty``,
            ``max_invalid_actions``, ``render_mode``). Too many invalid actions in a row
            fold the hand and end the episode.

    ``gym.make`` stops a seat's episode after 100 of its steps; pass ``max_episode_steps``
    for more hands than that allows.

    Example:
        >>> game = KuhnPoker()
        >>> game.reset(seed=6)
        >>> game.cards  # player_0 holds the K, player_1 the J
        [2, 0]
        >>> game.step("bet")
        >>> game.step("call")
        >>> game.returns
        [2.0, -2.0]
        >>> "player_1 shows J; player_0 wins the pot of 4" in game.observe("player_1")["text"]
        True

    """

    metadata: ClassVar[dict[str, Any]] = {**PokerGame.metadata, "name": "kuhn_poker_v0"}
    action_names = ("check", "bet", "call", "fold")
    max_loss = 2

    def __init__(
        self, *, rounds: int = 1, starting_chips: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(rounds=rounds, starting_chips=starting_chips, **kwargs)
        self._deal_news: dict[int, tuple[str, ...]] = {}
        self._views: dict[tuple[int, int, int, str, int, int], str] = {}
        hands = f"{rounds} hand{'s' * (rounds != 1)}"
        self._rules = (
            f"Kuhn poker, {hands}, two players. The deck has three cards: J < Q < K. Each "
            "hand both players ante 1 chip into the pot and get one private card. The first "
            "player may check or bet 1 chip. After a check, the second player may check "
            "(showdown) or bet 1 chip. Facing a bet, a player may call (put in 1 chip; "
            "showdown) or fold (the bettor takes the pot). At the showdown the higher card "
            f"takes the pot. Each player starts with {self.starting_chips} chips; at the end "
            "of each hand your reward is your net chip change, so your score is the chips you "
            "win in all. player_0 acts first in hand 1 and the first player alternates from "
            "hand to hand. Actions: check, bet, call, fold ('raise' means bet; 'pass' means "
            "check, or fold when facing a bet)."
        )

    # -- the rules -----------------------------------------------------------------------

    def _deal(self) -> None:
        """Start hand ``self.hand``: antes, cards, and the first player."""
        hand = self.hand
        self.first = self.current = hand % 2
        self.cards = cards = list(_DEALS[self.random.below(6)])
        self.line = ""
        self._antes()
        news = self._deal_news.get(hand)
        if news is None:  # depends only on the hand number: built once per game object
            head = (
                f"Hand {hand + 1} of {self.rounds}: both players ante {self.ante} chip; "
                f"{PLAYERS[hand % 2]} acts first. You are dealt the "
            )
            news = self._deal_news[hand] = tuple(f"{head}{rank}." for rank in RANKS)
        self.tell(0, news[cards[0]])
        self.tell(1, news[cards[1]])

    def _legal_now(self) -> tuple[str, ...]:
        return _LEGAL[self.line]

    def _legal_state(self) -> str:
        return self.line  # the betting line is all the legal actions depend on

    def _why_not(self, name: str) -> str:
        return _WHY_NOT[name]

    def _apply(self, action: str) -> None:
        i = self.current
        self.announce(_SAY[i, action])
        line = self.line
        if action == "fold":
            self._win(1 - i, _FOLDED[1 - i, self.pot])
            return
        if action != "check":  # bet or call
            self._post(i, BET)
        if action == "call" or (action == "check" and line == "check"):
            c0, c1 = self.cards
            self._win(0 if c0 > c1 else 1, _SHOWDOWN[c0, c1, self.pot])
        else:
            self.line = f"{line} {action}" if line else action
            self.current = 1 - i

    # -- what players see ----------------------------------------------------------------

    def _view(self, i: int) -> str:
        other = PLAYERS[1 - i]
        if self.over:
            return (
                f"You are {PLAYERS[i]}. Final stacks: you {self.stacks[i]}, {other} "
                f"{self.stacks[1 - i]} (your net: {self.net[i]:+d})."
            )
        stacks = self.stacks
        # The hand, the line and the stacks fix the pot, the bets and who acts; a view
        # is seen again and again across games, and formatting it was a third of a step.
        key = (i, self.hand, self.cards[i], self.line, stacks[0], stacks[1])
        text = self._views.get(key)
        if text is None:
            current, put = self.current, self.put
            turn = "Your turn." if current == i else _TO_ACT[current]
            text = (
                f"You are {PLAYERS[i]}, hand {self.hand + 1} of {self.rounds}; your card: "
                f"{RANKS[self.cards[i]]}.\nPot: {self.pot} (you put in {put[i]}, {other} "
                f"{put[1 - i]}). Stacks: you {stacks[i]}, {other} {stacks[1 - i]}."
                f"{_BETTING[self.first, self.line]}\n{turn}"
            )
            if len(self._views) < 100_000:
                self._views[key] = text
        return text

    def _render(self) -> str:
        if self.over:
            return self._final()
        c0, c1 = self.cards
        return (
            f"Hand {self.hand + 1}/{self.rounds}: player_0 {RANKS[c0]} (stack {self.stacks[0]}, "
            f"in {self.put[0]}), player_1 {RANKS[c1]} (stack {self.stacks[1]}, in "
            f"{self.put[1]}); pot {self.pot}; betting: {self.line or '-'}; "
            f"{PLAYERS[self.current]} to act"
        )

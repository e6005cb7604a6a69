"""``PokerGame``: the chip accounting shared by turngym's two-player poker games.

Kuhn poker and Leduc hold'em differ in their decks and betting, not in how chips
move: each player has a stack, each hand starts with antes into the pot, bets move
chips from a stack into the pot, and the hand's winner takes the pot. The hand's
net chip change is paid as a reward when it ends (the two sum to exactly 0), so an
episode's return is the chips won over its ``rounds`` hands. ``check_invariants``
checks all of it after every step in the property tests.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any, ClassVar

from turngym.core import Invalid, normalize_action
from turngym.envs.games.base import TextGame

__all__ = ["PLAYERS", "PokerGame"]

PLAYERS = ("player_0", "player_1")
_STRIP = re.compile(r"[\s\[\](){}<>'\"`.,!:;*_]+")
_RESULTS: dict[tuple[str, int, int], str] = {}  # (hand result, winner, chips) -> the news


class PokerGame(TextGame[str]):
    """Two-player poker plumbing: stacks, pot, antes, payouts, hands and forfeits.

    A subclass sets ``max_loss`` (the most a player can lose in one hand) and
    ``ante``, writes ``_deal`` (``_antes()``, cards, ``self.line = ""``,
    ``self.current``), ``_legal_now`` (the legal actions as a tuple), ``_why_not``,
    ``_apply`` (ending a hand with ``_win`` or ``_split``), ``_view``, ``_render``
    and the rules text ``self._rules``.

    Args:
        rounds: hands per episode.
        starting_chips: each stack at the start; None: ``max(100, max_loss * rounds)``.
            It must be at least ``max_loss * rounds``, so no stack can run dry.
        **kwargs: ``TextGame`` options.

    """

    max_loss: ClassVar[int] = 0
    """The most chips one player can lose in one hand."""
    ante: ClassVar[int] = 1

    def __init__(
        self, *, rounds: int = 1, starting_chips: int | None = None, **kwargs: Any
    ) -> None:
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise ValueError(f"rounds must be an int >= 1 (hands per episode), got {rounds!r}")
        least = self.max_loss * rounds
        if starting_chips is None:
            starting_chips = max(100, least)
        if (
            isinstance(starting_chips, bool)
            or not isinstance(starting_chips, int)
            or starting_chips < least
        ):
            raise ValueError(
                f"starting_chips must be None or an int >= {self.max_loss} * rounds = {least} "
                f"(a player can lose {self.max_loss} chips a hand), got {starting_chips!r}"
            )
        super().__init__(**kwargs)
        self.rounds = rounds
        self.starting_chips = starting_chips
        self._rules = ""

    # -- chips ---------------------------------------------------------------------------

    def _start(self, options: dict[str, Any]) -> str:
        self.stacks = [self.starting_chips, self.starting_chips]
        self.pot = 0
        self.put = [0, 0]
        self.net = [0, 0]
        self.hand = 0
        self._deal()
        return self._rules

    def _post(self, i: int, amount: int) -> None:
        """Move ``amount`` chips from player ``i``'s stack into the pot."""
        self.stacks[i] -= amount
        self.put[i] += amount
        self.pot += amount

    def _antes(self) -> None:
        """Both players put the ante into the (empty) pot: the start of every hand."""
        ante = self.ante
        self.stacks[0] -= ante
        self.stacks[1] -= ante
        self.put = [ante, ante]
        self.pot = 2 * ante

    def _win(self, winner: int, text: str, *, last: bool = False) -> None:
        """``winner`` takes the pot; both are paid the hand's net; then the next hand."""
        loser = 1 - winner
        won = self.put[loser]
        self.stacks[winner] += self.pot
        self.net[winner] += won
        self.net[loser] -= won
        self.pay(winner, float(won))
        self.pay(loser, float(-won))
        news = _RESULTS.get((text, winner, won))
        if news is None:  # a few dozen texts in all; formatting them each hand cost more
            news = f"{text} ({PLAYERS[winner]} +{won}, {PLAYERS[loser]} -{won})."
            if len(_RESULTS) < 10_000:
                _RESULTS[text, winner, won] = news
        self._next_hand(news, last)

    def _split(self, text: str) -> None:
        """A tie: each player takes back what it put in (the bets are always equal)."""
        self.stacks[0] += self.put[0]
        self.stacks[1] += self.put[1]
        self.net[0] += self.put[0] - self.put[1]
        self.net[1] += self.put[1] - self.put[0]
        self._next_hand(f"{text} (+0 each).", last=False)

    def _next_hand(self, text: str, last: bool) -> None:
        """Announce the hand's result, then deal the next hand or finish the game."""
        self.announce(text)
        self.pot = 0
        self.put = [0, 0]
        self.hand += 1
        if self.hand < self.rounds and not last:
            self._deal()
        else:
            self.finish(self._final())

    def _final(self) -> str:
        net = self.net[0]
        hands = f"{self.hand} hand{'s' * (self.hand != 1)}"
        if net == 0:
            result = "a draw"
        else:
            result = f"{PLAYERS[0 if net > 0 else 1]} wins {abs(net)} chip{'s' * (abs(net) != 1)}"
        stacks = f"player_0 {self.stacks[0]}, player_1 {self.stacks[1]}"
        return f"Game over after {hands}: {result} (final stacks: {stacks})."

    def _forfeit(self, i: int) -> None:
        """Too many invalid actions in a row lose the match, whatever the score.

        The bets of the hand go back, then the forfeiter pays what takes it to
        ``max_loss * rounds`` chips down over the match (the most it could lose by
        playing every hand out), the other player that many up; the game ends. A player
        ahead in chips cannot keep its lead by quitting.
        """
        w = 1 - i
        for k in (0, 1):
            self.stacks[k] += self.put[k]
        self.pot, self.put = 0, [0, 0]
        owed = self.max_loss * self.rounds + self.net[i]  # net: the settled hands
        self.stacks[i] -= owed
        self.stacks[w] += owed
        self.net[i] -= owed
        self.net[w] += owed
        self.pay(i, float(-owed))
        self.pay(w, float(owed))
        self.hand += 1
        self.announce(
            f"{PLAYERS[i]} forfeits after too many invalid actions and loses the match "
            f"({PLAYERS[i]} -{owed}, {PLAYERS[w]} +{owed})."
        )
        self.finish(self._final())

    # -- actions -------------------------------------------------------------------------

    def _legal_now(self) -> tuple[str, ...]:
        raise NotImplementedError

    def _why_not(self, name: str) -> str:
        """Why ``name`` (an action name, or ``raise``) is not legal now."""
        raise NotImplementedError

    def _legal(self) -> list[str]:
        return list(self._legal_now())

    def _legal_state(self) -> Hashable:
        return self._legal_now()  # the legal set is all the legal entry depends on

    def _parse(self, action: str) -> str | Invalid:
        legal = self._legal_now()
        if action in legal:  # the fast path: a canonical legal action
            return action
        name = _STRIP.sub(" ", normalize_action(action)).strip()
        if name == "raise" and "bet" in legal:  # the first bet of a round
            name = "bet"
        elif name == "pass":  # Kuhn's word: check, or fold when facing a bet
            name = "check" if "check" in legal else "fold"
        if name not in self._exact and name != "raise":
            return Invalid(f"unknown action; legal now: {', '.join(legal)}")
        if name not in legal:
            why = self._why_not(name)
            return Invalid(f"{name} is not legal now: {why} (legal: {', '.join(legal)})")
        return name

    # -- checks --------------------------------------------------------------------------

    def check_invariants(self) -> str | None:
        """Chips conserved (stacks + pot), no negative stack, pot = this hand's bets."""
        if not self.agents and not self.over:
            return None
        start, stacks, put = self.starting_chips, self.stacks, self.put
        if stacks[0] + stacks[1] + self.pot != 2 * start:
            return f"chips not conserved: stacks {stacks} + pot {self.pot} != {2 * start}"
        if min(stacks) < 0:
            return f"a negative stack: {stacks}"
        if self.pot != put[0] + put[1]:
            return f"pot {self.pot} is not the sum of this hand's bets {put}"
        if any(stacks[k] + put[k] - start != self.net[k] for k in (0, 1)):
            return f"paid net {self.net} disagrees with stacks {stacks} and bets {put}"
        return None

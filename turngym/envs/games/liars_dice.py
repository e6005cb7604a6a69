"""``LiarsDice-v0``: Liar's Dice (Perudo) for 2-6 players with hidden dice.

Each round every player rolls its dice in secret. Players bid in turn on the dice
of everyone together ("bid 3 4": at least three 4s among all dice), each bid higher
than the last, until one calls "liar" on the previous bid: all dice are shown, and
the bidder (if the bid was false) or the challenger (if it was true) loses a die.
A player with no dice is out; the last player with dice wins (+1, the others share
-1). By default 1s are wild (they count as any face), so bids name faces 2-6.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from turngym.core import Invalid, normalize_action
from turngym.envs.games.base import TextGame

__all__ = ["LIAR", "LiarsDice", "bid_name", "parse_bid"]

LIAR = "liar"
"""The action that challenges the previous bid."""
FACES = 6
_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS: tuple[str, ...] = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen")
_TEENS += ("seventeen", "eighteen", "nineteen")
_WORDS: dict[str, int] = {w: k + 1 for k, w in enumerate(_UNITS)}
_WORDS.update({w: k + 10 for k, w in enumerate(_TEENS)})
_WORDS.update({"twenty": 20, "thirty": 30})
_WORDS.update({f"twenty{sep}{w}": 21 + k for k, w in enumerate(_UNITS) for sep in ("-", " ")})
_FACE_WORDS = {"one": 1, "ace": 1, "two": 2, "deuce": 2, "three": 3, "trey": 3}
_FACE_WORDS.update({"four": 4, "five": 5, "six": 6, "sixe": 6})
_QUANTITY = "|".join(sorted(_WORDS, key=len, reverse=True))
_FACE = "|".join(sorted(_FACE_WORDS, key=len, reverse=True))
_BID = re.compile(
    rf"(?:i )?(?:bid |raise (?:to )?|say )?(?P<q>[0-9]{{1,3}}|{_QUANTITY})"
    rf"(?: ?[x*×] ?| (?:of )?)(?P<f>[0-9]{{1,2}}|{_FACE})s?"
)
_LIAR_WORDS = frozenset(
    {"liar", "call liar", "i call liar", "call", "challenge", "call bluff", "bluff", "dudo"}
    | {"you are a liar", "youre a liar", "liar liar", "call the bid", "challenge the bid"}
)
_STRIP = re.compile(r"[.,!?:;\"()\[\]{}]+")


def parse_bid(text: str) -> tuple[int, int] | str | None:
    """Read a bid (``(quantity, face)``), ``"liar"``, or None from free text.

    >>> parse_bid("bid 3 4"), parse_bid("Three fours"), parse_bid("3x4"), parse_bid("call liar")
    ((3, 4), (3, 4), (3, 4), 'liar')
    """
    key = normalize_action(text).replace("'", "").replace("\u2019", "")
    key = " ".join(_STRIP.sub(" ", key).split())
    if key in _LIAR_WORDS:
        return LIAR
    match = _BID.fullmatch(key)
    if match is None:
        return None
    q, f = match.group("q"), match.group("f")
    return (int(q) if q.isascii() and q.isdigit() else _WORDS[q]), (
        int(f) if f.isascii() and f.isdigit() else _FACE_WORDS[f]
    )


def bid_name(quantity: int, face: int) -> str:
    """How a bid reads in the news: ``3 4s``, or ``one 4`` for a single die.

    >>> bid_name(3, 4), bid_name(1, 6)
    ('3 4s', 'one 6')
    """
    return f"one {face}" if quantity == 1 else f"{quantity} {face}s"


class LiarsDice(TextGame[int]):
    """Liar's Dice: bid on everyone's hidden dice, or call the last bidder a liar.

    Actions: ``bid Q F`` (at least ``Q`` dice among all players show face ``F``) for
    every ``Q`` up to the dice in the game and every face allowed (2-6 when 1s are
    wild, else 1-6), and ``liar``. Bids are ordered by quantity, then face: ``bid 3 5``
    beats ``bid 3 4`` and ``bid 4 2`` beats ``bid 3 6``. Also accepted: ``3 4``,
    ``3x4``, ``3 fours``, ``three 4s``, ``call liar``, ``challenge``, in any case.

    Args:
        num_players: 2 to 6.
        dice: dice each player starts with, 1 to 5.
        wild_ones: 1s count as every face (and bids name faces 2-6); False: 1s are
            an ordinary face that bids may name.
        invalid_action_penalty, max_invalid_actions, render_mode: see ``TextGame``.

    Example:
        >>> game = LiarsDice(dice=2)
        >>> game.reset(seed=0)
        >>> game.action_names[:3], game.action_names[-1]
        (('bid 1 2', 'bid 1 3', 'bid 1 4'), 'liar')
        >>> game.dice  # each player sees only its own
        [(4, 6), (2, 4)]
        >>> game.step("bid 2 4")  # player_0 bids two 4s
        >>> game.step("liar")  # player_1 challenges: there are two 4s, so it loses a die
        >>> game.counts, game.current
        ([2, 1], 1)

    """

    metadata: ClassVar[dict[str, Any]] = {**TextGame.metadata, "name": "liars_dice_v0"}
    player_counts = (2, 3, 4, 5, 6)

    def __init__(
        self,
        *,
        num_players: int = 2,
        dice: int = 5,
        wild_ones: bool = True,
        invalid_action_penalty: float = 0.0,
        max_invalid_actions: int | None = 3,
        render_mode: str | None = None,
    ) -> None:
        self.check_num_players(num_players)
        if isinstance(dice, bool) or not isinstance(dice, int) or not 1 <= dice <= 5:
            raise ValueError(f"dice (per player) must be an int from 1 to 5, got {dice!r}")
        if not isinstance(wild_ones, bool):
            raise ValueError(f"wild_ones must be True or False, got {wild_ones!r}")
        self.dice_per_player = dice
        self.wild_ones = wild_ones
        self.low_face = 2 if wild_ones else 1
        self.num_faces = FACES + 1 - self.low_face
        bids = [(q, f) for q in range(1, num_players * dice + 1) for f in range(self.low_face, 7)]
        self.bids: tuple[tuple[int, int], ...] = tuple(bids)
        """The bids in increasing order; bid ``k`` is ``action_names[k]``."""
        # The universe depends on the dice in the game, so it is set per instance.
        self.action_names = (*(f"bid {q} {f}" for q, f in bids), LIAR)
        self._liar = len(bids)
        self._says = tuple(bid_name(q, f) for q, f in bids)
        self._legal_lists: dict[tuple[int, int], list[str]] = {}
        super().__init__(
            num_players=num_players,
            invalid_action_penalty=invalid_action_penalty,
            max_invalid_actions=max_invalid_actions,
            render_mode=render_mode,
        )
        wild = (
            "1s are wild: they count as every face, so bids name faces 2-6"
            if wild_ones
            else "1s are an ordinary face (not wild); bids name faces 1-6"
        )
        self._rules = (
            f"Liar's Dice for {num_players} players ({', '.join(self.possible_agents)}), "
            f"{dice} {'die' if dice == 1 else 'dice'} each. Every round all players roll "
            "their dice in secret; you see only your own. Players act in turn order, "
            "skipping players who are out. On your turn raise the bid or call liar. A bid "
            "'bid Q F' claims that at least Q of all dice in play show face F; "
            f"{wild}. A raise must be higher: more dice, or as many dice of a higher face "
            "(bid 3 5 beats bid 3 4; bid 4 2 beats bid 3 6), and at most the number of "
            "dice in play. The first player of a round must bid. 'liar' challenges the "
            "previous bid: all dice are shown and counted; if the bid was false its "
            "bidder loses a die, if it was true the challenger does. The loser opens the "
            "next round (the next player in turn if the loser is out). A player with no "
            "dice is out; the last player with dice wins (+1; the others share -1). "
            "Answer 'bid Q F' (e.g. 'bid 3 4' for three 4s) or 'liar'."
        )

    # -- rules ---------------------------------------------------------------------------

    def _start(self, options: dict[str, Any]) -> str:
        self.counts = [self.dice_per_player] * self.n
        self.dice: list[tuple[int, ...]] = [()] * self.n
        self.round = 0
        self._new_round(0)
        return self._rules

    def _new_round(self, starter: int) -> None:
        """Roll everyone's dice, tell each player its own, and let ``starter`` open."""
        self.round += 1
        self.in_play = sum(self.counts)
        rolls = self.np_random.integers(1, FACES + 1, size=self.in_play).tolist()
        start = 0
        for p, count in enumerate(self.counts):
            self.dice[p] = tuple(sorted(rolls[start : start + count]))
            start += count
        self.bid = -1  # index into self.bids; -1 before the opening bid
        self.bidder = -1
        self.current = starter
        held = ", ".join(
            f"{a} {c}" for a, c in zip(self.possible_agents, self.counts, strict=True) if c
        )
        self._header = (
            f"Round {self.round}. Dice in play: {held} ({self.in_play} in all); "
            f"{'1s are wild' if self.wild_ones else '1s are not wild'}."
        )
        self._hands = [" ".join(map(str, roll)) for roll in self.dice]
        self._bid_line = f"No bid yet: {self.possible_agents[starter]} opens."
        self.announce(
            f"Round {self.round} starts with {self.in_play} dice in play; "
            f"{self.possible_agents[starter]} opens the bidding."
        )
        for p, hand in enumerate(self._hands):
            if hand:
                self.tell(p, f"Your dice this round: {hand}.")

    def _legal(self) -> list[str]:
        key = (self.bid, self.in_play)
        legal = self._legal_lists.get(key)
        if legal is None:
            legal = list(self.action_names[self.bid + 1 : self.in_play * self.num_faces])
            if self.bid >= 0:
                legal.append(LIAR)
            self._legal_lists[key] = legal
        return legal

    def _parse(self, action: str) -> int | Invalid:
        k = self._exact.get(action)
        if k is None:
            parsed = parse_bid(action)
            if parsed is None:
                return Invalid(
                    f"unknown action {action.strip()[:30]!r}; bid like 'bid 3 4' (at least "
                    "three 4s among all dice) or call 'liar'"
                )
            if isinstance(parsed, str):  # "liar"
                k = self._liar
            else:
                q, f = parsed
                if not 1 <= f <= FACES:
                    return Invalid(f"there is no face {f}; dice show 1-6")
                if f < self.low_face:
                    return Invalid("1s are wild, so bids name a face from 2 to 6")
                if not 1 <= q <= self.in_play:
                    return Invalid(
                        f"bid {q} {f} is not legal now: a bid names 1 to {self.in_play} dice "
                        f"(the dice in play)"
                    )
                k = (q - 1) * self.num_faces + f - self.low_face
        if k == self._liar:
            if self.bid < 0:
                return Invalid(
                    "liar is not legal now: there is no bid to challenge yet; open with a bid"
                )
            return k
        if k >= self.in_play * self.num_faces:
            q, f = self.bids[k]
            return Invalid(f"bid {q} {f} is not legal now: only {self.in_play} dice are in play")
        if k <= self.bid:
            q, f = self.bids[k]
            return Invalid(
                f"bid {q} {f} is not legal now: it must beat {self._bid_text()} (more dice, "
                "or as many dice of a higher face)"
            )
        return k

    def _apply(self, k: int) -> None:
        i = self.current
        name = self.possible_agents[i]
        if k != self._liar:
            self.bid, self.bidder = k, i
            self._bid_line = f"Current bid: {self._bid_text()}."
            self.announce(f"{name} bids {self._says[k]}.")
            self.current = self._next_active(i)
            return
        q, f = self.bids[self.bid]
        bidder = self.possible_agents[self.bidder]
        found = sum(1 for roll in self.dice for d in roll if d == f or (self.wild_ones and d == 1))
        shown = "; ".join(
            f"{a}: {hand}"
            for a, hand in zip(self.possible_agents, self._hands, strict=True)
            if hand
        )
        wild = " (counting wild 1s)" if self.wild_ones else ""
        loser = self.bidder if found < q else i
        verdict = "false" if found < q else "true"
        self.counts[loser] -= 1
        left = self.counts[loser]
        self.announce(
            f"{name} calls liar on {bidder}'s bid of {self._says[self.bid]}. The dice: {shown}. "
            f"There {'is' if found == 1 else 'are'} {found} {f}{'' if found == 1 else 's'}"
            f"{wild}: the bid was {verdict}, so {self.possible_agents[loser]} loses a die "
            f"({left} left)."
        )
        if not left:
            self.announce(f"{self.possible_agents[loser]} has no dice left and is out.")
        active = [p for p in range(self.n) if self.counts[p]]
        if len(active) == 1:
            winner = active[0]
            for p in range(self.n):
                self.pay(p, 1.0 if p == winner else -1.0 / (self.n - 1))
            self.dice = [()] * self.n
            self.finish(f"{self.possible_agents[winner]} is the last player with dice and wins.")
            return
        self._new_round(loser if left else self._next_active(loser))

    def _next_active(self, i: int) -> int:
        """The next player after ``i`` in turn order who still has dice."""
        p = (i + 1) % self.n
        while not self.counts[p]:
            p = (p + 1) % self.n
        return p

    def _bid_text(self) -> str:
        if self.bid < 0:
            return "no bid"
        q, f = self.bids[self.bid]
        return f"{self.possible_agents[self.bidder]}'s bid of {self._says[self.bid]} (bid {q} {f})"

    def _view(self, i: int) -> str:
        if self.over:
            return "The game is over."
        if not self.counts[i]:
            return f"{self._header}\nYou ({self.possible_agents[i]}) are out of dice."
        you = f"You are {self.possible_agents[i]}; your dice: {self._hands[i]}."
        return f"{self._header}\n{you}\n{self._bid_line}"

    def _render(self) -> str:
        hands = "\n".join(
            f"{a}: {' '.join(map(str, roll)) if roll else '(out)'}"
            for a, roll in zip(self.possible_agents, self.dice, strict=True)
        )
        if self.over:
            return f"Round {self.round}, game over.\n{hands}"
        to_move = f"{self.possible_agents[self.current]} to move"
        return f"Round {self.round}.\n{hands}\nBid: {self._bid_text()}; {to_move}."

    def check_invariants(self) -> str | None:
        """Dice counts match the rolls, bids stay in range, and the mover has dice."""
        for p, (count, roll) in enumerate(zip(self.counts, self.dice, strict=True)):
            if not 0 <= count <= self.dice_per_player:
                return f"player_{p} has {count} dice"
            if not self.over and len(roll) != count:
                return f"player_{p} holds {len(roll)} dice but counts {count}"
            if any(not 1 <= d <= FACES for d in roll):
                return f"player_{p} rolled {roll}"
        if self.over:  # a win or a forfeit: nothing moves any more
            return None
        if sum(1 for c in self.counts if c) < 2:
            return "fewer than two players with dice, yet the game goes on"
        if self.in_play != sum(self.counts):
            return f"in_play={self.in_play} but the counts sum to {sum(self.counts)}"
        if not self.counts[self.current]:
            return f"player_{self.current} is out but has the turn"
        if self.bid >= self.in_play * self.num_faces:
            return f"bid {self.bids[self.bid]} names more dice than are in play"
        if self.bid >= 0 and (self.bidder == self.current or not self.counts[self.bidder]):
            return f"bidder player_{self.bidder} cannot be challenged by player_{self.current}"
        return None

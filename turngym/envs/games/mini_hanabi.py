"""``MiniHanabi-v0``: a small cooperative Hanabi for 2-3 players.

The deck has ``num_colours`` colours (red, green, blue, yellow, white; 3 by default)
with ranks 1-3: three 1s, two 2s and one 3 of each colour (18 cards with 3 colours).
Each player holds ``hand_size`` cards that everyone else sees but it does not. On its
turn a player plays a card (it scores if it is the next rank of its colour's firework,
else a fuse burns), discards one (regaining a hint token), or spends a hint token to
tell another player which of its cards have one colour or one rank. Every played card
pays +1 to every player; losing the last fuse ends the game and takes the score back
(as in the official rules). The game ends after one more round once the deck is empty,
or when every firework is complete.
"""

from __future__ import annotations

import functools
import re
from typing import Any, ClassVar, NamedTuple

from turngym.core import Invalid, normalize_action, read_int
from turngym.envs.games.base import TextGame

__all__ = ["COLOURS", "MAX_RANK", "RANK_COPIES", "HintRecord", "MiniHanabi", "Move", "card_name"]

COLOURS: tuple[str, ...] = ("red", "green", "blue", "yellow", "white")
MAX_RANK = 3
RANK_COPIES: tuple[int, ...] = (3, 2, 1)
"""Copies of rank 1, 2 and 3 in each colour."""

_RANK_WORDS = {"1": 1, "2": 2, "3": 3, "one": 1, "two": 2, "three": 3, "ones": 1, "twos": 2}
_RANK_WORDS |= {"threes": 3, "1s": 1, "2s": 2, "3s": 3}
_VERBS = {
    "play": "play", "p": "play", "discard": "discard", "d": "discard", "drop": "discard",
    "toss": "discard", "hint": "hint", "clue": "hint", "tell": "hint", "h": "hint",
}  # fmt: skip
_FILLER = {
    "card", "cards", "slot", "my", "the", "a", "number", "no", "about", "to", "on", "colour",
    "color", "rank", "your", "of", "at", "position", "in", "is", "are", "with",
}  # fmt: skip
_PUNCTUATION = re.compile(r"[.,!:;()\[\]\"'#]+")
_PLAYER = re.compile(r"^(?:player_?|p)(\d)$")


class Move(NamedTuple):
    """A parsed action: ``play``/``discard`` a slot (0-based), or ``hint`` a player."""

    kind: str
    slot: int = -1
    target: int = -1
    colour: int = -1
    rank: int = 0


HintRecord = tuple[int, int, int, Move, tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def card_name(colour: int, rank: int) -> str:
    """``R1``, ``G3``: colour initial and rank.

    >>> card_name(2, 3)
    'B3'
    """
    return f"{COLOURS[colour][0].upper()}{rank}"


def _hint_name(target: str | None, value: str) -> str:
    return f"hint {value}" if target is None else f"hint {target} {value}"


@functools.lru_cache(maxsize=4096)  # (2**5 colour masks) x (2**3 rank masks) x colours
def _knowledge(num_colours: int, colours: int, ranks: int) -> str:
    one_colour = colours & (colours - 1) == 0
    one_rank = ranks & (ranks - 1) == 0
    colour = COLOURS[colours.bit_length() - 1] if one_colour else "?"
    rank = str(ranks.bit_length()) if one_rank else "?"
    nots = [] if one_colour else [COLOURS[c] for c in range(num_colours) if not colours >> c & 1]
    if not one_rank:
        nots += [str(r) for r in range(1, MAX_RANK + 1) if not ranks >> (r - 1) & 1]
    return f"{colour} {rank}" + (f"; not {', '.join(nots)}" if nots else "")


@functools.lru_cache(maxsize=64)
def _universe(n: int, colours: int, hand_size: int) -> tuple[tuple[str, ...], dict[str, Move]]:
    """The action names of a configuration, and the move each one stands for."""
    moves: dict[str, Move] = {}
    for slot in range(hand_size):
        moves[f"play {slot + 1}"] = Move("play", slot)
    for slot in range(hand_size):
        moves[f"discard {slot + 1}"] = Move("discard", slot)
    # With 2 players "hint red" goes to the partner (target -1: resolved when played).
    for target in [-1] if n == 2 else range(n):
        who = None if target < 0 else f"player_{target}"
        for c in range(colours):
            moves[_hint_name(who, COLOURS[c])] = Move("hint", target=target, colour=c)
        for r in range(1, MAX_RANK + 1):
            moves[_hint_name(who, str(r))] = Move("hint", target=target, rank=r)
    return tuple(moves), moves


class MiniHanabi(TextGame[Move]):
    """Cooperative Hanabi with ranks 1-3: build one firework per colour together.

    Actions (slot 1 is the oldest card in a hand; new cards go to the end):
    ``play N``, ``discard N``, and with 2 players ``hint <colour>`` / ``hint <rank>``
    (to the partner); with 3 players ``hint player_K <colour|rank>``. A hint costs a
    hint token and must touch at least one card; discarding needs a spent token (it
    regains one), and so does completing a firework. Lenient spellings: ``Play card
    2``, ``clue red``, ``hint 1s``, ``hint red to player_1``, ``d3``.

    Args:
        num_players: 2 or 3.
        num_colours: 2 to 5 colours (red, green, blue, yellow, white).
        hand_size: cards per hand, 2 to 5 (fewer than the cards in the deck).
        hint_tokens: hint tokens at the start and at most (8 by default).
        fuses: misplays that end the game (3 by default).
        **kwargs: ``TextGame`` options (``invalid_action_penalty``, ...).

    ``reset(options={"deck": ["R1", "G1", ...]})`` stacks the deck: every card named
    once, in dealing order (``player_0``'s hand first, slot 1 first, then the draws).

    Example:
        >>> game = MiniHanabi()
        >>> game.reset(seed=1)
        >>> game.infos["player_0"]["legal_actions"][:4]
        ['play 1', 'play 2', 'play 3', 'hint red']
        >>> game.step("hint red")
        >>> game.hints, game.agent_selection
        (7, 'player_1')
        >>> "player_0 hints player_1: red in slot" in game.observe("player_1")["text"]
        True

    """

    metadata: ClassVar[dict[str, Any]] = {**TextGame.metadata, "name": "mini_hanabi_v0"}
    player_counts = (2, 3)
    zero_sum = False
    cooperative = True

    def __init__(
        self,
        num_players: int = 2,
        num_colours: int = 3,
        hand_size: int = 3,
        hint_tokens: int = 8,
        fuses: int = 3,
        **kwargs: Any,
    ) -> None:
        self.check_num_players(num_players)
        for name, value, low, high in (
            ("num_colours", num_colours, 2, len(COLOURS)),
            ("hand_size", hand_size, 2, 5),
            ("hint_tokens", hint_tokens, 1, 16),
            ("fuses", fuses, 1, 10),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an int from {low} to {high}, got {value!r}")
        deck = num_colours * sum(RANK_COPIES)
        if num_players * hand_size >= deck:
            raise ValueError(
                f"{num_players} hands of {hand_size} need more than the {deck} cards of "
                f"{num_colours} colours; use fewer or smaller hands, or more colours"
            )
        self.num_colours = num_colours
        self.hand_size = hand_size
        self.max_hints = hint_tokens
        self.max_fuses = fuses
        self.max_score = num_colours * MAX_RANK
        self.action_names, self._moves = _universe(num_players, num_colours, hand_size)
        self._card_colour = [
            c for c in range(num_colours) for r in range(MAX_RANK) for _ in range(RANK_COPIES[r])
        ]
        self._card_rank = [
            r + 1
            for _ in range(num_colours)
            for r in range(MAX_RANK)
            for _ in range(RANK_COPIES[r])
        ]
        self._names = [
            card_name(c, r) for c, r in zip(self._card_colour, self._card_rank, strict=True)
        ]
        super().__init__(num_players=num_players, **kwargs)

    # -- the rules ---------------------------------------------------------------------

    def _start(self, options: dict[str, Any]) -> str:
        n_cards = len(self._card_colour)
        if "deck" in options:  # a stacked deck (tests, set positions)
            self.deck = self._stacked(options["deck"])
        else:
            self.deck = [int(k) for k in self.np_random.permutation(n_cards)]
        """Card ids; the next card drawn is the last."""
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        for hand in self.hands:
            for _ in range(self.hand_size):
                hand.append(self.deck.pop())
        all_colours = (1 << self.num_colours) - 1
        all_ranks = (1 << MAX_RANK) - 1
        self.maybe_colours = [all_colours] * n_cards
        """Per card id: a bit mask of the colours its holder cannot rule out."""
        self.maybe_ranks = [all_ranks] * n_cards
        """Per card id: a bit mask (bit r-1 for rank r) of the ranks not ruled out."""
        self.touched = [False] * n_cards
        self.fireworks = [0] * self.num_colours
        self.played: list[int] = []
        self.discards: list[int] = []
        self.hints = self.max_hints
        self.fuses = self.max_fuses
        self.turns_after_deck: int | None = None
        """Turns left once the deck is empty (None before)."""
        self.hint_log: list[HintRecord] = []
        """Public hints: (turn, giver, target, hint, touched ids, newly touched ids, the
        fireworks then), ids in hand order (oldest first)."""
        self.final_score: int | None = None
        self.current = 0
        return self._rules()

    def _stacked(self, names: Any) -> list[int]:
        """Card ids for card names in dealing order (hands first, player by player)."""
        free: dict[str, list[int]] = {}
        for k, card in enumerate(self._names):
            free.setdefault(card, []).append(k)
        ids: list[int] = []
        listed = isinstance(names, (list, tuple)) and len(names) == len(self._names)
        for name in names if listed else []:
            pool = free.get(name.upper()) if isinstance(name, str) else None
            if not pool:
                break
            ids.append(pool.pop())
        if len(ids) != len(self._names):
            raise ValueError(
                f"options['deck'] must list all {len(self._names)} cards (e.g. 'R1', "
                f"'G3'), each copy once, in dealing order; got {names!r}"
            )
        return ids[::-1]

    def identity(self, card: int) -> tuple[int, int]:
        """A card id's (colour index, rank)."""
        return self._card_colour[card], self._card_rank[card]

    def move_of(self, name: str) -> Move:
        """The move an action name stands for, for the player to move."""
        move = self._moves[name]
        return move._replace(target=1 - self.current) if move.target < 0 else move

    @property
    def score(self) -> int:
        """Cards on the fireworks now."""
        return len(self.played)

    def _rules(self) -> str:
        colours = ", ".join(COLOURS[: self.num_colours])
        hint_form = (
            "hint <colour> or hint <rank> (it goes to your partner)"
            if self.n == 2
            else "hint player_K <colour> or hint player_K <rank>"
        )
        return (
            f"Mini Hanabi, a cooperative card game for {self.n} players. The deck has "
            f"{colours} cards of ranks 1-3 (per colour three 1s, two 2s, one 3). Together "
            f"you build one firework per colour, 1 then 2 then 3; a perfect game scores "
            f"{self.max_score}. You hold {self.hand_size} cards: you see everyone else's "
            f"but not your own. Slot 1 is your oldest card; a new card goes to the end. "
            f"On your turn do one of:\n"
            f"  play N: play the card in slot N; if it is the next rank of its colour it "
            f"scores (+1 to every player), otherwise it is discarded and a fuse burns. "
            f"Completing a firework regains a hint token.\n"
            f"  discard N: discard it and regain a hint token (not while all "
            f"{self.max_hints} tokens are unspent).\n"
            f"  {hint_form}: spend a hint token to show a player all its cards of that "
            f"colour or rank (at least one).\n"
            f"After a play or discard you draw a card. {self.max_hints} hint tokens, "
            f"{self.max_fuses} fuses: when the last fuse burns the game ends and the "
            f"score is lost (every player is paid minus the score). Once the deck is "
            f"empty each player has one more turn. Everyone gets the same reward."
        )

    def _legal(self) -> list[str]:
        i = self.current
        hand = self.hands[i]
        names = [f"play {s + 1}" for s in range(len(hand))]
        if self.hints < self.max_hints:
            names += [f"discard {s + 1}" for s in range(len(hand))]
        if self.hints:
            for t in range(self.n):
                if t == i:
                    continue
                who = None if self.n == 2 else f"player_{t}"
                held = self.hands[t]
                colours = {self._card_colour[k] for k in held}
                ranks = {self._card_rank[k] for k in held}
                names += [_hint_name(who, COLOURS[c]) for c in sorted(colours)]
                names += [_hint_name(who, str(r)) for r in sorted(ranks)]
        return names

    def _parse(self, action: str) -> Move | Invalid:
        name = action if action in self._exact else self._canonical(action)
        if isinstance(name, Invalid):
            return name
        move = self.move_of(name)
        if name in self.legal_actions(self.current):
            return move
        return Invalid(f"{name} is not legal now: {self._why_not(move)}")

    def _canonical(self, action: str) -> str | Invalid:
        """A lenient spelling's action name (the universe's), or why it is unknown."""
        text = _PUNCTUATION.sub(" ", normalize_action(action))
        tokens = [t for t in text.split() if t not in _FILLER]
        if not tokens:
            return Invalid("unknown action; write play N, discard N or hint ...")
        if tokens[0] == "give" and len(tokens) > 1:  # "give a hint: red"
            tokens = tokens[1:]
        first = tokens[0]
        if first[0] in "pd" and first[1:].isdigit():  # p2, d3
            tokens = [first[0], first[1:], *tokens[1:]]
        verb = _VERBS.get(tokens[0])
        rest = tokens[1:]
        if verb in ("play", "discard"):
            if len(rest) == 1 and rest[0].isdecimal():
                name = f"{verb} {read_int(rest[0])}"
                if name in self._moves:
                    return name
                return Invalid(
                    f"{verb} {rest[0][:12]} names no slot; your hand has slots "
                    f"1-{self.hand_size} at most"
                )
            return Invalid(f"write {verb} N with a slot number, e.g. {verb} 1")
        if verb != "hint":
            return Invalid("unknown action; write play N, discard N or hint ...")
        target: int | None = None
        value: str | None = None
        k = 0
        while k < len(rest):
            token = rest[k]
            k += 1
            player = _PLAYER.match(token)
            if player:
                target = int(player.group(1))
                continue
            if token == "player" and k < len(rest) and rest[k].isdecimal():
                target = read_int(rest[k])
                if target is None:
                    return Invalid(f"there is no player_{rest[k][:12]}")
                k += 1
                continue
            colour = self._colour_word(token)
            rank = _RANK_WORDS.get(token)
            if value is not None or (colour is None and rank is None):
                return Invalid(
                    f"a hint names one colour ({', '.join(COLOURS[: self.num_colours])}) or "
                    f"one rank (1-{MAX_RANK}), and whom to hint as player_K"
                )
            value = COLOURS[colour] if colour is not None else str(rank)
        if value is None:
            return Invalid("a hint names a colour or a rank, e.g. hint red or hint 1")
        if target is not None and not 0 <= target < self.n:
            return Invalid(f"there is no player_{target}")
        if target == self.current:
            return Invalid("you cannot hint yourself")
        if self.n == 2:
            return _hint_name(None, value)
        if target is None:
            return Invalid(f"say whom to hint, e.g. hint player_{(self.current + 1) % 3} {value}")
        return _hint_name(f"player_{target}", value)

    def _colour_word(self, token: str) -> int | None:
        for c in range(self.num_colours):
            name = COLOURS[c]
            if token in (name, name + "s", name[0]):
                return c
        return None

    def _why_not(self, move: Move) -> str:
        hand = self.hands[self.current]
        if move.kind in ("play", "discard") and move.slot >= len(hand):
            return f"you hold {len(hand)} cards (slots 1-{len(hand)})"
        if move.kind == "discard":
            return (
                f"all {self.max_hints} hint tokens are unspent (discard regains one); "
                f"play or hint instead"
            )
        if move.target == self.current:
            return "you cannot hint yourself"
        if not self.hints:
            return "no hint tokens are left (discard or complete a firework to regain one)"
        what = COLOURS[move.colour] if move.colour >= 0 else str(move.rank)
        return f"player_{move.target} holds no {what} card (a hint must touch at least one)"

    def _apply(self, move: Move) -> None:
        i = self.current
        me = self.possible_agents[i]
        if move.kind == "hint":
            self._hint(i, move)
        else:
            hand = self.hands[i]
            card = hand.pop(move.slot)
            colour, rank = self._card_colour[card], self._card_rank[card]
            name = self._names[card]
            where = f"{name} from slot {move.slot + 1}"
            if move.kind == "play" and self.fireworks[colour] + 1 == rank:
                self.fireworks[colour] = rank
                self.played.append(card)
                for k in range(self.n):
                    self.pay(k, 1.0)
                news = f"{me} plays {where}: the {COLOURS[colour]} firework is at {rank} (+1)."
                if rank == MAX_RANK and self.hints < self.max_hints:
                    self.hints += 1
                    news += " It is complete: a hint token comes back."
                self.announce(news)
            elif move.kind == "play":
                self.discards.append(card)
                self.fuses -= 1
                self.announce(
                    f"{me} plays {where}, but the {COLOURS[colour]} firework is at "
                    f"{self.fireworks[colour]}: a fuse burns ({self.fuses} left)."
                )
            else:
                self.discards.append(card)
                self.hints += 1
                self.announce(f"{me} discards {where} and regains a hint token.")
            if self.deck:
                hand.append(self.deck.pop())
                if not self.deck:  # each player, this one too, gets one more turn
                    self.turns_after_deck = self.n + 1
                    self.announce(f"{me} draws the last card: each player has one more turn.")
        if self.turns_after_deck is not None:
            self.turns_after_deck -= 1
        if self.fuses == 0:
            lost = self.score
            for k in range(self.n):
                self.pay(k, -float(lost))
            self._end(0, f"The last fuse burns: the game is lost, and its {lost} points.")
        elif self.score == self.max_score:
            self._end(self.score, f"Every firework is complete: a perfect {self.max_score}!")
        elif self.turns_after_deck == 0:
            self._end(self.score, f"The final round is over: {self.score} of {self.max_score}.")
        else:
            self.current = (i + 1) % self.n

    def _end(self, score: int, text: str) -> None:
        self.final_score = score
        self.finish(text)

    def _hint(self, i: int, move: Move) -> None:
        t = move.target
        hand = self.hands[t]
        if move.colour >= 0:
            bit = 1 << move.colour
            hits = [self._card_colour[k] == move.colour for k in hand]
            for k, hit in zip(hand, hits, strict=True):
                self.maybe_colours[k] = bit if hit else self.maybe_colours[k] & ~bit
            what = COLOURS[move.colour]
        else:
            bit = 1 << (move.rank - 1)
            hits = [self._card_rank[k] == move.rank for k in hand]
            for k, hit in zip(hand, hits, strict=True):
                self.maybe_ranks[k] = bit if hit else self.maybe_ranks[k] & ~bit
            what = f"rank {move.rank}"
        touched = tuple(k for k, hit in zip(hand, hits, strict=True) if hit)
        newly = tuple(k for k in touched if not self.touched[k])
        for k in touched:
            self.touched[k] = True
        self.hints -= 1
        self.hint_log.append((self.turn, i, t, move, touched, newly, tuple(self.fireworks)))
        slots = [str(s + 1) for s, hit in enumerate(hits) if hit]
        where = f"slot {slots[0]}" if len(slots) == 1 else f"slots {', '.join(slots)}"
        self.announce(
            f"{self.possible_agents[i]} hints {self.possible_agents[t]}: {what} in {where}."
        )

    def _forfeit(self, i: int) -> None:
        """Too many invalid actions lose the game for everyone, as the last fuse would."""
        lost = self.score
        for k in range(self.n):
            self.pay(k, -float(lost))
        self.pay(i, -1.0)
        self._end(
            0,
            f"{self.possible_agents[i]} forfeits after too many invalid actions: the game "
            f"is lost, and its {lost} points.",
        )

    def success(self, agent: str) -> bool:
        """Whether the game ended with a perfect score (every firework complete)."""
        return self.over and self.final_score == self.max_score

    # -- what players see ------------------------------------------------------------

    def _known(self, card: int) -> str:
        """What a card's holder knows of it: ``red ?``, ``? 1; not red, green``."""
        return _knowledge(self.num_colours, self.maybe_colours[card], self.maybe_ranks[card])

    def _status(self) -> str:
        fireworks = ", ".join(f"{COLOURS[c]} {self.fireworks[c]}" for c in range(self.num_colours))
        discards = ", ".join(sorted(self._names[k] for k in self.discards)) or "none"
        deck = f"{len(self.deck)} card(s) in the deck"
        if self.turns_after_deck is not None and not self.over:
            deck = f"deck empty, {self.turns_after_deck} turn(s) left in the game"
        return (
            f"Score {self.score} of {self.max_score}; hint tokens {self.hints}/"
            f"{self.max_hints}; fuses {self.fuses}/{self.max_fuses}; {deck}.\n"
            f"Fireworks: {fireworks}.\nDiscarded: {discards}."
        )

    def _view(self, i: int) -> str:
        lines = [f"You are {self.possible_agents[i]}. {self._status()}"]
        mine = " | ".join(f"{s + 1}: {self._known(k)}" for s, k in enumerate(self.hands[i]))
        lines.append(f"Your hand (hidden from you; slot 1 is the oldest): {mine or 'empty'}")
        for t in range(1, self.n):
            other = (i + t) % self.n
            cards = " | ".join(
                f"{s + 1}: {self._names[k]} (knows {self._known(k)})"
                for s, k in enumerate(self.hands[other])
            )
            lines.append(f"{self.possible_agents[other]}'s hand: {cards or 'empty'}")
        return "\n".join(lines)

    def _render(self) -> str:
        lines = [self._status()]
        for i, name in enumerate(self.possible_agents):
            cards = " ".join(self._names[k] for k in self.hands[i])
            lines.append(f"{name}: {cards}")
        to_move = "game over" if self.over else f"{self.possible_agents[self.current]} to move"
        lines.append(to_move)
        return "\n".join(lines)

    def check_invariants(self) -> str | None:
        """Every card is in one place; tokens within bounds; fireworks match the plays."""
        places = self.deck + [k for hand in self.hands for k in hand] + self.discards + self.played
        if sorted(places) != list(range(len(self._card_colour))):
            return f"cards not conserved: {len(places)} placed of {len(self._card_colour)}"
        if not 0 <= self.hints <= self.max_hints:
            return f"hint tokens {self.hints} outside 0..{self.max_hints}"
        if not 0 <= self.fuses <= self.max_fuses:
            return f"fuses {self.fuses} outside 0..{self.max_fuses}"
        if any(len(hand) > self.hand_size for hand in self.hands):
            return "a hand holds too many cards"
        for c in range(self.num_colours):
            ranks = sorted(self._card_rank[k] for k in self.played if self._card_colour[k] == c)
            if ranks != list(range(1, self.fireworks[c] + 1)):
                return f"the {COLOURS[c]} firework {self.fireworks[c]} does not match plays {ranks}"
        return None

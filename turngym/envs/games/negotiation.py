"""``SimpleNegotiation-v0``: two players trade five resources they value privately.

Each player holds some Wheat, Wood, Sheep, Brick and Ore, and has its own private value
per unit of each. Over ``max_turns`` turns in total (alternating, ``player_0`` first)
they talk and trade. An action is free text with at most one bracketed command:
``[Offer: 2 Wood, 1 Sheep -> 3 Wheat]`` (what I give -> what I get), ``[Accept]`` or
``[Deny]``; the rest is talk, relayed to the other player. At the end each player's
value change is scored with its own values: ``reward="zero_sum"`` (default, as in
SPIRAL) pays +1 to the larger change and -1 to the other (0 each when equal);
``reward="value"`` pays each player its own value change (not zero-sum). A forfeit (too
many invalid actions) always loses the match: -1 in ``zero_sum``, and in ``value`` minus
the forfeiter's whole starting value, minus 1.
"""

from __future__ import annotations

import functools
import re
from typing import Any, ClassVar, NamedTuple

import numpy as np

from turngym.core import Invalid, normalize_action
from turngym.envs.games.base import TextGame

__all__ = [
    "BASE_VALUES",
    "RESOURCES",
    "Command",
    "Move",
    "SimpleNegotiation",
    "format_items",
    "format_offer",
    "parse_command",
]

RESOURCES: tuple[str, ...] = ("Wheat", "Wood", "Sheep", "Brick", "Ore")
BASE_VALUES: tuple[int, ...] = (5, 10, 15, 25, 40)
"""The centre of each resource's private values; each player's are within +-20%."""
START_QUANTITY = (5, 25)
"""Each player starts with 5 to 25 units of each resource (drawn independently)."""
REWARDS = ("zero_sum", "value")

Counts = tuple[int, ...]
"""Units of each resource, in ``RESOURCES`` order."""

_MAX_UNITS = 1000  # a larger quantity in an offer is a typo, not a trade
_MAX_TALK = 500  # relayed talk is cut here so observations stay short
_RESOURCE_WORDS = {name.lower(): k for k, name in enumerate(RESOURCES)} | {
    f"{name.lower()}s": k for k, name in enumerate(RESOURCES)
}
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_FILLER = {"x", "unit", "units", "of", "piece", "pieces"}
_ACCEPT = {"accept", "accepted", "accept offer", "accept the offer", "i accept", "agree", "deal"}
_DENY = {
    "deny", "denied", "deny offer", "i deny", "reject", "rejected", "reject offer",
    "decline", "declined", "decline offer", "refuse", "no deal",
}  # fmt: skip
_OFFER_WORDS = ("offer", "trade", "propose", "proposal")
_ARROWS = ("->", "\u2192", "=>", " for ")
_ITEM_SPLIT = re.compile(r"\s*(?:,|;|&|\+|\band\b)\s*")
_TOKENS = re.compile(r"\d+|[^\W\d_]+")
_HELP = "write [Offer: 2 Wood, 1 Sheep -> 3 Wheat] (what you give -> what you get)"


class Command(NamedTuple):
    """A parsed bracketed command: ``kind`` is ``offer``, ``accept`` or ``deny``."""

    kind: str
    give: Counts = ()
    get: Counts = ()


class Move(NamedTuple):
    """A parsed action: ``kind`` is ``talk``, ``offer``, ``accept`` or ``deny``."""

    kind: str
    give: Counts
    get: Counts
    talk: str


def format_items(counts: Counts) -> str:
    """``(0, 2, 1, 0, 0)`` -> ``"2 Wood, 1 Sheep"`` (``"nothing"`` when empty).

    >>> format_items((0, 2, 1, 0, 0))
    '2 Wood, 1 Sheep'
    """
    parts = [f"{n} {RESOURCES[k]}" for k, n in enumerate(counts) if n]
    return ", ".join(parts) or "nothing"


def format_offer(give: Counts, get: Counts) -> str:
    """The canonical command for an offer (what the offerer gives -> what it gets).

    >>> format_offer((0, 2, 1, 0, 0), (3, 0, 0, 0, 0))
    '[Offer: 2 Wood, 1 Sheep -> 3 Wheat]'
    """
    return f"[Offer: {format_items(give)} -> {format_items(get)}]"


def _parse_side(text: str, which: str) -> Counts | str:
    counts = [0] * len(RESOURCES)
    for item in _ITEM_SPLIT.split(text.strip()):
        if not item:
            continue
        amount: int | None = None
        resource: int | None = None
        for token in _TOKENS.findall(item):
            if token in _FILLER:
                continue
            if token.isdecimal():  # not isdigit(): int("²") raises
                number: int | None = int(token) if len(token) <= 6 else _MAX_UNITS + 1
            else:
                number = _NUMBER_WORDS.get(token)
            if number is not None:
                if amount is not None:
                    return f"{item!r} has two quantities; separate items with commas"
                amount = number
            elif token in _RESOURCE_WORDS:
                if resource is not None:
                    return f"{item!r} names two resources; separate items with commas"
                resource = _RESOURCE_WORDS[token]
            else:
                return f"unknown word {token!r} in {item!r} (the resources: {', '.join(RESOURCES)})"
        if resource is None:
            return f"{item!r} names no resource (the resources: {', '.join(RESOURCES)})"
        amount = 1 if amount is None else amount
        if not 1 <= amount <= _MAX_UNITS:
            return f"quantities must be whole numbers from 1 to {_MAX_UNITS}, got {amount}"
        counts[resource] += amount
    if not any(counts):
        return f"the offer names nothing on the {which} side"
    return tuple(counts)


@functools.lru_cache(maxsize=4096)
def parse_command(content: str) -> Command | str:
    """Read the text inside one pair of brackets leniently; a string says what is wrong.

    >>> parse_command("offer: 2 woods and a sheep -> 3 Wheat")
    Command(kind='offer', give=(0, 2, 1, 0, 0), get=(3, 0, 0, 0, 0))
    >>> parse_command(" ACCEPT ")
    Command(kind='accept', give=(), get=())
    """
    text = normalize_action(content).strip(" .!")
    if text in _ACCEPT:
        return Command("accept")
    if text in _DENY:
        return Command("deny")
    word = next((w for w in _OFFER_WORDS if text.startswith(w)), None)
    if word is None:
        return (
            f"unknown command [{content.strip()[:40]}]; use [Offer: ... -> ...], [Accept] or [Deny]"
        )
    body = text[len(word) :].lstrip(" :")
    for prefix in ("i give ", "i offer ", "give "):
        if body.startswith(prefix):
            body = body[len(prefix) :]
    arrow = next((a for a in _ARROWS if a in body), None)
    if arrow is None:
        return f"an offer needs '->' between what you give and what you get; {_HELP}"
    give_text, _, get_text = body.partition(arrow)
    if any(a in get_text for a in _ARROWS):
        return f"an offer has one '->'; {_HELP}"
    give = _parse_side(give_text, "give")
    if isinstance(give, str):
        return give
    get = _parse_side(get_text, "get")
    if isinstance(get, str):
        return get
    both = [RESOURCES[k] for k in range(len(RESOURCES)) if give[k] and get[k]]
    if both:
        return f"{both[0]} is on both sides of the offer"
    return Command("offer", give, get)


def _read(action: str) -> tuple[Command | None, str] | str:
    """Split an action into its command (or None) and its talk; a string is an error."""
    if "[" not in action and "]" not in action:
        return None, " ".join(action.split())  # one line: talk cannot fake game news
    commands: list[Command] = []
    talk: list[str] = []
    start = 0
    while True:
        open_at = action.find("[", start)
        close_at = action.find("]", start)
        if open_at < 0 and close_at < 0:
            talk.append(action[start:])
            break
        if open_at < 0 or 0 <= close_at < open_at:
            return "a ']' without its '['; square brackets are for commands only"
        if close_at < 0:
            return "a '[' without its ']'; square brackets are for commands only"
        content = action[open_at + 1 : close_at]
        if "[" in content:
            return "brackets inside brackets; write one command like [Accept]"
        talk.append(action[start:open_at])
        command = parse_command(content)
        if isinstance(command, str):
            return command
        commands.append(command)
        start = close_at + 1
    text = " ".join(" ".join(talk).split())
    if len(commands) == 2 and {c.kind for c in commands} == {"deny", "offer"}:
        commands = [c for c in commands if c.kind == "offer"]  # a counter-offer denies anyway
    if len(commands) > 1:
        kinds = ", ".join(f"[{c.kind.title()}]" for c in commands)
        return f"one command per turn, got {kinds}"
    return commands[0], text


def _pair_of_counts(value: Any, name: str, least: int) -> list[list[int]]:
    n = len(RESOURCES)
    ok = (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(row, (list, tuple)) and len(row) == n for row in value)
        and all(type(x) is int and x >= least for row in value for x in row)
    )
    if not ok:
        raise ValueError(
            f"options[{name!r}] must be two lists of {n} ints >= {least} (one per player, "
            f"in the order {', '.join(RESOURCES)}), got {value!r}"
        )
    return [list(row) for row in value]


class SimpleNegotiation(TextGame[Move]):
    """Two players trade resources they value privately; the bigger value gain wins.

    An action is free text with at most one command: ``[Offer: 2 Wood, 1 Sheep -> 3
    Wheat]`` (you give -> you get; spelled leniently: any case, plurals, ``and``,
    a bare name means 1), ``[Accept]`` or ``[Deny]`` (the offer made to you in the last
    turn). An offer stays open for the other player's next turn only; anything but
    ``[Accept]`` declines it. Talk outside the brackets is relayed to the other player.

    Args:
        max_turns: turns in the whole game (both players together), at least 2.
        reward: ``"zero_sum"`` (+1 to the larger value change, -1 to the other, 0 on a
            tie) or ``"value"`` (each player gets its own value change).
        **kwargs: ``TextGame`` options (``invalid_action_penalty``, ...).

    ``reset(options={"holdings": [[5 ints], [5 ints]], "values": [[...], [...]]})`` sets
    up a given position (units and values per player, in ``RESOURCES`` order).

    Example:
        >>> game = SimpleNegotiation(max_turns=2)
        >>> game.reset(seed=0)
        >>> game.holdings[0][1] >= 2 and game.holdings[1][0] >= 3
        True
        >>> game.step("I have spare wood. [Offer: 2 Wood -> 3 Wheat]")
        >>> "player_0 says: I have spare wood." in game.observe("player_1")["text"]
        True
        >>> game.step("Deal! [Accept]")
        >>> game.over, game.trades
        (True, 1)

    """

    metadata: ClassVar[dict[str, Any]] = {**TextGame.metadata, "name": "simple_negotiation_v0"}

    def __init__(self, max_turns: int = 10, reward: str = "zero_sum", **kwargs: Any) -> None:
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 2:
            raise ValueError(
                f"max_turns must be an int >= 2 (both players move), got {max_turns!r}"
            )
        if reward not in REWARDS:
            raise ValueError(f"reward must be 'zero_sum' or 'value', got {reward!r}")
        self.max_turns = max_turns
        self.reward_mode = reward
        self.zero_sum = reward == "zero_sum"
        super().__init__(**kwargs)

    # -- the rules ---------------------------------------------------------------------

    def _start(self, options: dict[str, Any]) -> str:
        rng = self.np_random
        n = len(RESOURCES)
        low, high = START_QUANTITY
        self.holdings = [[int(q) for q in rng.integers(low, high + 1, size=n)] for _ in range(2)]
        self.values = [
            tuple(
                round(b * (0.8 + 0.4 * u)) for b, u in zip(BASE_VALUES, rng.random(n), strict=True)
            )
            for _ in range(2)
        ]
        if "holdings" in options:  # a set position (tests, curricula)
            self.holdings = _pair_of_counts(options["holdings"], "holdings", 0)
        if "values" in options:
            self.values = [tuple(v) for v in _pair_of_counts(options["values"], "values", 1)]
        self.start_values = [self.value_of(i) for i in range(2)]
        self._totals = [self.holdings[0][k] + self.holdings[1][k] for k in range(n)]
        self.offer: tuple[int, Counts, Counts] | None = None
        """The open offer: (offerer, what it gives, what it gets), for the other's turn."""
        self.history: list[tuple[int, int, str, Counts, Counts]] = []
        """Public events: (turn, player, ``offer``/``accept``/``fail``/``deny``, give, get)."""
        self.trades = 0
        self._inventory: list[str | None] = [None, None]
        self.current = 0
        return self._rules()

    def _rules(self) -> str:
        base = ", ".join(f"{r} {v}" for r, v in zip(RESOURCES, BASE_VALUES, strict=True))
        if self.zero_sum:
            scoring = (
                "The player whose value grew more wins (+1, the other -1; equal changes: 0 each)."
            )
        else:
            scoring = "Each player's reward is its own value change."
        low, high = START_QUANTITY
        return (
            f"Simple Negotiation. Two players (player_0 and player_1) each hold Wheat, Wood, "
            f"Sheep, Brick and Ore ({low} to {high} units of each to start) and value each "
            f"unit privately: each player's values are drawn near {base}, within 20%, and "
            f"neither sees the other's values or holdings. Players take turns, player_0 "
            f"first, {self.max_turns} turns in all. At the end each player's value change "
            f"(holdings value at the end minus at the start, by its own values) is scored. "
            f"{scoring}\n"
            f"On your turn write anything (talk is passed on to the other player) with at "
            f"most one command in square brackets:\n"
            f"  [Offer: 2 Wood, 1 Sheep -> 3 Wheat]  offer to give 2 Wood and 1 Sheep for "
            f"3 Wheat; you must hold what you give.\n"
            f"  [Accept]  accept the offer the other player made in its last turn; the "
            f"trade happens if both still hold the resources.\n"
            f"  [Deny]  decline that offer (so does a counter-offer or anything but "
            f"[Accept]).\n"
            f"An offer is open for the other player's next turn only, so an offer in the "
            f"last turn cannot be accepted. Square brackets are for commands only."
        )

    def _legal(self) -> list[str]:
        return []  # free-form: the text says what to write

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random well-formed move: an offer of what the player holds, a reply, or talk."""
        i = self.current
        open_to_me = self.offer is not None and self.offer[0] != i
        kind = int(rng.integers(4))
        if kind == 0 and open_to_me:
            return "Fine. [Accept]"
        if kind == 1 and open_to_me:
            return "[Deny]"
        a, b = (int(k) for k in rng.choice(len(RESOURCES), 2, replace=False))
        held = self.holdings[i][a]
        if kind == 2 or not held:
            return "Let us talk."
        give = [0] * len(RESOURCES)
        get = [0] * len(RESOURCES)
        give[a] = int(rng.integers(1, held + 1))
        get[b] = int(rng.integers(1, 6))
        return f"How about this? {format_offer(tuple(give), tuple(get))}"

    def _parse(self, action: str) -> Move | Invalid:
        read = _read(action)
        if isinstance(read, str):
            return Invalid(read)
        command, talk = read
        i = self.current
        offer = self.offer
        if command is None:
            return Move("talk", (), (), talk)
        if command.kind in ("accept", "deny"):
            if offer is None or offer[0] == i:
                return Invalid(
                    f"[{command.kind.title()}] is not legal now: no offer to you is open"
                )
            return Move(command.kind, offer[2], offer[1], talk)  # from the responder's side
        mine = self.holdings[i]
        for k, n in enumerate(command.give):
            if n > mine[k]:
                return Invalid(
                    f"this offer is not legal now: you cannot give {n} {RESOURCES[k]}, "
                    f"you hold {mine[k]}"
                )
        return Move("offer", command.give, command.get, talk)

    def _apply(self, move: Move) -> None:
        i = self.current
        j = 1 - i
        me, other = self.possible_agents[i], self.possible_agents[j]
        talk = move.talk
        if talk:
            if len(talk) > _MAX_TALK:
                talk = talk[:_MAX_TALK] + "..."
            self.tell(j, f"{me} says: {talk}")
        open_offer = self.offer if self.offer is not None and self.offer[0] == j else None
        self.offer = None
        kind = move.kind
        if kind == "accept":
            self._trade(j, i, move.get, move.give)
        elif kind == "deny":
            self.history.append((self.turn, i, "deny", move.give, move.get))
            self.announce(f"{me} denies {other}'s offer.")
        else:
            if open_offer is not None:
                self.history.append((self.turn, i, "deny", open_offer[2], open_offer[1]))
                self.announce(f"{me} declines {other}'s offer.")
            if kind == "offer":
                self.offer = (i, move.give, move.get)
                self.history.append((self.turn, i, "offer", move.give, move.get))
                self.announce(
                    f"{me} offers {other}: {me} gives {format_items(move.give)}; "
                    f"{other} gives {format_items(move.get)}."
                )
        if self.turn + 1 >= self.max_turns:
            self._settle(f"All {self.max_turns} turns are played.")
        else:
            self.current = j

    def _trade(self, offerer: int, responder: int, give: Counts, get: Counts) -> None:
        """``responder`` accepts: ``offerer`` gives ``give`` and gets ``get``, if both hold them."""
        a, b = self.possible_agents[offerer], self.possible_agents[responder]
        short = [
            (name, k, n, held[k])
            for name, held, side in (
                (a, self.holdings[offerer], give),
                (b, self.holdings[responder], get),
            )
            for k, n in enumerate(side)
            if n > held[k]
        ]
        if short:
            name, k, n, held = short[0]
            self.history.append((self.turn, responder, "fail", get, give))
            self.announce(
                f"{b} accepts, but the trade fails: {name} holds {held} {RESOURCES[k]}, not {n}."
            )
            return
        for k in range(len(RESOURCES)):
            self.holdings[offerer][k] += get[k] - give[k]
            self.holdings[responder][k] += give[k] - get[k]
        self._inventory = [None, None]
        self.trades += 1
        self.history.append((self.turn, responder, "accept", get, give))
        self.announce(
            f"{b} accepts: {a} gives {format_items(give)}; {b} gives {format_items(get)}."
        )

    def _settle(self, why: str) -> None:
        """Pay the end-of-game rewards and end the game."""
        change = [self.value_of(i) - self.start_values[i] for i in range(2)]
        names = self.possible_agents
        values = "; ".join(
            f"{names[i]}'s values: "
            + ", ".join(f"{r} {v}" for r, v in zip(RESOURCES, self.values[i], strict=True))
            for i in range(2)
        )
        result = (
            f"{why} Value changes, each by its own values: {names[0]} {change[0]:+d}, "
            f"{names[1]} {change[1]:+d}. ({values}.)"
        )
        if not self.zero_sum:
            for i in range(2):
                self.pay(i, float(change[i]))
            self.finish(result)
        elif change[0] == change[1]:
            self.finish(f"{result} A draw.")
        else:
            w = 0 if change[0] > change[1] else 1
            self.pay(w, 1.0)
            self.pay(1 - w, -1.0)
            self.finish(f"{result} {names[w]} wins.")

    def _forfeit(self, i: int) -> None:
        """Too many invalid actions lose the match.

        ``zero_sum``: -1 to the forfeiter, +1 to the other (``TextGame._forfeit``).
        ``value``: the other is paid its value change so far; the forfeiter gets minus
        its starting value, minus 1: worse than losing everything it held by trading,
        so quitting while ahead never pays.
        """
        if self.zero_sum:
            super()._forfeit(i)
            return
        w = 1 - i
        self.pay(w, float(self.value_of(w) - self.start_values[w]))
        self.pay(i, -float(self.start_values[i]) - 1.0)
        self.finish(f"{self.possible_agents[i]} forfeits after too many invalid actions.")

    # -- what players see ------------------------------------------------------------

    def value_of(self, i: int) -> int:
        """Player ``i``'s holdings now, valued with its own values."""
        return sum(n * v for n, v in zip(self.holdings[i], self.values[i], strict=True))

    def turns_left(self, i: int) -> int:
        """How many more turns player ``i`` gets, this one included when it is to move."""
        return sum(1 for t in range(self.turn, self.max_turns) if t % 2 == i)

    def _inventory_text(self, i: int) -> str:
        text = self._inventory[i]
        if text is None:
            rows = [
                f"  {r}: {n} x {v} = {n * v}"
                for r, n, v in zip(RESOURCES, self.holdings[i], self.values[i], strict=True)
            ]
            now, start = self.value_of(i), self.start_values[i]
            text = (
                "Your resources (units x your value per unit):\n"
                + "\n".join(rows)
                + f"\n  Total value: {now} (at the start {start}, change {now - start:+d})"
            )
            self._inventory[i] = text
        return text

    def _view(self, i: int) -> str:
        me = self.possible_agents[i]
        other = self.possible_agents[1 - i]
        if self.over:
            head = f"You are {me}. The game is over."
        else:
            head = (
                f"You are {me}. Turn {self.turn + 1} of {self.max_turns}; "
                f"you have {self.turns_left(i)} turn(s) left."
            )
        offer = self.offer
        if offer is None or self.over:
            pending = "No offer is open."
        elif offer[0] == i:
            pending = (
                f"Your offer to {other} is open: you give {format_items(offer[1])}, "
                f"you get {format_items(offer[2])}."
            )
        else:
            pending = (
                f"{other} offers you: you give {format_items(offer[2])}, you get "
                f"{format_items(offer[1])}. [Accept] or [Deny] it this turn (a counter-offer "
                f"declines it)."
            )
        parts = [head, self._inventory_text(i), pending]
        if not self.over and i == self.current:
            parts.append(
                "Your move: talk, with at most one command: [Offer: <you give> -> <you get>], "
                "[Accept] or [Deny]."
            )
        return "\n".join(parts)

    def _render(self) -> str:
        lines = []
        for i, name in enumerate(self.possible_agents):
            items = ", ".join(
                f"{r} {n}x{v}"
                for r, n, v in zip(RESOURCES, self.holdings[i], self.values[i], strict=True)
            )
            change = self.value_of(i) - self.start_values[i]
            lines.append(f"{name}: {items} (value {self.value_of(i)}, change {change:+d})")
        offer = self.offer
        if offer is not None:
            lines.append(
                f"open offer by {self.possible_agents[offer[0]]}: gives "
                f"{format_items(offer[1])}, gets {format_items(offer[2])}"
            )
        to_move = "game over" if self.over else f"{self.possible_agents[self.current]} to move"
        lines.append(f"turn {self.turn + 1}/{self.max_turns}, {self.trades} trades, {to_move}")
        return "\n".join(lines)

    def check_invariants(self) -> str | None:
        """Each resource's total units are conserved; nobody holds a negative amount."""
        for k, r in enumerate(RESOURCES):
            held = (self.holdings[0][k], self.holdings[1][k])
            if min(held) < 0:
                return f"negative holdings of {r}: {held}"
            if sum(held) != self._totals[k]:
                return f"{r} not conserved: {sum(held)} units, {self._totals[k]} at the start"
        return None

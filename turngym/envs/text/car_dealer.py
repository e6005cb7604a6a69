"""``CarDealer-v0``: sell a car to a scripted buyer (LMRL-Gym's car dealer task).

The agent is the seller and writes free-form messages. A rule-based buyer, drawn
from the seed, has a hidden budget, a preferred body type, one or two wanted
features and limited patience. She reacts to keywords: naming a car of her type
and the wanted features it has raises her interest (and what she is willing to
pay); a dollar amount with a car is an offer, which she accepts, counters or, after
too many, walks away from. An optional ``buyer`` hook replaces her with any
callable (another model, a person), see ``CarDealerEnv``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, read_int
from turngym.envs.text.car_dealer_data import COUNT_NOUNS, FEATURES, MODELS, TYPE_FEATURES

__all__ = ["Buyer", "Car", "CarDealerEnv", "parse_price"]

MAX_MESSAGE = 1000
"""Longest accepted seller message, in characters."""
MAX_REJECTIONS = 3
"""The buyer walks away when she turns down this many offers."""
_COUNTER_SHARE = (0.9, 0.95)
"""Her counter-offer after the 1st and 2nd rejection, as a share of her top price."""
_OFF_TYPE_FIT = 0.7
_MISSING_FEATURE_FIT = 0.05
_COLD_SHARE = 0.9
"""Share of her top price she pays with no interest; full interest pays 100%."""

_PRICE = re.compile(r"\$\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(k\b)?", re.IGNORECASE)
_MAX_PRICE_DIGITS = 12
_DEAL = re.compile(r"^\s*deal at \$\s*(\d{1,3}(?:,\d{3})+|\d+)", re.IGNORECASE)
_AGREE = re.compile(r"\b(deal|accept|accepted|agreed|agree|sold|you got it)\b", re.IGNORECASE)
_REFUSE = re.compile(r"\b(no|not|don't|won't|can't|cannot)\b", re.IGNORECASE)
_NEEDS = re.compile(
    r"\b(looking for|need|want|what kind|prefer|help you|interested in|features?)\b", re.IGNORECASE
)
_BUDGET = re.compile(r"\b(budget|spend|afford|price range)\b", re.IGNORECASE)


def parse_price(text: str) -> tuple[int, int] | None:
    """The last dollar amount in ``text`` and where it is; ``$27.5k`` style too.

    An amount of over 12 digits is no price (as a float it would overflow ``round``).

    >>> parse_price("I can do $27,500 on the Civic")
    (27500, 9)
    >>> parse_price("how about $31k?")
    (31000, 10)
    >>> parse_price("no price here") is None, parse_price("$" + "9" * 400) is None
    (True, True)
    """
    found = list(_PRICE.finditer(text))
    if not found:
        return None
    m = found[-1]
    if len(m.group(1).replace(",", "")) > _MAX_PRICE_DIGITS:
        return None
    if m.group(2):
        number = re.search(r"\$\s*([\d.,]+)", m.group(0))
        value = float(number.group(1).replace(",", "")) * 1000 if number else 0.0
    else:
        value = float(m.group(1).replace(",", ""))
    return round(value), m.start()


@dataclass(frozen=True)
class Car:
    """One car on the lot."""

    make: str
    model: str
    year: int
    type: str
    features: tuple[str, ...]
    list_price: int

    def line(self) -> str:
        """The inventory line shown to the seller."""
        return (
            f"- {self.model}: {self.year} {self.make} {self.model} ({self.type}), "
            f"{', '.join(self.features)}; list price ${self.list_price:,}"
        )


@dataclass(frozen=True)
class Buyer:
    """The buyer's hidden profile."""

    budget: int
    car_type: str
    features: tuple[str, ...]
    patience: int
    """turns she stays without a sale"""


def _a(word: str) -> str:
    return f"{'an' if word[0] in 'aeiouAEIOU' else 'a'} {word}"


def _listing(items: list[str] | tuple[str, ...]) -> str:
    return " and ".join(items) if len(items) <= 2 else ", ".join(items[:-1]) + f" and {items[-1]}"


def _floor100(value: float) -> int:
    return math.floor(value / 100.0) * 100


class CarDealerEnv(TextEnv[str]):
    """Sell a car from your lot to a buyer with a hidden budget and taste.

    The first observation lists the lot (model, type, features, list price) and
    the buyer's greeting; each step's observation is her reply. Write anything; she
    listens for car model names, feature keywords, questions about what she wants or
    her budget, and offers. An offer is a message with a dollar amount and a car
    (e.g. ``offer the RAV4 for $27,500`` or ``I can do $27.5k on the RAV4``; with
    several cars named, the one named nearest the amount; with none, the car last
    discussed). She accepts an offer at or below what she is willing to pay for that
    car, otherwise counters; ``deal`` or ``accept`` (without "no"/"not") takes her
    standing counter-offer.
    She walks away after turning down 3 offers or when her patience (4 to 9 turns)
    runs out.

    What she will pay for a car: ``min(budget, list price)``, times 0.7 if it is not
    her body type and minus 5% per wanted feature it lacks, times a share from 0.9
    (no interest) to 1.0 (full interest). Interest is the fraction of "pitch points"
    earned: one for naming a car of her type, one per wanted feature named while
    discussing a car that has it.

    Reward: on a sale, price / list price of the car sold (so 1.0 is selling at
    list, a discount scores less), with success; 0 when she walks away or time runs
    out. Messages are invalid only when empty or over 1,000 characters.

    Args:
        num_cars: cars on the lot, 8 to 15; None draws it from the seed.
        buyer: replaces the scripted buyer: ``buyer(profile, message) -> reply``, where
            ``profile`` is a dict with ``budget``, ``car_type``, ``features``,
            ``patience`` and ``inventory`` (the lot as dicts). A reply that starts with
            ``DEAL at $<price>`` sells the car named in the reply (else the car the
            seller last named) at that price; one that starts with ``WALK AWAY`` ends
            the episode with no sale. Patience is the hook's business; the step limit
            still applies.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/CarDealer-v0", num_cars=8)
        >>> obs, info = env.reset(seed=0)
        >>> print(obs.splitlines()[-1])
        Buyer: Hi! I'm shopping for a car today.
        >>> obs, *_ = env.step("What are you looking for?")
        >>> print(obs)
        Buyer: I'm looking for a coupe with heated seats and a sunroof.
        >>> obs, reward, terminated, truncated, info = env.step("Offer the BRZ for $30,000")
        >>> print(obs)
        Buyer: $30,000 is more than I want to pay for the BRZ. I could do $22,800.
        >>> obs, reward, terminated, truncated, info = env.step("Deal!")
        >>> print(obs, round(reward, 3), info["success"])
        Buyer: Deal! I'll take the BRZ for $22,800. 0.768 True

    """

    def __init__(
        self,
        num_cars: int | None = None,
        buyer: Callable[[dict[str, Any], str], str] | None = None,
        **kwargs: Any,
    ) -> None:
        if num_cars is not None and (
            isinstance(num_cars, bool) or not isinstance(num_cars, int) or not 8 <= num_cars <= 15
        ):
            raise ValueError(f"num_cars must be an int from 8 to 15 or None, got {num_cars!r}")
        if buyer is not None and not callable(buyer):
            raise ValueError(
                "buyer must be None (the scripted buyer) or a callable "
                f"(profile: dict, message: str) -> reply: str, got {buyer!r}"
            )
        super().__init__(**kwargs)
        self.num_cars = num_cars
        self.buyer_hook = buyer
        self.cars: dict[str, Car] = {}
        self.buyer = Buyer(0, "", (), 0)
        self.points: set[str] = set()
        """pitch points earned: ``"type"`` and wanted feature names"""
        self.current: str | None = None
        """the car under discussion (the last one the seller named)"""
        self.rejections = 0
        self.counter: tuple[str, int] | None = None
        """her standing counter-offer: (car, price)"""
        self.turns = 0

    # -- the buyer's model (also read by the expert) ---------------------------------

    def interest(self) -> float:
        """Pitch points earned / points available, in [0, 1]."""
        return len(self.points) / (1 + len(self.buyer.features))

    def fit(self, model: str) -> float:
        """How well a car suits her: 1.0 = her type with every wanted feature."""
        car = self.cars[model]
        missing = sum(f not in car.features for f in self.buyer.features)
        base = 1.0 if car.type == self.buyer.car_type else _OFF_TYPE_FIT
        return base * (1.0 - _MISSING_FEATURE_FIT * missing)

    def willingness(self, model: str, interest: float | None = None) -> float:
        """The most she pays for ``model`` (at the current or the given interest)."""
        level = self.interest() if interest is None else interest
        car = self.cars[model]
        share = _COLD_SHARE + (1.0 - _COLD_SHARE) * level
        return min(self.buyer.budget, car.list_price) * self.fit(model) * share

    def profile(self) -> dict[str, Any]:
        """The buyer profile handed to a ``buyer`` hook."""
        return {
            "budget": self.buyer.budget,
            "car_type": self.buyer.car_type,
            "features": list(self.buyer.features),
            "patience": self.buyer.patience,
            "inventory": [asdict(car) for car in self.cars.values()],
        }

    def cars_named(self, text: str) -> list[tuple[int, str]]:
        """(position, model) of every car on the lot named in ``text``, in order."""
        found = []
        for model in self.cars:
            pattern = rf"(?<![\w-]){re.escape(model)}(?![\w-])"
            found += [(m.start(), model) for m in re.finditer(pattern, text, re.IGNORECASE)]
        return sorted(found)

    # -- the game --------------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        rng = self.np_random
        n = self.num_cars if self.num_cars is not None else int(rng.integers(8, 16))
        self.cars = {}
        for i in rng.choice(len(MODELS), size=n, replace=False):
            make, model, body, base = MODELS[int(i)]
            k = int(rng.integers(2, 5))
            allowed = TYPE_FEATURES[body]
            picked = rng.choice(len(allowed), k, replace=False)
            features = tuple(sorted(allowed[int(j)] for j in picked))
            price = base * float(rng.uniform(0.9, 1.15)) + 600 * k
            self.cars[model] = Car(
                make, model, int(rng.integers(2016, 2025)), body, features, _floor100(price)
            )
        # She wants something the lot has: her taste is read off one of the cars.
        target = list(self.cars.values())[int(rng.integers(n))]
        wanted = int(rng.integers(1, 3))
        picks = rng.choice(len(target.features), size=wanted, replace=False)
        self.buyer = Buyer(
            budget=_floor100(target.list_price * float(rng.uniform(0.85, 1.15))),
            car_type=target.type,
            features=tuple(sorted(target.features[int(j)] for j in picks)),
            patience=int(rng.integers(4, 10)),
        )
        self.points = set()
        self.current = self.counter = None
        self.rejections = self.turns = 0
        lot = "\n".join(car.line() for car in self.cars.values())
        self.instruction = (
            "You are a car salesperson. Sell a car from your lot to the buyer below. She has "
            "a budget, a type of car and features in mind, and limited patience; she does not "
            "say all of it unless asked. Write to her freely. To make an offer, name the car "
            "and a price, e.g. 'offer the <model> for $<price>'; say 'deal' to accept her "
            "counter-offer. A sale scores price / list price of that car; no sale scores 0. "
            "She leaves after turning down 3 offers or when she runs out of patience."
        )
        return f"{self.instruction}\n\nYour lot:\n{lot}\n\nBuyer: Hi! I'm shopping for a car today."

    def _parse(self, action: str) -> str | Invalid:
        if not action.strip():
            return Invalid("the message is empty; write something to the buyer")
        if len(action) > MAX_MESSAGE:
            return Invalid(f"the message is longer than {MAX_MESSAGE} characters; keep it shorter")
        return action.strip()

    def _apply(self, message: str) -> Outcome:
        self.turns += 1
        if self.buyer_hook is not None:
            return self._hook_turn(message)
        named = self.cars_named(message)
        price = parse_price(message)
        if named:
            if price is not None:
                # The car the offer is about: the one named nearest the amount.
                at = price[1]
                self.current = min(
                    named, key=lambda pm: at - pm[0] - len(pm[1]) if pm[0] < at else pm[0] - at
                )[1]
            else:
                self.current = named[-1][1]
        self._listen(message, [m for _, m in named])
        if price is not None and self.current is not None:
            return self._offer(self.current, price[0])
        if price is not None:
            return self._say("Which car is that price for?")
        if self.counter is not None and _AGREE.search(message) and not _REFUSE.search(message):
            return self._sale(*self.counter)
        return self._say(self._chat(message, [m for _, m in named]))

    def _listen(self, message: str, named: list[str]) -> None:
        """Earn pitch points for her type and for wanted features the current car has."""
        if any(self.cars[m].type == self.buyer.car_type for m in named):
            self.points.add("type")
        if self.current is None:
            return
        text = message.lower()
        car = self.cars[self.current]
        for feature in self.buyer.features:
            if feature in car.features and any(k in text for k in FEATURES[feature]):
                self.points.add(feature)

    def _offer(self, model: str, price: int) -> Outcome:
        top = self.willingness(model)
        if price <= top:
            return self._sale(model, price)
        self.rejections += 1
        if self.rejections >= MAX_REJECTIONS:
            return self._leave(f"${price:,} for the {model}? That's too much. I'll look elsewhere.")
        counter = _floor100(top * _COUNTER_SHARE[self.rejections - 1])
        self.counter = (model, counter)
        return self._say(
            f"${price:,} is more than I want to pay for the {model}. I could do ${counter:,}."
        )

    def _chat(self, message: str, named: list[str]) -> str:
        want = f"{_a(self.buyer.car_type)} with {_listing(self._feature_phrases())}"
        text = message.lower()
        features = any(k in text for keys in FEATURES.values() for k in keys)
        if (named or features) and self.current is not None:
            car = self.cars[self.current]
            if car.type != self.buyer.car_type:
                return f"The {car.model} is {_a(car.type)}; I'm really looking for {want}."
            has = [f for f in self.buyer.features if f in car.features]
            lacks = [f for f in self.buyer.features if f not in car.features]
            reply = f"The {car.model} looks interesting."
            if has:
                reply += f" I like that it has {_listing(has)}."
            if lacks:
                reply += f" I was hoping for {_listing(lacks)}, though."
            return reply + " What price could you do?"
        if _BUDGET.search(message):
            ceiling = math.ceil(self.buyer.budget / 5000.0) * 5000
            return f"I'd like to stay under ${ceiling:,}."
        if _NEEDS.search(message):
            return f"I'm looking for {want}."
        return f"Hmm. I'm after {_a(self.buyer.car_type)}. What would you recommend?"

    def _feature_phrases(self) -> list[str]:
        return [_a(f) if f in COUNT_NOUNS else f for f in self.buyer.features]

    def _say(self, reply: str) -> Outcome:
        if self.turns >= self.buyer.patience and self.buyer_hook is None:
            return self._leave(f"{reply} Actually, I've been here long enough. Thanks, bye.")
        return Outcome(f"Buyer: {reply}")

    def _sale(self, model: str, price: int) -> Outcome:
        reward = price / self.cars[model].list_price
        info = {"sale": {"car": model, "price": price, "list_price": self.cars[model].list_price}}
        return Outcome(
            f"Buyer: Deal! I'll take the {model} for ${price:,}.",
            reward,
            True,
            success=True,
            info=info,
        )

    def _leave(self, reply: str) -> Outcome:
        return Outcome(f"Buyer: {reply} (The buyer walked away.)", 0.0, True)

    def _hook_turn(self, message: str) -> Outcome:
        assert self.buyer_hook is not None
        reply = str(self.buyer_hook(self.profile(), message)).strip()
        named = self.cars_named(message)
        if named:
            self.current = named[-1][1]
        deal = _DEAL.match(reply)
        if deal:
            in_reply = self.cars_named(reply)
            model = in_reply[-1][1] if in_reply else self.current
            price = read_int(deal.group(1).replace(",", ""), _MAX_PRICE_DIGITS)
            if model is not None and price is not None:
                reward = price / self.cars[model].list_price
                info = {
                    "sale": {
                        "car": model,
                        "price": price,
                        "list_price": self.cars[model].list_price,
                    }
                }
                return Outcome(f"Buyer: {reply}", reward, True, success=True, info=info)
        if reply.upper().startswith("WALK AWAY"):
            return self._leave(reply)
        return Outcome(f"Buyer: {reply}")

    def _render(self) -> str:
        b = self.buyer
        return (
            "\n".join(car.line() for car in self.cars.values())
            + f"\nbuyer: budget ${b.budget:,}, wants {_a(b.car_type)} with {_listing(b.features)}, "
            f"patience {b.patience} turns; turn {self.turns}, interest {self.interest():.2f}, "
            f"rejections {self.rejections}, discussing {self.current or '-'}"
        )

    def _state_key(self) -> str:
        counter = f"{self.counter[0]}@{self.counter[1]}" if self.counter else "-"
        points = ",".join(sorted(self.points))
        return f"t{self.turns}|{self.current or '-'}|{points}|r{self.rejections}|{counter}"

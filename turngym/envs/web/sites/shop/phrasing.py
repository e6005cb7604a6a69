"""How the shop's hard instructions say what they want: paraphrased attributes, options, prices.

The easy instructions name the goal's attributes and option values verbatim ("with
color: black"), so pasting the instruction into the search box and picking the options
it names is most of the task. The hard ones say the same goal in other words: every
attribute by a paraphrase (``"waterproof"`` -> ``"a fully watertight build"``), option
values often by a synonym or another unit spelling (``"grey"`` -> ``"gray"``,
``"x-large"`` -> ``"xl"``, ``"12 oz"`` -> ``"12-ounce"``), the price limit in one of
several phrasings, and the parts in one of several orders. Each paraphrase names one
value of its group and one attribute of its product type, so a reader can always tell
what is asked; ``hard_instruction`` draws the wording with the catalog's seeded RNG.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["ATTRIBUTE_PHRASES", "attribute_phrase", "hard_instruction", "option_phrase"]

ATTRIBUTE_PHRASES: Mapping[str, str] = {
    "waterproof": "a fully watertight build",
    "lightweight": "a featherlight weight",
    "breathable": "material that lets air pass through",
    "non-slip": "a grippy surface that will not slide",
    "cushioned": "soft padding underfoot",
    "wide fit": "a roomy width for broad feet",
    "arch support": "a contoured insole that props up the instep",
    "reflective": "strips that shine in headlights",
    "insulated": "a warm lining for freezing weather",
    "ankle support": "a high collar that steadies the ankles",
    "slip resistant": "soles that grip on wet rock",
    "leather": "full-grain hide uppers",
    "rubber sole": "a tough gum outsole",
    "cotton": "an all-natural plant-fibre fabric",
    "slim fit": "a close, tailored cut",
    "moisture wicking": "fabric that pulls sweat away from the skin",
    "machine washable": "easy care in the washer",
    "crew neck": "a classic round neckline",
    "v-neck": "a neckline that dips to a point",
    "organic": "certified pesticide-free farming",
    "relaxed fit": "a loose, easygoing cut",
    "fleece lined": "a soft brushed inner layer",
    "zip up": "a full-length zipper front",
    "pullover": "an over-the-head style",
    "oversized": "a roomy, larger-than-usual cut",
    "cotton blend": "a part-natural mixed-fibre fabric",
    "kangaroo pocket": "a roomy front pouch for the hands",
    "heavyweight": "a thick, weighty fabric",
    "high waist": "a rise that sits above the navel",
    "squat proof": "fabric that stays opaque when you bend",
    "four way stretch": "give in every direction",
    "side pockets": "pouches at the thighs for a phone",
    "tummy control": "a firming panel at the belly",
    "ankle length": "a hem that stops just at the ankles",
    "flare leg": "legs that widen toward the hem",
    "wireless": "bluetooth with no cord",
    "noise cancelling": "active blocking of background sound",
    "over ear": "cups that surround the ears",
    "foldable": "a design that collapses for travel",
    "long battery life": "a charge that lasts for days",
    "deep bass": "a booming low end",
    "built-in microphone": "an integrated mic for calls",
    "water resistant": "protection against splashes and sweat",
    "shockproof": "drop protection that absorbs impacts",
    "slim": "a thin, low-profile shape",
    "clear": "a see-through shell",
    "magnetic": "built-in magnets for mounts and chargers",
    "kickstand": "a fold-out stand for watching videos",
    "card holder": "a back slot for a couple of cards",
    "anti-scratch": "a mark-resistant coating",
    "raised edges": "a lip around the screen and camera",
    "fast charging": "rapid power delivery",
    "braided": "a woven nylon jacket",
    "usb-c": "the reversible type-c plug",
    "data transfer": "file syncing as well as power",
    "tangle free": "a cord that never knots",
    "right angle": "an l-shaped plug",
    "extra durable": "toughness that outlasts ordinary cables",
    "led indicator": "a little lamp that shows the charging status",
    "dark roast": "beans roasted until deep brown and oily",
    "medium roast": "a balanced mid-level roast",
    "light roast": "a pale, bright roast",
    "fair trade": "ethically certified sourcing that pays growers properly",
    "decaf": "the caffeine removed",
    "single origin": "beans from one farm or region",
    "low acid": "gentle acidity for sensitive stomachs",
    "caffeine free": "no stimulants at all",
    "loose leaf": "unbagged leaves to steep",
    "herbal": "an herb-and-flower blend",
    "non-gmo": "no genetically modified ingredients",
    "sugar free": "not a gram of sweetener",
    "individually wrapped": "each bag sealed on its own",
    "kosher": "certification under jewish dietary law",
    "gluten free": "a recipe safe for coeliacs",
    "low sugar": "barely any sweetener",
    "high protein": "plenty of protein in every serving",
    "keto friendly": "a fit for a ketogenic diet",
    "vegan": "no animal-derived ingredients whatsoever",
    "plant based": "protein from peas and soy",
    "dairy free": "no milk ingredients",
    "sulfate free": "a gentle formula without sls",
    "paraben free": "a preservative-free formula",
    "natural": "only ingredients found in nature",
    "for dry hair": "extra care for parched, brittle hair",
    "color safe": "gentleness on dyed hair",
    "cruelty free": "a promise of no animal testing",
    "moisturizing": "deep hydration",
    "anti dandruff": "relief from a flaky scalp",
    "fragrance free": "no added perfume",
    "hypoallergenic": "a formula kind to allergy-prone skin",
    "anti aging": "a formula that smooths fine lines",
    "spf 30": "sun protection factor thirty",
    "oil free": "a non-greasy formula",
    "non comedogenic": "a formula that will not clog pores",
    "hyaluronic acid": "the plumping hydrator ha",
    "vitamin c": "ascorbic acid for a glow",
    "long lasting": "wear that stays put for a week",
    "quick dry": "a fast drying time",
    "non toxic": "no harmful chemicals",
    "glossy": "a high-shine finish",
    "matte finish": "a flat look with no shine",
    "chip resistant": "a coat that will not flake off",
    "gel effect": "a salon-gel look without a lamp",
    "laptop compartment": "a padded sleeve for a notebook computer",
    "anti theft": "hidden zips that deter pickpockets",
    "usb charging port": "a built-in socket to charge a phone",
    "padded straps": "cushy shoulder belts",
    "large capacity": "lots of room inside",
    "carry-on size": "dimensions that fit airline cabin rules",
    "bpa free": "plastics without bisphenol-a",
    "leak proof": "a lid that never spills",
    "stainless steel": "rust-proof metal construction",
    "wide mouth": "a broad opening for ice cubes",
    "dishwasher safe": "no fuss cleaning in the dish machine",
    "straw lid": "a sip-through top",
    "extra thick": "generous depth that spares the knees",
    "eco friendly": "earth-kind materials",
    "carrying strap": "a sling for toting it around",
    "sweat resistant": "a surface unbothered by perspiration",
    "reversible": "two usable sides",
    "latex free": "safety for people with a rubber allergy",
    "led": "light-emitting diodes",
    "dimmable": "brightness you can turn down",
    "touch control": "a tap-sensitive switch",
    "eye caring": "flicker-free light that is easy on the eyes",
    "adjustable arm": "a bendable neck you can position",
    "energy efficient": "low power use",
    "clamp mount": "a base that grips the desk edge",
    "deep pocket": "fitted corners for tall mattresses",
    "wrinkle free": "fabric that stays smooth without ironing",
    "microfiber": "ultra-fine polyester fabric",
    "cooling": "a chilly-to-the-touch feel for hot sleepers",
    "absorbent": "a knack for soaking up water",
    "hotel quality": "a luxury-resort feel",
    "plush": "a thick, velvety pile",
    "fade resistant": "shades that stay bright wash after wash",
    "grain free": "no corn, wheat or rice",
    "for small breeds": "kibble sized for little dogs",
    "for puppies": "a recipe for young dogs",
    "no artificial colors": "no added dyes",
    "limited ingredient": "a short, simple recipe list",
    "made in usa": "american manufacturing",
    "scented": "a noticeable fragrance",
    "soy wax": "wax from soybeans",
    "long burning": "a burn time of many hours",
    "wooden wick": "a crackling timber wick",
    "lead free": "a wick core without heavy metals",
    "hand poured": "small-batch pouring by hand",
    "gift ready": "a box ready to give as a present",
}
"""A paraphrase of every attribute of the vocabulary, as a noun phrase ("with ...")."""

_TYPE_ATTRIBUTE_PHRASES: Mapping[tuple[str, str], str] = {
    ("water bottle", "insulated"): "double walls that keep drinks hot or cold",
    ("bath towels", "oversized"): "extra-large dimensions",
    ("dog food", "natural"): "no synthetic ingredients",
    ("sheet set", "hypoallergenic"): "fabric that is kind to allergy sufferers",
}
"""Where an attribute means something else for a type (an insulated boot or bottle)."""


def attribute_phrase(product_type: str, attribute: str) -> str:
    """The paraphrase of ``attribute`` for a product of ``product_type``.

    >>> attribute_phrase("hiking boots", "waterproof")
    'a fully watertight build'
    >>> attribute_phrase("water bottle", "insulated")
    'double walls that keep drinks hot or cold'
    """
    return _TYPE_ATTRIBUTE_PHRASES.get((product_type, attribute), ATTRIBUTE_PHRASES[attribute])


_COLORS: Mapping[str, tuple[str, ...]] = {
    "black": ("jet black", "black"),
    "white": ("bright white", "snow white"),
    "navy": ("dark navy", "navy"),
    "grey": ("gray", "heather gray"),
    "red": ("scarlet", "bright red"),
    "blue": ("cobalt", "royal blue"),
    "pink": ("bubblegum pink", "hot pink"),
    "green": ("forest green", "emerald"),
    "olive": ("olive green", "khaki green"),
    "burgundy": ("deep wine", "maroon"),
    "beige": ("sand", "oatmeal"),
    "tan": ("camel", "sandy tan"),
    "brown": ("chocolate brown", "dark brown"),
    "silver": ("metallic silver", "chrome"),
    "rose gold": ("pink gold", "rose-gold"),
    "gold": ("brass", "golden"),
    "clear": ("transparent", "see-through"),
    "purple": ("violet", "plum"),
    "teal": ("blue-green", "dark turquoise"),
    "yellow": ("lemon yellow", "sunshine yellow"),
    "aqua": ("pale turquoise", "aqua"),
    "charcoal": ("dark charcoal", "charcoal"),
    "sage": ("sage green", "muted green"),
    "blush": ("blush pink", "soft pink"),
    "nude": ("skin-tone", "natural nude"),
    "coral": ("peachy coral", "coral orange"),
    "lilac": ("pale lilac", "light purple"),
}

_WORDS = {"1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six"}
_WORDS |= {"7": "seven", "8": "eight", "9": "nine", "10": "ten", "11": "eleven", "12": "twelve"}
_CLOTHING = {
    "x-small": ("xs", "extra small"),
    "small": ("size s", "small"),
    "medium": ("size m", "medium"),
    "large": ("size l", "large"),
    "x-large": ("xl", "extra large"),
    "xx-large": ("xxl", "2xl"),
}
_UNITS = {
    "oz": ("ounce", "ounces"),
    "lb": ("pound", "pounds"),
    "ft": ("foot", "feet"),
    "l": ("liter", "liters"),
    "mm": ("millimeter", "millimeters"),
    "inch": ("inch", "inches"),
}
_OTHER: Mapping[str, tuple[str, ...]] = {
    "pack of 1": ("a single one", "just one"),
    "pack of 2": ("a two-pack", "a pair"),
    "pack of 3": ("a three-pack", "three of them"),
    "pack of 5": ("a five-pack", "five of them"),
    "pack of 6": ("a six-pack", "half a dozen"),
    "pack of 12": ("a twelve-pack", "a dozen"),
    "pack of 24": ("a 24-pack", "two dozen"),
    "set of 2": ("two towels", "a pair of towels"),
    "set of 4": ("four towels", "a four-piece set"),
    "set of 6": ("six towels", "a six-piece set"),
    "whole bean": ("beans left whole", "unground beans"),
    "ground": ("pre-ground for drip", "already ground for drip"),
    "espresso grind": ("an espresso-fine grind", "fine enough for espresso"),
    "warm white": ("a warm-toned light", "soft warm light"),
    "cool white": ("a cool-toned light", "crisp cool light"),
    "daylight": ("natural daylight", "daylight-balanced light"),
    "headphones only": ("no extras in the box", "just the headphones"),
    "with carrying case": ("a carry case included", "a travel pouch in the box"),
    "with extra ear pads": ("spare ear cushions included", "replacement cushions in the box"),
    "twin": ("a twin-size bed", "a single bed"),
    "full": ("a full-size bed", "a double bed"),
    "queen": ("a queen-size bed", "a queen bed"),
    "king": ("a king-size bed", "an eastern king bed"),
    "california king": ("a cal king bed", "a california king bed"),
    "unscented": ("fragrance-free", "no scent"),
    "tea tree": ("tea tree oil", "tea tree"),
    "argan": ("argan oil", "moroccan argan"),
    "fresh linen": ("clean laundry", "fresh linen"),
    "earl grey": ("earl gray", "bergamot earl gray"),
    "peppermint": ("cool mint", "peppermint"),
}


def _measure(value: str, rng: np.random.Generator) -> str | None:
    """``"12 oz"`` as ``"12-ounce"`` or ``"12 ounces"``; None for a value without a unit."""
    number, _, unit = value.partition(" ")
    if unit not in _UNITS or not number.replace(".", "", 1).isdigit():
        return None
    one, many = _UNITS[unit]
    if rng.random() < 0.5:
        return f"{number}-{one}"
    return f"{number} {one if number == '1' else many}"


def option_phrase(group: str, value: str, rng: np.random.Generator) -> str:
    """How a hard instruction asks for ``value`` of option ``group``, drawn with ``rng``.

    >>> option_phrase("color", "grey", np.random.default_rng(0)) in ("in gray", "in heather gray")
    True
    """
    if group == "color":
        return "in " + _COLORS[value][int(rng.integers(2))]
    if group == "size" and value in _CLOTHING:
        return "in " + _CLOTHING[value][int(rng.integers(2))]
    if group == "size" and value.replace(".5", "") in _WORDS:
        whole, half = value.replace(".5", ""), value.endswith(".5")
        words = _WORDS[whole] + (" and a half" if half else "")
        return f"in size {words}" if rng.random() < 0.5 else f"in a us {value}"
    measured = _measure(value, rng)
    if measured is not None:
        return f"the {measured} {group}" if rng.random() < 0.5 else f"{group} of {measured}"
    if value.endswith(" count"):
        n = value.split()[0]
        return f"a box of {n} bags" if rng.random() < 0.5 else f"{n} bags to a box"
    phrase = _OTHER[value][int(rng.integers(2))] if value in _OTHER else value
    if group in ("flavor", "scent"):
        return f"in {phrase} {group}" if rng.random() < 0.5 else f"with a {phrase} {group}"
    if group == "size":
        return f"for {phrase}" if phrase.endswith(" bed") else f"in {phrase}"
    return phrase


_MASS = frozenset({"tea", "dog food", "face cream", "shampoo", "nail polish"})
_OPENERS = (
    "i'm after",
    "could you get me",
    "please order",
    "shopping for",
    "help me buy",
    "i'd love to pick up",
)


def _price_phrase(limit: float, rng: np.random.Generator) -> str:
    dollars = f"{limit:.2f}"
    forms = (
        f"at most ${dollars}",
        f"no more than {dollars} dollars",
        f"up to ${dollars}",
        f"{dollars} dollars or less",
        f"${dollars} or under",
    )
    return forms[int(rng.integers(len(forms)))]


def _join(words: Sequence[str]) -> str:
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def hard_instruction(
    product_type: str,
    attributes: Sequence[str],
    options: Mapping[str, str],
    price_upper: float,
    rng: np.random.Generator,
) -> str:
    """A paraphrased instruction for a goal, in one of several orders drawn with ``rng``.

    >>> text = hard_instruction("hiking boots", ["waterproof"], {"color": "tan"}, 90.0,
    ...                         np.random.default_rng(1))
    >>> "waterproof" in text, "watertight" in text, "90.00" in text
    (False, True, True)
    """
    # plural and mass nouns take "some" ("some coffee beans", "some tea"), others "a"
    some = product_type.endswith("s") or product_type in _MASS
    named = ("some " if some else "a ") + product_type
    features = [attribute_phrase(product_type, a) for a in attributes]
    order = [int(i) for i in rng.permutation(len(features))]
    with_part = "with " + _join([features[i] for i in order])
    asked = _join([option_phrase(g, v, rng) for g, v in options.items()])
    price = _price_phrase(price_upper, rng)
    opener = _OPENERS[int(rng.integers(len(_OPENERS)))]
    form = int(rng.integers(4))
    if form == 0:
        return f"{opener} {named} {with_part}; {asked}; budget {price}"
    if form == 1:
        return f"spending {price}, {opener} {named} ({asked}) {with_part}"
    if form == 2:
        return f"{opener} {named}: {asked}, {with_part}, for {price}"
    return f"{opener} {named} {with_part}. i want it {asked}, priced {price}"

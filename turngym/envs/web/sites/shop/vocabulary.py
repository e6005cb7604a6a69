"""The shop's product vocabulary: product types, their attributes and options, brands.

Everything the catalog generator draws from is written out here as plain data, so the
catalog changes only when this table does (bump ``CATALOG_VERSION`` then). Attributes
are lower case and may hold spaces or hyphens (``"non-slip"``); option values are shown
as written. Brand and line names are invented.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BRANDS", "CATALOG_VERSION", "LINES", "PRODUCT_TYPES", "ProductType", "title_case"]

CATALOG_VERSION = "shop-v1"
"""Names the generator's output; part of the prepared database's file name."""


@dataclass(frozen=True)
class ProductType:
    """One kind of product and the words its listings are made of.

    Attributes:
        name: the type as a shopper says it (``"running shoes"``).
        category: the department it is listed under.
        attributes: features a product of this type may have (it gets 2 to 4).
        options: ``(group, values)`` pairs; a product offers 2 to 5 values of each group.
        price: the ``(low, high)`` price range in dollars.
        blurbs: generic sentences for descriptions.

    """

    name: str
    category: str
    attributes: tuple[str, ...]
    options: tuple[tuple[str, tuple[str, ...]], ...]
    price: tuple[float, float]
    blurbs: tuple[str, ...]


def _kind(
    name: str,
    category: str,
    price: tuple[float, float],
    attributes: str,
    options: tuple[str, ...],
    blurbs: tuple[str, ...],
) -> ProductType:
    """A ``ProductType`` from compact text: ``"a, b"`` attributes, ``"group: x, y"`` options."""
    groups = []
    for group in options:
        group_name, values = group.split(": ")
        groups.append((group_name, tuple(values.split(", "))))
    return ProductType(name, category, tuple(attributes.split(", ")), tuple(groups), price, blurbs)


PRODUCT_TYPES: tuple[ProductType, ...] = (
    _kind(
        "running shoes",
        "shoes",
        (30, 160),
        (
            "waterproof, lightweight, breathable, non-slip, cushioned, wide fit, arch support, "
            "reflective"
        ),
        (
            "color: black, white, navy, grey, red, blue, pink, green",
            "size: 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5, 10, 10.5, 11, 12",
        ),
        (
            "Made for daily runs, gym sessions and long walks.",
            "A responsive pair for road and treadmill training.",
        ),
    ),
    _kind(
        "hiking boots",
        "shoes",
        (55, 200),
        (
            "waterproof, insulated, ankle support, slip resistant, leather, rubber sole, "
            "breathable, lightweight"
        ),
        (
            "color: brown, black, tan, olive, grey",
            "size: 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5, 10, 10.5, 11, 12",
        ),
        (
            "Ready for rocky trails, muddy paths and weekend treks.",
            "A sturdy pair for mountains and forest walks.",
        ),
    ),
    _kind(
        "t-shirt",
        "clothing",
        (8, 40),
        (
            "cotton, slim fit, moisture wicking, machine washable, crew neck, v-neck, organic, "
            "relaxed fit"
        ),
        (
            "color: black, white, navy, grey, red, olive, burgundy, beige",
            "size: x-small, small, medium, large, x-large, xx-large",
        ),
        (
            "An everyday top that pairs with jeans or shorts.",
            "A wardrobe staple for work, travel and weekends.",
        ),
    ),
    _kind(
        "hoodie",
        "clothing",
        (20, 85),
        (
            "fleece lined, zip up, pullover, machine washable, oversized, cotton blend, "
            "kangaroo pocket, heavyweight"
        ),
        (
            "color: black, white, navy, grey, red, olive, burgundy, beige",
            "size: x-small, small, medium, large, x-large, xx-large",
        ),
        (
            "Keeps you warm on chilly mornings and evenings.",
            "A cosy layer for the couch, campus or commute.",
        ),
    ),
    _kind(
        "yoga pants",
        "clothing",
        (15, 60),
        (
            "high waist, squat proof, four way stretch, side pockets, moisture wicking, "
            "tummy control, ankle length, flare leg"
        ),
        (
            "color: black, white, navy, grey, red, olive, burgundy, beige",
            "size: x-small, small, medium, large, x-large, xx-large",
        ),
        (
            "Moves with you through stretching, pilates and errands.",
            "A soft pair for studio classes and lazy Sundays.",
        ),
    ),
    _kind(
        "headphones",
        "electronics",
        (20, 200),
        (
            "wireless, noise cancelling, over ear, foldable, long battery life, deep bass, "
            "built-in microphone, water resistant"
        ),
        (
            "color: black, white, silver, rose gold, blue",
            "bundle: headphones only, with carrying case, with extra ear pads",
        ),
        (
            "Enjoy music, podcasts and calls wherever you go.",
            "Tuned for clear vocals and rich sound.",
        ),
    ),
    _kind(
        "phone case",
        "electronics",
        (6, 45),
        ("shockproof, slim, clear, magnetic, kickstand, card holder, anti-scratch, raised edges"),
        (
            "color: black, clear, blue, pink, purple, green",
            "size: 5.4 inch, 6.1 inch, 6.5 inch, 6.7 inch",
        ),
        (
            "Protects your phone from drops and bumps.",
            "Precise cutouts keep every button and port easy to reach.",
        ),
    ),
    _kind(
        "charging cable",
        "electronics",
        (5, 30),
        (
            "fast charging, braided, usb-c, data transfer, tangle free, right angle, "
            "extra durable, led indicator"
        ),
        (
            "length: 1 ft, 3 ft, 6 ft, 10 ft",
            "color: black, white, grey",
            "pack: pack of 1, pack of 2, pack of 3, pack of 5",
        ),
        (
            "Charge your devices at home, at work or in the car.",
            "Tested to survive thousands of bends.",
        ),
    ),
    _kind(
        "coffee beans",
        "grocery",
        (8, 50),
        (
            "organic, dark roast, medium roast, light roast, fair trade, decaf, single origin, "
            "low acid"
        ),
        (
            "size: 12 oz, 1 lb, 2 lb, 5 lb",
            "grind: whole bean, ground, espresso grind",
        ),
        ("Roasted in small batches for a smooth cup.", "Brews a rich pot for slow mornings."),
    ),
    _kind(
        "tea",
        "grocery",
        (5, 30),
        (
            "organic, caffeine free, loose leaf, herbal, non-gmo, sugar free, "
            "individually wrapped, kosher"
        ),
        (
            "flavor: green, chamomile, peppermint, earl grey, jasmine, ginger",
            "count: 20 count, 50 count, 100 count",
        ),
        ("Steep for three minutes and relax.", "A calming cup for afternoons and evenings."),
    ),
    _kind(
        "protein bars",
        "grocery",
        (10, 45),
        (
            "gluten free, low sugar, high protein, keto friendly, vegan, non-gmo, plant based, "
            "dairy free"
        ),
        (
            ("flavor: chocolate, peanut butter, cookies and cream, vanilla almond, salted caramel"),
            "pack: pack of 6, pack of 12, pack of 24",
        ),
        ("A handy snack for hikes, workouts and busy days.", "Fits in a bag or a desk drawer."),
    ),
    _kind(
        "shampoo",
        "beauty",
        (5, 40),
        (
            "sulfate free, paraben free, natural, for dry hair, color safe, cruelty free, "
            "moisturizing, anti dandruff"
        ),
        (
            "scent: unscented, lavender, coconut, argan, tea tree, citrus",
            "size: 8 oz, 12 oz, 16 oz, 32 oz",
        ),
        ("Leaves hair clean, soft and shiny.", "Gentle enough to wash with every day."),
    ),
    _kind(
        "face cream",
        "beauty",
        (9, 75),
        (
            "fragrance free, hypoallergenic, anti aging, spf 30, oil free, non comedogenic, "
            "hyaluronic acid, vitamin c"
        ),
        (
            "size: 1 oz, 1.7 oz, 2.5 oz",
            "pack: pack of 1, pack of 2",
        ),
        (
            "Absorbs quickly and layers well under makeup.",
            "Part of a simple morning and night routine.",
        ),
    ),
    _kind(
        "nail polish",
        "beauty",
        (5, 25),
        (
            "long lasting, quick dry, vegan, non toxic, glossy, matte finish, chip resistant, "
            "gel effect"
        ),
        (
            "color: red, pink, nude, coral, burgundy, lilac, black",
            "pack: pack of 1, pack of 3, pack of 6",
        ),
        ("Two coats give a salon look at home.", "A smooth brush makes painting easy."),
    ),
    _kind(
        "backpack",
        "bags",
        (20, 130),
        (
            "waterproof, lightweight, laptop compartment, anti theft, usb charging port, "
            "padded straps, large capacity, carry-on size"
        ),
        (
            "color: black, grey, navy, green, red, brown",
            "capacity: 20 l, 25 l, 30 l, 40 l",
        ),
        (
            "Organizes your gear for school, work and trips.",
            "Plenty of pockets for a day out or a weekend away.",
        ),
    ),
    _kind(
        "water bottle",
        "sports",
        (8, 50),
        (
            "insulated, bpa free, leak proof, stainless steel, wide mouth, dishwasher safe, "
            "straw lid, lightweight"
        ),
        (
            "color: black, white, blue, teal, pink, yellow",
            "capacity: 12 oz, 18 oz, 24 oz, 32 oz, 40 oz",
        ),
        (
            "Stay hydrated at the gym, the office or the beach.",
            "Fits most cup holders and bag pockets.",
        ),
    ),
    _kind(
        "yoga mat",
        "sports",
        (15, 90),
        (
            "non-slip, extra thick, eco friendly, lightweight, carrying strap, "
            "sweat resistant, reversible, latex free"
        ),
        (
            "color: purple, blue, black, grey, green, pink",
            "thickness: 4 mm, 6 mm, 8 mm, 10 mm",
        ),
        ("Rolls out for yoga, pilates and floor exercises.", "A stable surface for home workouts."),
    ),
    _kind(
        "desk lamp",
        "home",
        (15, 80),
        (
            "led, dimmable, usb charging port, touch control, eye caring, adjustable arm, "
            "energy efficient, clamp mount"
        ),
        (
            "color: black, white, silver, gold",
            "light: warm white, cool white, daylight",
        ),
        (
            "Lights up reading, homework and late-night projects.",
            "A tidy light for a desk, nightstand or workbench.",
        ),
    ),
    _kind(
        "sheet set",
        "home",
        (20, 150),
        (
            "deep pocket, wrinkle free, cotton, microfiber, cooling, breathable, "
            "hypoallergenic, machine washable"
        ),
        (
            "color: white, grey, navy, beige, sage, blush",
            "size: twin, full, queen, king, california king",
        ),
        (
            "Includes a fitted sheet, a flat sheet and pillowcases.",
            "Soft from the first night's sleep.",
        ),
    ),
    _kind(
        "bath towels",
        "home",
        (15, 90),
        (
            "quick dry, absorbent, cotton, hotel quality, machine washable, oversized, plush, "
            "fade resistant"
        ),
        (
            "color: white, grey, navy, aqua, beige, charcoal",
            "pack: set of 2, set of 4, set of 6",
        ),
        ("Wrap up after a shower, a swim or a spa day.", "Stays soft wash after wash."),
    ),
    _kind(
        "dog food",
        "pet supplies",
        (12, 95),
        (
            "grain free, natural, high protein, for small breeds, for puppies, "
            "no artificial colors, limited ingredient, made in usa"
        ),
        (
            "flavor: chicken, beef, salmon, lamb, turkey",
            "size: 4 lb, 15 lb, 30 lb",
        ),
        ("A balanced meal your dog will look forward to.", "Crunchy kibble packed with real meat."),
    ),
    _kind(
        "candle",
        "home",
        (8, 45),
        (
            "scented, soy wax, long burning, non toxic, wooden wick, lead free, hand poured, "
            "gift ready"
        ),
        (
            "scent: vanilla, lavender, sandalwood, fresh linen, pine, citrus",
            "size: small, medium, large",
        ),
        ("Fills a room with a cosy glow.", "Sets the mood for a quiet night in."),
    ),
)
"""The product types, in a fixed order (the generator walks them in this order)."""

BRANDS = (
    "Aldermoor",
    "Brightfield",
    "Corvane",
    "Dunmere",
    "Elmstead",
    "Fennick",
    "Galloway",
    "Holloway",
    "Islay",
    "Jessamine",
    "Kestrel",
    "Larkspur",
    "Marrow",
    "Northcote",
    "Orwell",
    "Pemberly",
    "Quenby",
    "Rosslyn",
    "Stanmore",
    "Thistle",
    "Umbra",
    "Verity",
    "Wexley",
    "Yarrow",
    "Zanbury",
    "Ashgrove",
    "Bramwell",
    "Calloway",
    "Dorrit",
    "Everly",
)
"""Invented brand names."""

LINES = (
    "Aero",
    "Summit",
    "Nimbus",
    "Pulse",
    "Drift",
    "Harbor",
    "Vista",
    "Echo",
    "Terra",
    "Lumen",
    "Crest",
    "Haven",
    "Orbit",
    "Pioneer",
    "Quill",
    "Ridge",
    "Tidal",
    "Unity",
    "Vale",
    "Wren",
    "Zephyr",
    "Cascade",
    "Ember",
    "Fable",
    "Glade",
    "Halo",
    "Juniper",
    "Kona",
    "Linden",
    "Meridian",
    "Nova",
    "Prism",
    "Quartz",
    "Rook",
    "Sierra",
    "Atlas",
    "Beacon",
    "Cirrus",
    "Delta",
    "Falcon",
)
"""Invented product-line names, placed between the brand and the attributes in a title."""

_UPPER = frozenset({"usb", "led", "spf", "bpa", "gmo", "usa"})


def title_case(text: str) -> str:
    """``text`` as a title: each word capitalised, known acronyms in upper case.

    >>> title_case("usb-c fast charging cable")
    'USB-C Fast Charging Cable'
    """
    words = []
    for word in text.split(" "):
        parts = [p.upper() if p in _UPPER else p[:1].upper() + p[1:] for p in word.split("-")]
        words.append("-".join(parts))
    return " ".join(words)

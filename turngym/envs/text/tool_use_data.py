"""Name lists and the product catalogue that ``ToolUse-v0`` draws its store from.

Every table is a plain tuple written for turngym; ``tool_use_db.build_rows`` samples
users, products, variants and orders from them with the env's RNG.
"""

from __future__ import annotations

__all__ = ["CANCEL_REASONS", "FIRST_NAMES", "LAST_NAMES", "PAYMENT_METHODS", "PRODUCTS"]

FIRST_NAMES: tuple[str, ...] = (
    "Ava", "Ben", "Chloe", "Daniel", "Emma", "Felix", "Grace", "Hugo", "Isla", "Jack",
    "Kira", "Liam", "Maya", "Noah", "Olivia", "Priya", "Quinn", "Ravi", "Sofia", "Tom",
    "Uma", "Victor", "Wendy", "Yusuf", "Zoe",
)  # fmt: skip

LAST_NAMES: tuple[str, ...] = (
    "Anderson", "Brown", "Chen", "Davis", "Evans", "Garcia", "Hughes", "Ito", "Johnson",
    "Kim", "Lopez", "Martin", "Nguyen", "Okafor", "Patel", "Rossi", "Silva", "Taylor",
    "Walker", "Young",
)  # fmt: skip

PAYMENT_METHODS: tuple[str, ...] = ("credit card", "paypal", "gift card")

# The only reasons the store accepts for a cancellation (as in tau-bench's retail policy).
CANCEL_REASONS: tuple[str, ...] = ("no longer needed", "ordered by mistake")

# product name -> ((option name, (values...)), ...); variants pick one value per option.
PRODUCTS: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = (
    ("T-Shirt", (("color", ("red", "blue", "black", "white")), ("size", ("S", "M", "L")))),
    ("Hoodie", (("color", ("grey", "navy", "green")), ("size", ("M", "L", "XL")))),
    ("Running Shoes", (("color", ("black", "white", "orange")), ("size", ("8", "9", "10")))),
    ("Water Bottle", (("capacity", ("500ml", "750ml", "1L")), ("color", ("steel", "teal")))),
    ("Backpack", (("color", ("black", "khaki", "red")), ("capacity", ("20L", "30L")))),
    ("Desk Lamp", (("color", ("white", "black")), ("power", ("USB", "battery", "plug")))),
    ("Headphones", (("color", ("black", "silver")), ("type", ("over-ear", "in-ear")))),
    ("Coffee Mug", (("color", ("white", "yellow", "blue")), ("material", ("ceramic", "glass")))),
    ("Yoga Mat", (("color", ("purple", "green", "black")), ("thickness", ("4mm", "6mm")))),
    ("Umbrella", (("color", ("black", "red", "clear")), ("size", ("compact", "full")))),
    ("Wireless Mouse", (("color", ("black", "white")), ("connection", ("bluetooth", "USB")))),
    ("Notebook", (("color", ("blue", "red", "black")), ("paper", ("lined", "grid", "blank")))),
)

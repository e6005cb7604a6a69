"""The shop's hard catalog: near-miss distractors, features only in descriptions, tight budgets.

``generate_hard_catalog`` draws, with a fixed seed, a background of products of every
type and, for each of ``N_INSTRUCTIONS`` goals, a target product and four *distractors*
of the target's type that each miss the goal by exactly one thing:

- one of the goal's attributes (its description even says that it lacks it, so a
  keyword search still finds it),
- one of the goal's option values (the drop-down does not offer it; two of the four),
- the price limit (it meets the rest of the goal but costs more than the instruction
  allows; the limit is 5-30% above the target's price, so it binds).

The five are inserted in a shuffled order, so ties in search ranking do not favour the
target. Titles are brand, line and type only; a product's attributes are stated in its
description prose (the product page of the hard shop has no feature list). Instructions
are paraphrased (``phrasing.hard_instruction``). The reward is unchanged: the goal has
the same keys as the easy goals and is scored by the same formula.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from turngym.envs.web.sites.shop.catalog import N_INSTRUCTIONS, Product
from turngym.envs.web.sites.shop.phrasing import hard_instruction
from turngym.envs.web.sites.shop.vocabulary import (
    BRANDS,
    LINES,
    PRODUCT_TYPES,
    ProductType,
    title_case,
)

__all__ = ["BACKGROUND_PER_TYPE", "HARD_CATALOG_VERSION", "generate_hard_catalog"]

HARD_CATALOG_VERSION = "shop-hard-v1"
"""Names the hard generator's output; part of the prepared database's file name."""
BACKGROUND_PER_TYPE = 20
"""Products of every type drawn apart from any goal (the rest are targets and distractors)."""
_SEED = 20220702  # fixed, like the easy catalog's: the catalog is part of the env

Instruction = tuple[int, str, dict[str, Any]]


class _Drawer:
    """Draws products of the hard catalog in order, keeping titles unique."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.products: list[Product] = []
        self._titles: set[str] = set()

    def pick(self, items: tuple[str, ...] | list[str], k: int) -> list[str]:
        """``k`` distinct items in their original order."""
        return [items[i] for i in sorted(self.rng.choice(len(items), k, replace=False))]

    def _title(self, ptype: ProductType) -> tuple[str, str, str]:
        # Titles are link names on the results page, so they must be unique.
        for attempt in range(200):
            brand = BRANDS[int(self.rng.integers(len(BRANDS)))]
            line = LINES[int(self.rng.integers(len(LINES)))]
            if attempt >= 100:
                line = f"{line} {attempt}"
            title = f"{brand} {line} {title_case(ptype.name)}"
            if title not in self._titles:
                break
        self._titles.add(title)
        return title, brand, line

    def _description(
        self, ptype: ProductType, brand: str, line: str, attributes: list[str], lacks: str | None
    ) -> str:
        blurb = ptype.blurbs[int(self.rng.integers(len(ptype.blurbs)))]
        listed = _join(attributes)
        form = int(self.rng.integers(3))
        if form == 0:
            text = f"The {brand} {line} {ptype.name}. {blurb} What sets it apart: {listed}."
        elif form == 1:
            text = f"{blurb} Buyers choose the {brand} {line} for these features: {listed}."
        else:
            text = f"From {brand}'s {line} range, {ptype.name} with {listed}. {blurb}"
        if lacks is not None:
            text += f" Please note: {lacks} is not a feature of this model."
        return text

    def add(
        self,
        ptype: ProductType,
        attributes: list[str],
        options: list[tuple[str, tuple[str, ...]]],
        price_cents: int,
        lacks: str | None = None,
    ) -> Product:
        """Append a product; ``lacks`` names an attribute its description says it lacks.

        Without ``lacks``, half the products still name one attribute they lack, so the
        note alone does not give a distractor away.
        """
        if lacks is None and self.rng.random() < 0.5:
            absent = [a for a in ptype.attributes if a not in attributes]
            lacks = absent[int(self.rng.integers(len(absent)))]
        title, brand, line = self._title(ptype)
        product = Product(
            id=len(self.products) + 1,
            title=title,
            type=ptype.name,
            category=ptype.category,
            brand=brand,
            price_cents=price_cents,
            rating=round(float(self.rng.uniform(3.0, 5.0)), 1),
            reviews=int(self.rng.integers(3, 5000)),
            description=self._description(ptype, brand, line, attributes, lacks),
            attributes=tuple(a for a in ptype.attributes if a in attributes),
            options=tuple(options),
        )
        self.products.append(product)
        return product

    def options(self, ptype: ProductType) -> list[tuple[str, tuple[str, ...]]]:
        """Two to five offered values of each option group, in vocabulary order."""
        out = []
        for group, values in ptype.options:
            k = int(self.rng.integers(2, min(5, len(values)) + 1))
            out.append((group, tuple(self.pick(values, k))))
        return out

    def price(self, ptype: ProductType) -> int:
        """A price in cents in the type's range."""
        low, high = ptype.price
        return int(self.rng.integers(round(low * 100), round(high * 100) + 1))


def _join(words: list[str]) -> str:
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def _with_value(
    ptype: ProductType, options: list[tuple[str, tuple[str, ...]]], group: str, drop: str, add: str
) -> list[tuple[str, tuple[str, ...]]]:
    """``options`` with ``drop`` replaced by ``add`` in ``group``.

    Values stay in vocabulary order, as every product's do, so the order of a drop-down
    does not give a near miss away.
    """
    out = []
    for name, values in options:
        if name == group:
            kept = {*values, add} - {drop}
            values = tuple(v for v in dict(ptype.options)[group] if v in kept)
        out.append((name, values))
    return out


def _goal_set(draw: _Drawer, ptype: ProductType) -> tuple[list[tuple[str, Any]], dict[str, Any]]:
    """A target and its four distractors (as ``add`` arguments, target first), and the goal."""
    rng = draw.rng
    n_attrs = int(rng.integers(3, 5))
    attributes = draw.pick(ptype.attributes, n_attrs)
    wanted = draw.pick(attributes, int(rng.integers(2, 4)))
    options = draw.options(ptype)
    goal_options = {g: values[int(rng.integers(len(values)))] for g, values in options}
    price = draw.price(ptype)
    step = 10 if price >= 4000 else 5
    limit = float(step * math.ceil(price / 100 * float(rng.uniform(1.05, 1.3)) / step))
    missing_kinds = ["attribute", "option", "price", str(rng.choice(["attribute", "option"]))]
    specs: list[tuple[str, Any]] = [("target", (attributes, options, price, None))]
    for kind in missing_kinds:
        # A near miss within budget costs anything from a bit below the target to the
        # limit, so "the dearest product within budget" does not single out the target.
        low = max(round(ptype.price[0] * 100), int(price * 0.7))
        within = int(rng.integers(low, round(limit * 100) + 1))
        if kind == "price":
            dear = round(limit * 100 * float(rng.uniform(1.05, 1.4)))
            specs.append((kind, (attributes, options, dear, None)))
        elif kind == "attribute":
            gone = wanted[int(rng.integers(len(wanted)))]
            spare = [a for a in ptype.attributes if a not in attributes]
            others = [a for a in attributes if a != gone]
            swapped = [*others, spare[int(rng.integers(len(spare)))]]
            specs.append((kind, (swapped, options, within, gone)))
        else:
            group = str(rng.choice([g for g, _ in options]))
            offered = dict(options)[group]
            spare = [v for v in dict(ptype.options)[group] if v not in offered]
            add = spare[int(rng.integers(len(spare)))] if spare else offered[0]
            changed = _with_value(ptype, options, group, goal_options[group], add)
            specs.append((kind, (attributes, changed, within, None)))
    goal = {
        "type": ptype.name,
        "attributes": wanted,
        "options": goal_options,
        "price_upper": limit,
    }
    return specs, goal


def generate_hard_catalog(
    n: int = N_INSTRUCTIONS, background: int = BACKGROUND_PER_TYPE
) -> tuple[list[Product], list[Instruction]]:
    """The hard catalog and its ``n`` instructions, the same on every call.

    Each goal is ``{"product_id", "type", "attributes", "options", "price_upper"}``
    (2 or 3 of the target's attributes, one offered value of each option group, a
    round price limit 5-30% above the target's price), as in the easy catalog.

    >>> products, instructions = generate_hard_catalog(n=2, background=1)
    >>> len(products), len(instructions)
    (32, 2)
    """
    rng = np.random.default_rng(_SEED)
    draw = _Drawer(rng)
    for ptype in PRODUCT_TYPES:
        for _ in range(background):
            attributes = draw.pick(ptype.attributes, int(rng.integers(2, 5)))
            draw.add(ptype, attributes, draw.options(ptype), draw.price(ptype))
    instructions: list[Instruction] = []
    for _ in range(n):
        ptype = PRODUCT_TYPES[int(rng.integers(len(PRODUCT_TYPES)))]
        specs, goal = _goal_set(draw, ptype)
        target_id = 0
        for j in rng.permutation(len(specs)):
            kind, (attributes, options, cents, lacks) = specs[int(j)]
            product = draw.add(ptype, list(attributes), options, cents, lacks)
            if kind == "target":
                target_id = product.id
        goal = {"product_id": target_id, **goal}
        text = hard_instruction(
            ptype.name, goal["attributes"], goal["options"], goal["price_upper"], rng
        )
        instructions.append((target_id, text, goal))
    return draw.products, instructions

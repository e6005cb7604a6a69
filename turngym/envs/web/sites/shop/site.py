"""``ShopSite``: the WebShop-like site's tasks, oracle plans and WebShop-style reward.

A task is one of the database's seeded instructions: at ``difficulty="easy"`` ("i need
waterproof running shoes with color: black, size: 9, and price lower than 60.00
dollars") from the easy catalog, at ``"hard"`` a paraphrased one ("i'm after some
running shoes with a fully watertight build; in jet black and in size nine; budget at
most $60.00") from the hard catalog, where near-miss distractors surround every target
(``hard``). Its oracle searches
for the goal's attributes and type, pages to the best-ranked product that meets the
whole goal, picks the goal's options and clicks "Buy Now". ``reward`` is WebShop's
(Yao et al. 2022) attribute/option/price match, scaled down for a wrong product type.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from turngym.envs.web.sites.shop.app import ShopApp, option_label
from turngym.envs.web.sites.shop.catalog import (
    Product,
    build_database,
    load_product,
    write_database,
)
from turngym.envs.web.sites.shop.hard import HARD_CATALOG_VERSION, generate_hard_catalog
from turngym.envs.web.sites.shop.search import RESULTS_PER_PAGE, ShopIndex, shop_index
from turngym.envs.web.sites.shop.vocabulary import CATALOG_VERSION
from turngym.envs.web.tasks import Step, Task, WSGIApp

__all__ = [
    "DIFFICULTIES",
    "TYPE_MISMATCH",
    "ShopSite",
    "meets_goal",
    "oracle_plan",
    "reward",
    "search_query",
]

DIFFICULTIES = ("hard", "easy")
"""The shop's difficulties, the default first."""

TYPE_MISMATCH = 0.1
"""Factor on the reward of a product of the wrong type (WebShop's small ``r_type``)."""


def search_query(goal: Mapping[str, Any]) -> str:
    """The query the oracle types: the goal's attributes, then its type.

    >>> search_query({"type": "yoga mat", "attributes": ["non-slip", "extra thick"]})
    'non-slip extra thick yoga mat'
    """
    return " ".join([*goal["attributes"], goal["type"]])


def _cents(dollars: float) -> int:
    return round(dollars * 100)


def reward(
    goal: Mapping[str, Any], product: Product, chosen: Mapping[str, str], cents: int
) -> float:
    """WebShop's reward for buying ``product`` with options ``chosen`` at price ``cents``.

    ``r = r_type * (matched attributes + matched options + [price <= price_upper])
    / (goal attributes + goal options + 1)``, where an attribute matches when the product
    has it, an option matches when the chosen value of its group is the goal's, and
    ``r_type`` is 1 for the goal's product type and ``TYPE_MISMATCH`` otherwise.

    >>> from turngym.envs.web.sites.shop.catalog import generate_catalog
    >>> shoe = generate_catalog(1)[0]
    >>> goal = {"type": shoe.type, "attributes": list(shoe.attributes[:2]),
    ...         "options": {"color": "red"}, "price_upper": 1000.0}
    >>> reward(goal, shoe, {"color": "red"}, shoe.price_cents)
    1.0
    >>> reward(goal, shoe, {"color": "pink"}, shoe.price_cents)
    0.75
    """
    attributes = sum(a in product.attributes for a in goal["attributes"])
    options = sum(chosen.get(g) == v for g, v in goal["options"].items())
    price = cents <= _cents(goal["price_upper"])
    total = len(goal["attributes"]) + len(goal["options"]) + 1
    r_type = 1.0 if product.type == goal["type"] else TYPE_MISMATCH
    return r_type * (attributes + options + price) / total


def meets_goal(goal: Mapping[str, Any], product: Product) -> bool:
    """Whether buying ``product`` with the goal's options can earn the full reward."""
    return (
        product.type == goal["type"]
        and all(a in product.attributes for a in goal["attributes"])
        and all(v in product.option_values(g) for g, v in goal["options"].items())
        and product.price_cents <= _cents(goal["price_upper"])
    )


def oracle_plan(index: ShopIndex, goal: Mapping[str, Any]) -> tuple[Step, ...]:
    """Steps that buy the best-ranked product meeting ``goal`` from a fresh home page.

    Raises:
        ValueError: no product found by the goal's query meets the goal.

    """
    query = search_query(goal)
    ranked = index.search(query)
    rank = next((i for i, p in enumerate(ranked) if meets_goal(goal, p)), None)
    if rank is None:
        raise ValueError(f"no product found by {query!r} meets the goal {dict(goal)}")
    product = ranked[rank]
    return (
        Step.fill("searchbox", "Search", query),
        Step.click("button", "Search"),
        *[Step.click("link", "Next >")] * (rank // RESULTS_PER_PAGE),
        Step.click("link", index.result_name(product)),
        *[Step.select("combobox", option_label(g), goal["options"][g]) for g, _ in product.options],
        Step.click("button", "Buy Now"),
    )


class ShopSite:
    """A WebShop-like shop: 600 instructions, one template (``buy_product``).

    ``score`` is ``reward`` for the first order placed, averaged over its items when a
    checkout bought several (so extra purchases lower it); 0.0 when nothing was bought.

    Args:
        difficulty: ``"hard"`` (3,440 products: every target has four near-miss
            distractors, features are stated only in descriptions, the price limit
            binds and instructions are paraphrased) or ``"easy"`` (1,100 products,
            instructions that name the goal verbatim: the shop before difficulties).

    Example:
        >>> import tempfile, sqlite3
        >>> site = ShopSite()
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     site.build_database(Path(tmp) / "shop.sqlite")
        ...     with sqlite3.connect(Path(tmp) / "shop.sqlite") as conn:
        ...         task = site.sample_task(np.random.default_rng(0), conn)
        >>> task.oracle[-1]
        Step(action='click', role='button', name='Buy Now', text='')

    """

    templates: tuple[str, ...] = ("buy_product",)

    def __init__(self, difficulty: str = "hard") -> None:
        if difficulty not in DIFFICULTIES:
            raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")
        self.difficulty = difficulty
        self.name = CATALOG_VERSION if difficulty == "easy" else HARD_CATALOG_VERSION

    def build_database(self, path: Path) -> None:
        """Write the catalog, instructions and empty cart/order tables to ``path``."""
        if self.difficulty == "easy":
            build_database(Path(path))
            return
        products, instructions = generate_hard_catalog()
        meta = {"catalog": HARD_CATALOG_VERSION, "difficulty": "hard"}
        write_database(Path(path), products, instructions, meta)

    def app(self, db_path: Path) -> WSGIApp:
        """The shop's WSGI app over the database at ``db_path``."""
        return ShopApp(Path(db_path))

    def sample_task(
        self, rng: np.random.Generator, conn: sqlite3.Connection, template: str | None = None
    ) -> Task:
        """Draw one of the seeded instructions with ``rng``, with its oracle plan."""
        if template not in (None, *self.templates):
            raise ValueError(f"unknown template {template!r}; the shop has {self.templates}")
        count = conn.execute("SELECT COUNT(*) FROM instructions").fetchone()[0]
        i = int(rng.integers(count))
        text, goal_json = conn.execute(
            "SELECT text, goal FROM instructions ORDER BY id LIMIT 1 OFFSET ?", (i,)
        ).fetchone()
        goal = json.loads(goal_json)
        return Task(
            template="buy_product",
            instruction=text,
            goal=MappingProxyType(goal),
            oracle=oracle_plan(shop_index(conn), goal),
            start_path="/",
        )

    def finished(self, task: Task, conn: sqlite3.Connection) -> bool:
        """True once an order was placed."""
        return conn.execute("SELECT 1 FROM orders LIMIT 1").fetchone() is not None

    def score(self, task: Task, conn: sqlite3.Connection, answer: str | None) -> float:
        """``reward`` of the first order (mean over its items); 0.0 if nothing was bought."""
        rows = conn.execute(
            "SELECT product_id, options, price_cents FROM orders WHERE order_no = "
            "(SELECT MIN(order_no) FROM orders) ORDER BY id"
        ).fetchall()
        rewards = []
        for product_id, options, cents in rows:
            product = load_product(conn, product_id)
            if product is not None:
                rewards.append(reward(task.goal, product, json.loads(options), cents))
        return sum(rewards) / len(rows) if rows else 0.0

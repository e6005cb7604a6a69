"""The shop's catalog and instructions: a seeded generator and the SQLite schema they fill.

``generate_catalog`` draws every product from ``vocabulary`` with a fixed seed, and
``generate_instructions`` derives WebShop-style shopping instructions from target
products (a subset of the target's attributes, one value per option group, a price
ceiling above its price). ``build_database`` writes both, plus the empty cart and order
tables the app fills, into one SQLite file; ``load_products``/``load_product`` read them.
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.web.sites.shop.vocabulary import (
    BRANDS,
    CATALOG_VERSION,
    LINES,
    PRODUCT_TYPES,
    title_case,
)

__all__ = [
    "N_INSTRUCTIONS",
    "PRODUCTS_PER_TYPE",
    "Product",
    "build_database",
    "format_price",
    "generate_catalog",
    "generate_instructions",
    "load_product",
    "load_products",
    "write_database",
]

PRODUCTS_PER_TYPE = 50
"""Products drawn for every product type (22 types: 1,100 products)."""
N_INSTRUCTIONS = 600
"""Instructions written into the database, each for a distinct target product."""
_SEED = 20220701  # fixed: the catalog is part of the env's definition, not of a run

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE products (
    id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
    category TEXT NOT NULL, brand TEXT NOT NULL, price_cents INTEGER NOT NULL,
    rating REAL NOT NULL, reviews INTEGER NOT NULL, description TEXT NOT NULL
);
CREATE TABLE attributes (
    product_id INTEGER NOT NULL REFERENCES products(id), position INTEGER NOT NULL,
    attribute TEXT NOT NULL, PRIMARY KEY (product_id, position)
);
CREATE TABLE options (
    product_id INTEGER NOT NULL REFERENCES products(id), group_position INTEGER NOT NULL,
    name TEXT NOT NULL, position INTEGER NOT NULL, value TEXT NOT NULL,
    PRIMARY KEY (product_id, group_position, position)
);
CREATE TABLE instructions (
    id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL REFERENCES products(id),
    text TEXT NOT NULL, goal TEXT NOT NULL
);
CREATE TABLE cart (
    id INTEGER PRIMARY KEY AUTOINCREMENT, product_id INTEGER NOT NULL REFERENCES products(id),
    options TEXT NOT NULL, price_cents INTEGER NOT NULL
);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY AUTOINCREMENT, order_no INTEGER NOT NULL,
    product_id INTEGER NOT NULL REFERENCES products(id), options TEXT NOT NULL,
    price_cents INTEGER NOT NULL
);
"""
"""The tables: catalog (products, attributes, options), instructions, cart and orders.

``options`` columns of ``cart`` and ``orders`` hold the chosen ``{group: value}`` as
JSON; ``instructions.goal`` holds the goal as JSON (see ``generate_instructions``).
"""


@dataclass(frozen=True)
class Product:
    """One catalog product.

    Attributes:
        id: its row id (1-based, in generation order).
        title: brand, line, attributes and type, unique over the catalog.
        type: its product type (``"running shoes"``).
        category: its department (``"shoes"``).
        brand: the brand name.
        price_cents: the price in cents.
        rating: average rating out of 5.
        reviews: number of ratings.
        description: a short description.
        attributes: its features, in vocabulary order.
        options: ``(group, values)`` pairs, the values it is offered in.

    """

    id: int
    title: str
    type: str
    category: str
    brand: str
    price_cents: int
    rating: float
    reviews: int
    description: str
    attributes: tuple[str, ...]
    options: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def price_text(self) -> str:
        """The price as shown on the pages (``"$54.99"``)."""
        return format_price(self.price_cents)

    def option_values(self, group: str) -> tuple[str, ...]:
        """The values offered in ``group`` (empty if the product has no such group)."""
        return next((values for name, values in self.options if name == group), ())


def format_price(cents: int) -> str:
    """Cents as a dollar price.

    >>> format_price(5499)
    '$54.99'
    """
    return f"${cents // 100}.{cents % 100:02d}"


def _join(words: list[str] | tuple[str, ...]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def generate_catalog(per_type: int = PRODUCTS_PER_TYPE) -> list[Product]:
    """Draw the catalog: ``per_type`` products of every type, the same on every call.

    >>> products = generate_catalog(2)
    >>> len(products), products[0].type
    (44, 'running shoes')
    """
    rng = np.random.default_rng(_SEED)
    products: list[Product] = []
    titles: set[str] = set()
    for ptype in PRODUCT_TYPES:
        for _ in range(per_type):
            n_attrs = int(rng.integers(2, 5))
            picked = sorted(rng.choice(len(ptype.attributes), n_attrs, replace=False))
            attributes = tuple(ptype.attributes[i] for i in picked)
            brand = BRANDS[int(rng.integers(len(BRANDS)))]
            features = title_case(" ".join(attributes))
            # Titles are link names on the results page, so they must be unique.
            for attempt in range(100):
                line = LINES[int(rng.integers(len(LINES)))]
                if attempt >= 50:
                    line = f"{line} {attempt}"
                title = f"{brand} {line} {features} {title_case(ptype.name)}"
                if title not in titles:
                    break
            titles.add(title)
            options = []
            for group, values in ptype.options:
                k = int(rng.integers(2, min(5, len(values)) + 1))
                chosen = sorted(rng.choice(len(values), k, replace=False))
                options.append((group, tuple(values[i] for i in chosen)))
            low, high = ptype.price
            price_cents = int(rng.integers(round(low * 100), round(high * 100) + 1))
            blurb = ptype.blurbs[int(rng.integers(len(ptype.blurbs)))]
            description = f"The {brand} {line} {ptype.name}: {_join(attributes)}. {blurb}"
            products.append(
                Product(
                    id=len(products) + 1,
                    title=title,
                    type=ptype.name,
                    category=ptype.category,
                    brand=brand,
                    price_cents=price_cents,
                    rating=round(float(rng.uniform(3.0, 5.0)), 1),
                    reviews=int(rng.integers(3, 5000)),
                    description=description,
                    attributes=attributes,
                    options=tuple(options),
                )
            )
    return products


_OPENERS = ("i am looking for", "i need", "i want to buy", "find me", "i'd like to get")


def _option_phrase(group: str, value: str) -> str:
    """How an instruction asks for an option: ``color: black``, but just ``pack of 2``."""
    if group in ("pack", "count"):
        return value
    return f"{group}: {value}"


def generate_instructions(
    products: list[Product], n: int = N_INSTRUCTIONS
) -> list[tuple[int, str, dict[str, Any]]]:
    """WebShop-style instructions for ``n`` distinct target products, the same on every call.

    Each goal is ``{"product_id", "type", "attributes", "options", "price_upper"}``:
    1 to 3 of the target's attributes, one offered value of each of its option groups,
    and a round price ceiling above its price, so the target always satisfies it.

    Returns:
        ``(target product id, instruction text, goal)`` triples.

    """
    rng = np.random.default_rng(_SEED + 1)
    out = []
    for t in rng.choice(len(products), n, replace=False):
        product = products[int(t)]
        k = int(rng.integers(1, min(3, len(product.attributes)) + 1))
        picked = sorted(rng.choice(len(product.attributes), k, replace=False))
        attributes = [product.attributes[i] for i in picked]
        options = {
            group: values[int(rng.integers(len(values)))] for group, values in product.options
        }
        step = 10 if product.price_cents >= 4000 else 5
        dollars = product.price_cents / 100 * float(rng.uniform(1.05, 1.6))
        price_upper = float(step * math.ceil(dollars / step))
        opener = _OPENERS[int(rng.integers(len(_OPENERS)))]
        if rng.random() < 0.5:
            wanted = f"{_join(attributes)} {product.type}"
        else:
            verb = "are" if product.type.endswith("s") else "is"  # the plural types end in s
            wanted = f"{product.type} that {verb} {_join(attributes)}"
        asked = ", ".join(_option_phrase(g, v) for g, v in options.items())
        text = f"{opener} {wanted} with {asked}, and price lower than {price_upper:.2f} dollars"
        goal = {
            "product_id": product.id,
            "type": product.type,
            "attributes": attributes,
            "options": options,
            "price_upper": price_upper,
        }
        out.append((product.id, text, goal))
    return out


def _product_row(p: Product) -> tuple[Any, ...]:
    """The ``products`` table row of ``p``."""
    return (
        p.id,
        p.title,
        p.type,
        p.category,
        p.brand,
        p.price_cents,
        p.rating,
        p.reviews,
        p.description,
    )


def build_database(path: Path) -> None:
    """Write the catalog and instructions into a new SQLite file at ``path``.

    The content is the same on every call (fixed seeds, fixed insertion order).
    """
    products = generate_catalog()
    write_database(path, products, generate_instructions(products), {"catalog": CATALOG_VERSION})


def write_database(
    path: Path,
    products: list[Product],
    instructions: list[tuple[int, str, dict[str, Any]]],
    meta: dict[str, str],
) -> None:
    """Write ``products``, ``instructions`` and the ``meta`` rows into a new SQLite file.

    ``meta`` needs ``"catalog"`` (the version that names the catalog); the hard catalog
    adds ``"difficulty": "hard"`` (see ``search.shop_index``).
    """
    conn = sqlite3.connect(path)
    try:
        conn.executescript(SCHEMA)
        conn.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
        conn.executemany(
            "INSERT INTO products VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [_product_row(p) for p in products],
        )
        conn.executemany(
            "INSERT INTO attributes VALUES (?, ?, ?)",
            [(p.id, i, a) for p in products for i, a in enumerate(p.attributes)],
        )
        conn.executemany(
            "INSERT INTO options VALUES (?, ?, ?, ?, ?)",
            [
                (p.id, g, name, i, value)
                for p in products
                for g, (name, values) in enumerate(p.options)
                for i, value in enumerate(values)
            ],
        )
        conn.executemany(
            "INSERT INTO instructions VALUES (?, ?, ?, ?)",
            [
                (i, pid, text, json.dumps(goal, sort_keys=True))
                for i, (pid, text, goal) in enumerate(instructions, start=1)
            ],
        )
        conn.commit()
    finally:
        conn.close()


def _query(conn: sqlite3.Connection, product_id: int | None) -> list[Product]:
    """The product with ``product_id`` (or every product when None), by id."""
    one = product_id is not None
    args: tuple[Any, ...] = (product_id,) if one else ()
    rows = conn.execute(
        "SELECT id, title, type, category, brand, price_cents, rating, reviews, description "
        "FROM products" + (" WHERE id = ?" if one else "") + " ORDER BY id",
        args,
    ).fetchall()
    where = " WHERE product_id = ?" if one else ""
    attributes: dict[int, list[str]] = {}
    for pid, attribute in conn.execute(
        "SELECT product_id, attribute FROM attributes" + where + " ORDER BY product_id, position",
        args,
    ):
        attributes.setdefault(pid, []).append(attribute)
    options: dict[int, dict[str, list[str]]] = {}
    for pid, name, value in conn.execute(
        "SELECT product_id, name, value FROM options"
        + where
        + " ORDER BY product_id, group_position, position",
        args,
    ):
        options.setdefault(pid, {}).setdefault(name, []).append(value)
    return [
        Product(
            id=r[0],
            title=r[1],
            type=r[2],
            category=r[3],
            brand=r[4],
            price_cents=r[5],
            rating=r[6],
            reviews=r[7],
            description=r[8],
            attributes=tuple(attributes.get(r[0], ())),
            options=tuple((g, tuple(v)) for g, v in options.get(r[0], {}).items()),
        )
        for r in rows
    ]


def load_products(conn: sqlite3.Connection) -> list[Product]:
    """Every product of the database, by id."""
    return _query(conn, None)


def load_product(conn: sqlite3.Connection, product_id: int) -> Product | None:
    """The product with this id, or None."""
    found = _query(conn, product_id)
    return found[0] if found else None

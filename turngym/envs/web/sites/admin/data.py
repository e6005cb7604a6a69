"""The shop back-office's SQLite schema and its deterministic generator.

``build(path)`` writes the same content every time: one fixed NumPy seed draws 200
customers (unique full names and emails), 150 products (unique names and SKUs) and 600
orders numbered from 1001, each with 1-4 items, totals in cents and a shipping address.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

__all__ = ["FIRST_ORDER", "SCHEMA", "STATUSES", "build"]

FIRST_ORDER = 1001
"""The number of the first order (Magento-style order numbers are not row counts)."""

STATUSES = ("pending", "processing", "on hold", "shipped", "complete", "canceled")
"""Order statuses, in the order the status drop-down lists them."""

SCHEMA = """
CREATE TABLE customers (
    id INTEGER PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL,
    email TEXT UNIQUE NOT NULL, phone TEXT NOT NULL, city TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE products (
    id INTEGER PRIMARY KEY, sku TEXT UNIQUE NOT NULL, name TEXT UNIQUE NOT NULL,
    price_cents INTEGER NOT NULL, stock INTEGER NOT NULL);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
    status TEXT NOT NULL, created TEXT NOT NULL, ship_name TEXT NOT NULL,
    ship_street TEXT NOT NULL, ship_city TEXT NOT NULL, ship_state TEXT NOT NULL,
    ship_zip TEXT NOT NULL, subtotal_cents INTEGER NOT NULL, shipping_cents INTEGER NOT NULL,
    grand_total_cents INTEGER NOT NULL);
CREATE TABLE order_items (
    id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
    product_id INTEGER NOT NULL REFERENCES products(id), name TEXT NOT NULL, sku TEXT NOT NULL,
    price_cents INTEGER NOT NULL, qty INTEGER NOT NULL);
CREATE INDEX orders_customer ON orders(customer_id);
CREATE INDEX items_order ON order_items(order_id);
"""

_SEED = 20231101
_N_CUSTOMERS, _N_PRODUCTS, _N_ORDERS = 200, 150, 600

_FIRST = (
    "Olivia",
    "Liam",
    "Ava",
    "Noah",
    "Mia",
    "Ethan",
    "Zoe",
    "Lucas",
    "Chloe",
    "Mason",
    "Isla",
    "Owen",
    "Leah",
    "Caleb",
    "Nora",
    "Ryan",
    "Ella",
    "Adrian",
    "Ruby",
    "Felix",
    "Maya",
    "Jonah",
    "Clara",
    "Hugo",
    "Ivy",
    "Theo",
    "Lena",
    "Miles",
    "Alice",
    "Victor",
)
_LAST = (
    "Anderson",
    "Bennett",
    "Carter",
    "Dawson",
    "Ellis",
    "Fischer",
    "Gomez",
    "Hughes",
    "Ivanova",
    "Jackson",
    "Keller",
    "Lindqvist",
    "Moreau",
    "Nakamura",
    "Olsen",
    "Perez",
    "Quinn",
    "Reyes",
    "Sato",
    "Thompson",
    "Underwood",
    "Vargas",
    "Whitaker",
    "Young",
)
# (city, state, zip prefix)
_PLACES = (
    ("Springfield", "IL", "627"),
    ("Columbus", "OH", "432"),
    ("Tucson", "AZ", "857"),
    ("Raleigh", "NC", "276"),
    ("Madison", "WI", "537"),
    ("Boise", "ID", "837"),
    ("Albany", "NY", "122"),
    ("Eugene", "OR", "974"),
    ("Savannah", "GA", "314"),
    ("Fresno", "CA", "937"),
    ("Omaha", "NE", "681"),
    ("Burlington", "VT", "054"),
)
_STREETS = (
    "Maple Ave",
    "Oak Street",
    "Pine Road",
    "Cedar Lane",
    "Elm Street",
    "Lakeview Drive",
    "Hillcrest Road",
    "Main Street",
    "River Road",
    "Sunset Blvd",
    "Park Avenue",
    "Birch Way",
)
_MATERIAL = (
    "Cotton",
    "Merino",
    "Linen",
    "Bamboo",
    "Denim",
    "Fleece",
    "Canvas",
    "Leather",
    "Recycled",
    "Organic",
)
_KIND = (
    ("T-Shirt", 1500, 3500),
    ("Hoodie", 4000, 8000),
    ("Socks", 800, 1800),
    ("Backpack", 4500, 12000),
    ("Beanie", 1200, 2800),
    ("Jacket", 7000, 22000),
    ("Tote Bag", 1500, 4000),
    ("Scarf", 1800, 4500),
    ("Sweater", 4500, 11000),
    ("Cap", 1200, 3000),
    ("Shorts", 2000, 4500),
    ("Joggers", 3500, 7500),
    ("Gloves", 1500, 4000),
    ("Apron", 1800, 3500),
    ("Polo Shirt", 2500, 5500),
)
_COLOUR = ("Navy", "Olive", "Charcoal", "Sand", "Rust", "Sky", "Black", "White")
_STATUS_P = (0.12, 0.15, 0.04, 0.16, 0.43, 0.10)


def _address(rng: np.random.Generator) -> tuple[str, str, str, str]:
    city, state, prefix = _PLACES[int(rng.integers(len(_PLACES)))]
    street = f"{int(rng.integers(1, 9999))} {_STREETS[int(rng.integers(len(_STREETS)))]}"
    return street, city, state, f"{prefix}{int(rng.integers(0, 100)):02d}"


def build(path: Path) -> None:
    """Write the back-office database to ``path`` (same content on every call)."""
    rng = np.random.default_rng(_SEED)
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    start = datetime(2023, 1, 1, 9, 0)

    pairs = rng.choice(len(_FIRST) * len(_LAST), size=_N_CUSTOMERS, replace=False)
    customers = []
    for cid, k in enumerate(pairs, start=1):
        first, last = _FIRST[k // len(_LAST)], _LAST[k % len(_LAST)]
        domain = ("example.com", "mail.test", "inbox.example.org")[int(rng.integers(3))]
        email = f"{first.lower()}.{last.lower()}@{domain}"
        phone = f"555-{int(rng.integers(100, 1000))}-{int(rng.integers(1000, 10000))}"
        city = _PLACES[int(rng.integers(len(_PLACES)))][0]
        joined = start + timedelta(days=int(rng.integers(0, 300)))
        customers.append((cid, first, last, email, phone, city, joined.strftime("%Y-%m-%d")))
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?)", customers)

    combos = rng.choice(len(_MATERIAL) * len(_KIND) * len(_COLOUR), size=_N_PRODUCTS, replace=False)
    products = []
    for pid, k in enumerate(combos, start=1):
        colour = _COLOUR[k % len(_COLOUR)]
        kind, low, high = _KIND[(k // len(_COLOUR)) % len(_KIND)]
        material = _MATERIAL[k // (len(_COLOUR) * len(_KIND))]
        price = int(rng.integers(low // 100, high // 100)) * 100 - 1  # $xx.99
        sku = f"{kind[:2].upper()}-{1000 + pid}"
        stock = int(rng.integers(0, 250))
        products.append((pid, sku, f"{material} {kind} - {colour}", price, stock))
    conn.executemany("INSERT INTO products VALUES (?, ?, ?, ?, ?)", products)

    # A few customers order a lot, many once or never: draw buyers from skewed weights.
    weights = rng.gamma(0.7, 1.0, size=_N_CUSTOMERS)
    buyers = rng.choice(_N_CUSTOMERS, size=_N_ORDERS, p=weights / weights.sum())
    t = start + timedelta(days=30)
    orders, items = [], []
    for n, buyer in enumerate(buyers):
        oid = FIRST_ORDER + n
        t += timedelta(minutes=int(rng.integers(30, 900)))
        first, last = customers[int(buyer)][1:3]
        subtotal = 0
        for k in rng.choice(_N_PRODUCTS, size=int(rng.integers(1, 5)), replace=False):
            _, sku, name, price, _ = products[int(k)]
            qty = int(rng.choice((1, 1, 1, 2, 3)))
            items.append((oid, int(k) + 1, name, sku, price, qty))
            subtotal += price * qty
        shipping = 0 if subtotal >= 10000 else 599
        status = str(rng.choice(STATUSES, p=_STATUS_P))
        orders.append(
            (
                oid,
                int(buyer) + 1,
                status,
                t.strftime("%Y-%m-%d %H:%M"),
                f"{first} {last}",
                *_address(rng),
                subtotal,
                shipping,
                subtotal + shipping,
            )
        )
    conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", orders)
    conn.executemany(
        "INSERT INTO order_items (order_id, product_id, name, sku, price_cents, qty)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        items,
    )
    conn.commit()
    conn.close()

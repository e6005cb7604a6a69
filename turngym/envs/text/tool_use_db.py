"""The retail store behind ``ToolUse-v0``: rows drawn from the RNG, SQLite, tools, goals.

``build_rows`` samples a small store (users, products with variants, orders) and
``sample_goal`` picks one customer request that the store can serve. ``Store`` holds
the rows in an in-memory SQLite database and implements the tools the agent calls;
a tool-level failure (unknown order, order not pending, ...) raises ``ToolError``,
which the env shows to the agent as the tool's result. ``apply_goal`` plays the
request's intended writes, so a copy of the store gives the expected final state.

>>> import numpy as np
>>> rows = build_rows(np.random.default_rng(0))
>>> store = Store(rows)
>>> sorted(store.snapshot())
['items', 'order_items', 'orders']
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from turngym.envs.text.tool_use_data import (
    CANCEL_REASONS,
    FIRST_NAMES,
    LAST_NAMES,
    PAYMENT_METHODS,
    PRODUCTS,
)

__all__ = [
    "GOAL_KINDS",
    "Store",
    "StoreRows",
    "ToolError",
    "apply_goal",
    "build_rows",
    "norm_order_id",
    "sample_goal",
]

GOAL_KINDS: tuple[str, ...] = ("cancel", "modify", "return")

_SCHEMA = """
CREATE TABLE users (user_id TEXT PRIMARY KEY, name TEXT, email TEXT, zip TEXT);
CREATE TABLE products (product_id TEXT PRIMARY KEY, name TEXT);
CREATE TABLE items (item_id TEXT PRIMARY KEY, product_id TEXT, options TEXT,
                    price_cents INTEGER, stock INTEGER);
CREATE TABLE orders (order_id TEXT PRIMARY KEY, user_id TEXT, status TEXT,
                     payment_method TEXT, cancel_reason TEXT);
CREATE TABLE order_items (order_id TEXT, line INTEGER, item_id TEXT, returned INTEGER,
                          PRIMARY KEY (order_id, line));
"""
# The tables a request can change; the reward compares exactly these.
_STATE_TABLES: tuple[str, ...] = ("items", "orders", "order_items")
_STATUS_WEIGHTS = {"pending": 0.35, "processed": 0.15, "delivered": 0.4, "cancelled": 0.1}


class ToolError(Exception):
    """A valid tool call that the store refuses; the message is the tool's result."""


@dataclass
class StoreRows:
    """The rows of every table, as plain tuples in schema column order."""

    users: list[tuple[str, str, str, str]] = field(default_factory=list)
    products: list[tuple[str, str]] = field(default_factory=list)
    items: list[list[Any]] = field(default_factory=list)
    orders: list[list[Any]] = field(default_factory=list)
    order_items: list[tuple[str, int, str, int]] = field(default_factory=list)


def build_rows(rng: np.random.Generator, n_users: int = 12, n_products: int = 8) -> StoreRows:
    """Sample a store: ``n_users`` users with 2-4 orders each, ``n_products`` products."""
    rows = StoreRows()
    picked = rng.choice(len(PRODUCTS), size=n_products, replace=False)
    item_numbers = iter(rng.choice(9000, size=n_products * 4, replace=False) + 1000)
    variants: dict[str, list[str]] = {}
    for j, k in enumerate(picked):
        name, options = PRODUCTS[int(k)]
        pid = f"p{j + 1}"
        rows.products.append((pid, name))
        combos = list(itertools.product(*(values for _, values in options)))
        n_var = int(rng.integers(3, 5))
        base = int(rng.integers(15, 120)) * 100 - 1
        variants[pid] = []
        for c in rng.choice(len(combos), size=n_var, replace=False):
            text = ", ".join(f"{o}: {v}" for (o, _), v in zip(options, combos[int(c)], strict=True))
            item_id = f"i{next(item_numbers)}"
            price = base + 100 * int(rng.integers(-3, 4))
            stock = 0 if rng.random() < 0.2 else int(rng.integers(1, 8))
            rows.items.append([item_id, pid, text, price, stock])
            variants[pid].append(item_id)
    firsts = rng.choice(len(FIRST_NAMES), size=n_users, replace=False)
    lasts = rng.choice(len(LAST_NAMES), size=n_users, replace=False)
    order_numbers = iter(rng.choice(9000, size=n_users * 4, replace=False) + 1000)
    statuses = list(_STATUS_WEIGHTS)
    weights = np.array(list(_STATUS_WEIGHTS.values()))
    pids = [p for p, _ in rows.products]
    for i, (f, g) in enumerate(zip(firsts, lasts, strict=True)):
        first, last = FIRST_NAMES[int(f)], LAST_NAMES[int(g)]
        uid = f"u{i + 1}"
        email = f"{first}.{last}{int(rng.integers(10, 100))}@example.com".lower()
        rows.users.append((uid, f"{first} {last}", email, str(int(rng.integers(10000, 100000)))))
        for _ in range(int(rng.integers(2, 5))):
            oid = f"#W{next(order_numbers)}"
            status = statuses[int(rng.choice(len(statuses), p=weights))]
            pay = PAYMENT_METHODS[int(rng.integers(len(PAYMENT_METHODS)))]
            rows.orders.append([oid, uid, status, pay, None])
            n_lines = min(int(rng.integers(1, 4)), len(pids))
            chosen = rng.choice(len(pids), size=n_lines, replace=False)
            for line, p in enumerate(chosen):
                choices = variants[pids[int(p)]]
                rows.order_items.append((oid, line, choices[int(rng.integers(len(choices)))], 0))
    return rows


class Store:
    """The store in an in-memory SQLite database, with one method per tool.

    Read tools return JSON text; write tools return a confirmation; both raise
    ``ToolError`` when the call cannot be served.
    """

    def __init__(self, rows: StoreRows) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.executescript(_SCHEMA)
        for table in ("users", "products", "items", "orders", "order_items"):
            data = [tuple(r) for r in getattr(rows, table)]
            if data:
                marks = ", ".join("?" * len(data[0]))
                self.conn.executemany(f"INSERT INTO {table} VALUES ({marks})", data)
        self.conn.commit()

    def close(self) -> None:
        """Free the database."""
        self.conn.close()

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        """The rows of every table a request can change, in a canonical order."""
        return {
            t: self.conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
            for t in _STATE_TABLES
        }

    def _one(self, sql: str, *args: Any) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self.conn.execute(sql, args).fetchone()
        return row

    def _all(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, args).fetchall()

    # -- reads -----------------------------------------------------------------------

    def find_user(self, email: str) -> str:
        """The user id registered with ``email``."""
        row = self._one("SELECT user_id FROM users WHERE email = ?", email.strip().lower())
        if row is None:
            raise ToolError(f"no user with email {email!r}")
        return str(row[0])

    def find_user_by_name(self, name: str, zip: str) -> str:
        """The user id of the customer called ``name`` living in ``zip``."""
        wanted = " ".join(name.split()).lower()
        for uid, full, code in self._all("SELECT user_id, name, zip FROM users"):
            if full.lower() == wanted and code == zip.strip():
                return str(uid)
        raise ToolError(f"no user named {name!r} with zip code {zip!r}")

    def get_user(self, user_id: str) -> str:
        """The user's details and order ids, as JSON."""
        uid = _norm_id(user_id)
        row = self._one("SELECT user_id, name, email, zip FROM users WHERE user_id = ?", uid)
        if row is None:
            raise ToolError(f"user {user_id!r} not found")
        orders = [r[0] for r in self._all("SELECT order_id FROM orders WHERE user_id = ?", uid)]
        keys = ("user_id", "name", "email", "zip")
        return json.dumps({**dict(zip(keys, row, strict=True)), "orders": orders})

    def list_orders(self, user_id: str) -> str:
        """Every order of the user with its status and items, as JSON."""
        uid = _norm_id(user_id)
        if self._one("SELECT 1 FROM users WHERE user_id = ?", uid) is None:
            raise ToolError(f"user {user_id!r} not found")
        out = []
        for oid, status in self._all(
            "SELECT order_id, status FROM orders WHERE user_id = ? ORDER BY order_id", uid
        ):
            items = [f"{name} ({opts})" for _, _, name, opts, _, _ in self._lines(oid)]
            out.append({"order_id": oid, "status": status, "items": items})
        return json.dumps(out)

    def _lines(self, order_id: str) -> list[tuple[Any, ...]]:
        """(item_id, product_id, product name, options, price_cents, returned) per line."""
        return self._all(
            "SELECT oi.item_id, i.product_id, p.name, i.options, i.price_cents, oi.returned "
            "FROM order_items oi JOIN items i ON oi.item_id = i.item_id "
            "JOIN products p ON i.product_id = p.product_id "
            "WHERE oi.order_id = ? ORDER BY oi.line",
            order_id,
        )

    def _order(self, order_id: str) -> tuple[str, str, str]:
        """(order_id, user_id, status) of an order, or ``ToolError``."""
        oid = norm_order_id(order_id)
        row = self._one("SELECT order_id, user_id, status FROM orders WHERE order_id = ?", oid)
        if row is None:
            raise ToolError(f"order {order_id!r} not found")
        return str(row[0]), str(row[1]), str(row[2])

    def get_order(self, order_id: str) -> str:
        """The order's status, payment method and items, as JSON."""
        oid, uid, status = self._order(order_id)
        row = self._one("SELECT payment_method FROM orders WHERE order_id = ?", oid)
        assert row is not None
        items = [
            {
                "item_id": item,
                "product_id": pid,
                "product": name,
                "options": opts,
                "price": cents / 100,
                **({"returned": True} if returned else {}),
            }
            for item, pid, name, opts, cents, returned in self._lines(oid)
        ]
        return json.dumps(
            {"order_id": oid, "user_id": uid, "status": status, "payment_method": row[0]}
            | {"items": items}
        )

    def get_product(self, product_id: str) -> str:
        """The product's variants with options, price and stock, as JSON."""
        pid = _norm_id(product_id)
        row = self._one("SELECT name FROM products WHERE product_id = ?", pid)
        if row is None:
            raise ToolError(f"product {product_id!r} not found")
        variants = [
            {"item_id": item, "options": opts, "price": cents / 100, "stock": stock}
            for item, opts, cents, stock in self._all(
                "SELECT item_id, options, price_cents, stock FROM items "
                "WHERE product_id = ? ORDER BY item_id",
                pid,
            )
        ]
        return json.dumps({"product_id": pid, "name": row[0], "variants": variants})

    # -- writes ----------------------------------------------------------------------

    def cancel_order(self, order_id: str, reason: str) -> str:
        """Cancel a pending order and put its items back in stock."""
        oid, _, status = self._order(order_id)
        if status != "pending":
            raise ToolError(f"order {oid} is {status}; only pending orders can be cancelled")
        why = " ".join(reason.split()).lower()
        if why not in CANCEL_REASONS:
            allowed = " or ".join(repr(r) for r in CANCEL_REASONS)
            raise ToolError(f"the reason must be {allowed}, got {reason!r}")
        self.conn.execute(
            "UPDATE orders SET status = 'cancelled', cancel_reason = ? WHERE order_id = ?",
            (why, oid),
        )
        for item, *_ in self._lines(oid):
            self.conn.execute("UPDATE items SET stock = stock + 1 WHERE item_id = ?", (item,))
        self.conn.commit()
        return f"order {oid} cancelled (reason: {why}); the refund goes to the original payment"

    def modify_order_items(self, order_id: str, item_id: str, new_item_id: str) -> str:
        """Swap one item of a pending order for another variant of the same product."""
        oid, _, status = self._order(order_id)
        if status != "pending":
            raise ToolError(f"order {oid} is {status}; only pending orders can be modified")
        old, new = _norm_id(item_id), _norm_id(new_item_id)
        line = self._one(
            "SELECT line FROM order_items WHERE order_id = ? AND item_id = ?", oid, old
        )
        if line is None:
            raise ToolError(f"item {item_id!r} is not in order {oid}")
        old_row = self._one("SELECT product_id FROM items WHERE item_id = ?", old)
        new_row = self._one("SELECT product_id, stock FROM items WHERE item_id = ?", new)
        if new_row is None:
            raise ToolError(f"item {new_item_id!r} not found")
        if old == new:
            raise ToolError("the new item is the same as the old one")
        if old_row is None or new_row[0] != old_row[0]:
            raise ToolError(f"item {new} is not a variant of the same product as {old}")
        if new_row[1] <= 0:
            raise ToolError(f"item {new} is out of stock")
        self.conn.execute(
            "UPDATE order_items SET item_id = ? WHERE order_id = ? AND line = ?",
            (new, oid, line[0]),
        )
        self.conn.execute("UPDATE items SET stock = stock - 1 WHERE item_id = ?", (new,))
        self.conn.execute("UPDATE items SET stock = stock + 1 WHERE item_id = ?", (old,))
        self.conn.commit()
        return f"order {oid}: item {old} replaced by {new}"

    def return_items(self, order_id: str, item_ids: list[str]) -> str:
        """Request the return of some items of a delivered order (one request per order)."""
        oid, _, status = self._order(order_id)
        if status != "delivered":
            raise ToolError(f"order {oid} is {status}; only delivered orders can be returned")
        wanted = [_norm_id(i) for i in item_ids]
        if not wanted:
            raise ToolError("item_ids is empty; list the items to return")
        if len(set(wanted)) != len(wanted):
            raise ToolError("item_ids lists an item twice")
        in_order = {line[0] for line in self._lines(oid)}
        missing = [i for i in wanted if i not in in_order]
        if missing:
            raise ToolError(f"items {missing} are not in order {oid}")
        self.conn.execute(
            "UPDATE orders SET status = 'return requested' WHERE order_id = ?", (oid,)
        )
        self.conn.executemany(
            "UPDATE order_items SET returned = 1 WHERE order_id = ? AND item_id = ?",
            [(oid, i) for i in wanted],
        )
        self.conn.commit()
        return f"return requested for {', '.join(wanted)} of order {oid}"


def _norm_id(text: str) -> str:
    return text.strip().lower()


def norm_order_id(text: str) -> str:
    """Order ids are ``#W`` + digits; accept ``w1234``, ``W1234`` and ``#w1234`` too.

    >>> norm_order_id(" w1234 ")
    '#W1234'
    """
    body = text.strip().lstrip("#")
    return "#" + body.upper()


def _describe(rows: StoreRows, item_id: str) -> tuple[str, str]:
    """(product name, options) of an item."""
    names = dict(rows.products)
    for item, pid, opts, *_ in rows.items:
        if item == item_id:
            return names[pid], opts
    raise KeyError(item_id)


def sample_goal(rng: np.random.Generator, rows: StoreRows, kind: str | None = None) -> dict:
    """Pick a request the store can serve, fixing ``rows`` up if none fits (rarely).

    The goal holds the customer's identity, the target order, what to do with it and
    what the customer knows (``knows_email``, ``knows_order_id``).
    """
    kind = kind or GOAL_KINDS[int(rng.integers(len(GOAL_KINDS)))]
    lines: dict[str, list[str]] = {}
    for oid, _, item, _ in rows.order_items:
        lines.setdefault(oid, []).append(item)
    product_of = {r[0]: r[1] for r in rows.items}
    stock = {r[0]: r[4] for r in rows.items}

    def swaps(item: str) -> list[str]:
        return [r[0] for r in rows.items if r[1] == product_of[item] and r[0] != item and r[4] > 0]

    need = "delivered" if kind == "return" else "pending"
    fits = [o for o in rows.orders if o[2] == need]
    if kind == "modify":
        fits = [o for o in fits if any(swaps(i) for i in lines[o[0]])]
    if not fits:
        order = rows.orders[int(rng.integers(len(rows.orders)))]
        order[2] = need
        if kind == "modify" and not any(swaps(i) for i in lines[order[0]]):
            item = lines[order[0]][0]
            other = next(r for r in rows.items if r[1] == product_of[item] and r[0] != item)
            other[4] = stock[other[0]] = 1
        fits = [order]
    order = fits[int(rng.integers(len(fits)))]
    oid, uid = order[0], order[1]
    user = next(u for u in rows.users if u[0] == uid)
    goal: dict[str, Any] = {
        "kind": kind,
        "user_id": uid,
        "name": user[1],
        "email": user[2],
        "zip": user[3],
        "order_id": oid,
        "knows_email": bool(rng.random() < 0.7),
    }
    mine = lines[oid]
    if kind == "cancel":
        goal["reason"] = CANCEL_REASONS[int(rng.integers(len(CANCEL_REASONS)))]
        focus = mine
    elif kind == "modify":
        options = [i for i in mine if swaps(i)]
        item = options[int(rng.integers(len(options)))]
        alts = swaps(item)
        new = alts[int(rng.integers(len(alts)))]
        goal |= {"item_id": item, "new_item_id": new, "product_id": product_of[item]}
        goal["product"] = _describe(rows, item)[0]
        goal |= {"old_options": _describe(rows, item)[1], "new_options": _describe(rows, new)[1]}
        focus = [item]
    else:
        k = int(rng.integers(1, len(mine) + 1))
        picked = sorted(int(j) for j in rng.choice(len(mine), size=k, replace=False))
        goal["item_ids"] = [mine[j] for j in picked]
        goal["items"] = ["{} ({})".format(*_describe(rows, mine[j])) for j in picked]
        focus = goal["item_ids"]
    # The customer can describe the order by a product found in no other order of theirs.
    others = {
        product_of[i] for o in rows.orders if o[1] == uid and o[0] != oid for i in lines[o[0]]
    }
    unique = [i for i in focus + mine if product_of[i] not in others]
    knows_id = bool(rng.random() < 0.5) or not unique
    goal["knows_order_id"] = knows_id
    goal["order_hint"] = f"the order with the {_describe(rows, unique[0])[0]}" if unique else oid
    goal["instruction"] = _user_instruction(goal)
    return goal


def _user_instruction(goal: dict) -> str:
    """What the simulated customer wants, in the second person (for an LLM user too)."""
    who = f"You are {goal['name']} (email {goal['email']}, zip code {goal['zip']})."
    if goal["kind"] == "cancel":
        want = f"cancel order {goal['order_id']} (reason: {goal['reason']})"
    elif goal["kind"] == "modify":
        want = (
            f"change the {goal['product']} ({goal['old_options']}) in pending order "
            f"{goal['order_id']} to the variant with {goal['new_options']}"
        )
    else:
        want = f"return {', '.join(goal['items'])} from delivered order {goal['order_id']}"
    known = [] if goal["knows_email"] else ["you do not remember your email"]
    if not goal["knows_order_id"]:
        known.append(f"you do not know the order id, only that it is {goal['order_hint']}")
    extra = f" Note: {'; '.join(known)}." if known else ""
    return f"{who} You want to {want}.{extra}"


def apply_goal(store: Store, goal: dict) -> None:
    """Play the goal's intended writes on ``store`` (used to build the expected state)."""
    if goal["kind"] == "cancel":
        store.cancel_order(goal["order_id"], goal["reason"])
    elif goal["kind"] == "modify":
        store.modify_order_items(goal["order_id"], goal["item_id"], goal["new_item_id"])
    else:
        store.return_items(goal["order_id"], goal["item_ids"])

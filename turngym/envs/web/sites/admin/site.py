"""``AdminSite``: the back-office's task templates, their oracle plans and their scoring.

Ten templates: five change the shop (an order's shipping address or status, cancelling
an order, a product's price or stock) and five ask for a fact (an order's grand total or
customer, a customer's number of orders or email, how many orders have a status). A task
is drawn from the prepared database with the env's RNG only; ``score`` reads the
episode's database (and the answer). A change scores 1 only if the target row holds the
new values, its other columns are as they were, and nothing else in the whole database
changed (``pages.nothing_else_changed``: a price update plus a cancelled order is 0).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.web.sites.admin import data
from turngym.envs.web.sites.pages import (
    answer_matches,
    draw_task,
    expect_change,
    money,
    nothing_else_changed,
    pick,
    same_text,
)
from turngym.envs.web.tasks import Step, Task, WSGIApp

__all__ = ["AdminSite"]

_STREETS = (
    "18 Willow Court",
    "402 Harbor View Road",
    "77 Chestnut Street",
    "1250 Mill Lane",
    "9 Orchard Place",
    "310 Quarry Road",
)
_CITIES = (
    ("Dayton", "45402"),
    ("Reno", "89501"),
    ("Tacoma", "98402"),
    ("Provo", "84601"),
    ("Lansing", "48933"),
    ("Mobile", "36602"),
)
_NEW_STATUSES = ("processing", "on hold", "shipped", "complete")


def _count(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> int:
    return int(conn.execute(sql, tuple(params)).fetchone()[0])


def _open_order(oid: int) -> tuple[Step, ...]:
    """Find an order by its number in the order grid and open it."""
    return (
        Step.click("link", "Orders"),
        Step.fill("searchbox", "Search orders", str(oid)),
        Step.click("button", "Search"),
        Step.click("link", f"#{oid}"),
    )


def _open_customer(name: str) -> tuple[Step, ...]:
    return (
        Step.click("link", "Customers"),
        Step.fill("searchbox", "Search customers", name),
        Step.click("button", "Search"),
        Step.click("link", name),
    )


def _open_product(name: str) -> tuple[Step, ...]:
    return (
        Step.click("link", "Products"),
        Step.fill("searchbox", "Search products", name),
        Step.click("button", "Search"),
        Step.click("link", name),
    )


class AdminSite:
    """A shop back-office: 600 orders, 200 customers, 150 products.

    >>> site = AdminSite()
    >>> site.name, len(site.templates), "cancel_order" in site.templates
    ('admin-v1', 10, True)
    """

    name: str = "admin-v1"
    templates: tuple[str, ...] = (
        "change_shipping_address",
        "set_order_status",
        "cancel_order",
        "update_product_price",
        "update_product_stock",
        "order_grand_total",
        "order_customer",
        "customer_order_count",
        "customer_email",
        "status_count",
    )

    def build_database(self, path: Path) -> None:
        """Write the prepared back-office database to ``path``."""
        data.build(path)

    def app(self, db_path: Path) -> WSGIApp:
        """The back-office WSGI app serving ``db_path``."""
        from turngym.envs.web.sites.admin.app import make_app  # werkzeug only when serving

        return make_app(db_path)

    def sample_task(
        self, rng: np.random.Generator, conn: sqlite3.Connection, template: str | None = None
    ) -> Task:
        """Draw a task from ``template`` (or a template drawn with ``rng``)."""
        return draw_task(self, rng, conn, template)

    def finished(self, task: Task, conn: sqlite3.Connection) -> bool:
        """Never: back-office episodes end when the agent answers."""
        return False

    def score(self, task: Task, conn: sqlite3.Connection, answer: str | None) -> float:
        """1.0 if the goal holds and nothing else changed (or the answer is right), else 0.0."""
        conn.row_factory = sqlite3.Row
        goal = task.goal
        if "answers" in goal:
            return float(answer_matches(answer, goal["answers"]))
        if not nothing_else_changed(conn, goal):
            return 0.0
        row = conn.execute(f"SELECT * FROM {goal['table']} WHERE id = ?", (goal["id"],)).fetchone()
        if row is None:
            return 0.0
        # The target row: the asked-for columns hold the new values, the rest the old ones.
        wanted = all(same_text(row[k], v) for k, v in goal["set"].items())
        kept = all(row[k] == v for k, v in goal["kept"].items())
        return float(wanted and kept)

    @staticmethod
    def _change(
        conn: sqlite3.Connection, table: str, row: sqlite3.Row, new: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The goal of a task that sets ``new`` columns of one row and nothing else."""
        # The back-office keeps no log, session or timestamp of its edits: the target row
        # is the only one a change may touch, in any table.
        return {
            "table": table,
            "id": row["id"],
            "set": dict(new),
            "kept": {k: row[k] for k in row.keys() if k not in new},  # noqa: SIM118
            **expect_change(conn, {table: ("id = ?", [row["id"]])}),
        }

    @staticmethod
    def _row(
        rng: np.random.Generator, conn: sqlite3.Connection, table: str, where: str = "1"
    ) -> sqlite3.Row:
        return pick(
            rng, conn.execute(f"SELECT * FROM {table} WHERE {where} ORDER BY id").fetchall()
        )

    # ----- state-changing templates ------------------------------------------------------

    def _task_change_shipping_address(
        self, rng: np.random.Generator, conn: sqlite3.Connection
    ) -> Task:
        o = self._row(rng, conn, "orders", "status IN ('pending', 'processing', 'on hold')")
        street = pick(rng, _STREETS)
        city, zip_code = pick(rng, _CITIES)
        return Task(
            "change_shipping_address",
            f"Change the shipping address of order #{o['id']} to {street}, {city}, ZIP code"
            f" {zip_code} (keep the recipient and state as they are).",
            self._change(
                conn, "orders", o, {"ship_street": street, "ship_city": city, "ship_zip": zip_code}
            ),
            (
                *_open_order(o["id"]),
                Step.click("link", "Edit shipping address"),
                Step.fill("textbox", "Street address", street),
                Step.fill("textbox", "City", city),
                Step.fill("textbox", "ZIP code", zip_code),
                Step.click("button", "Save address"),
                Step.answer("done"),
            ),
        )

    def _task_set_order_status(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        o = self._row(rng, conn, "orders", "status != 'canceled'")
        status = pick(rng, [s for s in _NEW_STATUSES if s != o["status"]])
        return Task(
            "set_order_status",
            f'Set the status of order #{o["id"]} to "{status.capitalize()}".',
            self._change(conn, "orders", o, {"status": status}),
            (
                *_open_order(o["id"]),
                Step.select("combobox", "Order status", status.capitalize()),
                Step.click("button", "Update status"),
                Step.answer("done"),
            ),
        )

    def _task_cancel_order(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        o = self._row(rng, conn, "orders", "status IN ('pending', 'processing', 'on hold')")
        return Task(
            "cancel_order",
            f"Cancel order #{o['id']}.",
            self._change(conn, "orders", o, {"status": "canceled"}),
            (*_open_order(o["id"]), Step.click("button", "Cancel order"), Step.answer("done")),
        )

    def _task_update_product_price(
        self, rng: np.random.Generator, conn: sqlite3.Connection
    ) -> Task:
        p = self._row(rng, conn, "products")
        # A 10-30% change up or down, still ending in .99 like the catalogue's prices.
        factor = 1 + float(rng.choice((-1, 1))) * float(rng.uniform(0.1, 0.3))
        cents = max(round(p["price_cents"] * factor / 100), 2) * 100 - 1
        price = f"{cents / 100:.2f}"
        return Task(
            "update_product_price",
            f'Change the price of the product "{p["name"]}" to {money(cents)}.',
            self._change(conn, "products", p, {"price_cents": cents}),
            (
                *_open_product(p["name"]),
                Step.click("link", "Edit product"),
                Step.fill("textbox", "Price", price),
                Step.click("button", "Save product"),
                Step.answer("done"),
            ),
        )

    def _task_update_product_stock(
        self, rng: np.random.Generator, conn: sqlite3.Connection
    ) -> Task:
        p = self._row(rng, conn, "products")
        stock = int(pick(rng, [n for n in range(0, 500, 5) if n != p["stock"]]))
        return Task(
            "update_product_stock",
            f'Set the stock quantity of the product "{p["name"]}" to {stock}.',
            self._change(conn, "products", p, {"stock": stock}),
            (
                *_open_product(p["name"]),
                Step.click("link", "Edit product"),
                Step.fill("textbox", "Quantity in stock", str(stock)),
                Step.click("button", "Save product"),
                Step.answer("done"),
            ),
        )

    # ----- information templates ---------------------------------------------------------

    def _task_order_grand_total(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        o = self._row(rng, conn, "orders")
        total = money(o["grand_total_cents"])
        return Task(
            "order_grand_total",
            f"What is the grand total of order #{o['id']}?",
            {"answers": [total]},
            (*_open_order(o["id"]), Step.answer(total)),
        )

    def _task_order_customer(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        o = self._row(rng, conn, "orders")
        c = conn.execute("SELECT * FROM customers WHERE id = ?", (o["customer_id"],)).fetchone()
        name = f"{c['first_name']} {c['last_name']}"
        return Task(
            "order_customer",
            f"Which customer placed order #{o['id']}? Answer with their full name.",
            {"answers": [name, c["email"]]},
            (*_open_order(o["id"]), Step.answer(name)),
        )

    def _task_customer_order_count(
        self, rng: np.random.Generator, conn: sqlite3.Connection
    ) -> Task:
        c = self._row(rng, conn, "customers")
        name = f"{c['first_name']} {c['last_name']}"
        n = _count(conn, "SELECT COUNT(*) FROM orders WHERE customer_id = ?", (c["id"],))
        return Task(
            "customer_order_count",
            f"How many orders has the customer {name} placed?",
            {"answers": [str(n)]},
            (*_open_customer(name), Step.answer(str(n))),
        )

    def _task_customer_email(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        c = self._row(rng, conn, "customers")
        name = f"{c['first_name']} {c['last_name']}"
        return Task(
            "customer_email",
            f"What is the email address of the customer {name}?",
            {"answers": [c["email"]]},
            (*_open_customer(name), Step.answer(c["email"])),
        )

    def _task_status_count(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        status = pick(rng, data.STATUSES)
        n = _count(conn, "SELECT COUNT(*) FROM orders WHERE status = ?", (status,))
        return Task(
            "status_count",
            f'How many orders currently have the status "{status.capitalize()}"?',
            {"answers": [str(n)]},
            (
                Step.click("link", "Orders"),
                Step.select("combobox", "Status", status.capitalize()),
                Step.click("button", "Search"),
                Step.answer(str(n)),
            ),
        )

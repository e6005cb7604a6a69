"""The back-office's web pages: a Magento-like admin WSGI app over the shop database.

Three sections, each a searchable list (20 rows a page), a detail page and an edit
form: orders (status, cancel, shipping address), customers (contact details) and
products (name, price, stock). Every change is a POST answered by a redirect, and every
piece of stored text is escaped.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from turngym.extras import needs_extra
from turngym.pyparse import AST_LOCK

with needs_extra("web", "a web env"):
    from werkzeug.exceptions import NotFound
    from werkzeug.routing import Map, Rule
    from werkzeug.utils import redirect
    from werkzeug.wrappers import Request, Response

from turngym.envs.web.sites.admin.data import STATUSES
from turngym.envs.web.sites.pages import (
    PAGE_SIZE,
    SqliteApp,
    button_form,
    document,
    esc,
    field,
    money,
    pager,
    select_field,
)

__all__ = ["make_app"]

CANCELLABLE = ("pending", "processing", "on hold")
"""Statuses from which an order can still be cancelled."""

_HEADER = (
    '<a href="/">Dashboard</a><a href="/orders">Orders</a><a href="/customers">Customers</a>'
    '<a href="/products">Products</a><span style="margin-left:24px">Signed in as admin</span>'
)


def _page(title: str, body: str, status: int = 200) -> Response:
    return Response(document(title, _HEADER, body), status=status, mimetype="text/html")


def _not_found(message: str) -> str:
    return document("Not found", _HEADER, f"<h1>Not found</h1><p>{esc(message)}</p>")


def _page_number(request: Request) -> int:
    value = request.args.get("page", "1")
    # isdecimal, not isdigit: int("²") raises; a page past 999,999 is past the last
    return max(int(value), 1) if value.isdecimal() and len(value) <= 6 else 1


def _like(q: str) -> str:
    return "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _table(head: tuple[str, ...], rows: list[str]) -> str:
    if not rows:
        return "<p>Nothing found.</p>"
    cells = "".join(f"<th>{h}</th>" for h in head)
    return f"<table><tr>{cells}</tr>{''.join(rows)}</table>"


def _form(action: str, error: str, fields: str, submit: str) -> str:
    shown = f"<p class=error>{esc(error)}</p>" if error else ""
    return (
        f'{shown}<form method="post" action="{esc(action)}">{fields}'
        f"<br><button type=submit>{esc(submit)}</button></form>"
    )


def dashboard(request: Request, conn: sqlite3.Connection) -> Response:
    """Counts of orders by status, customers and products."""
    counts = dict(conn.execute("SELECT status, COUNT(*) FROM orders GROUP BY status").fetchall())
    n_customers = conn.execute("SELECT COUNT(*) FROM customers").fetchone()[0]
    n_products = conn.execute("SELECT COUNT(*) FROM products").fetchone()[0]
    rows = "".join(f"<li>{s.capitalize()}: {counts.get(s, 0)}</li>" for s in STATUSES)
    body = (
        f"<h1>Dashboard</h1><h2>Orders by status</h2><ul>{rows}</ul>"
        f"<p>{n_customers} customers · {n_products} products</p>"
    )
    return _page("Dashboard", body)


def orders(request: Request, conn: sqlite3.Connection) -> Response:
    """The order grid: search by number, customer or email, filter by status."""
    q = " ".join(request.args.get("q", "").split())
    status = request.args.get("status", "")
    where, params = ["1"], []
    number = q.lstrip("#")
    if number.isdigit():
        where.append("o.id = ?")
        params.append(number)
    elif q:
        where.append(
            "(c.first_name || ' ' || c.last_name LIKE ? ESCAPE '\\' OR c.email LIKE ? ESCAPE '\\'"
            " OR o.ship_name LIKE ? ESCAPE '\\')"
        )
        params += [_like(q)] * 3
    if status in STATUSES:
        where.append("o.status = ?")
        params.append(status)
    sql = " FROM orders o JOIN customers c ON c.id = o.customer_id WHERE " + " AND ".join(where)
    total = conn.execute("SELECT COUNT(*)" + sql, params).fetchone()[0]
    page = _page_number(request)
    rows = conn.execute(
        "SELECT o.*, c.first_name || ' ' || c.last_name AS customer"
        + sql
        + " ORDER BY o.id DESC LIMIT ? OFFSET ?",
        [*params, PAGE_SIZE, (page - 1) * PAGE_SIZE],
    ).fetchall()
    lines = [
        f'<tr><td><a href="/orders/{r["id"]}">#{r["id"]}</a></td><td>{esc(r["created"])}</td>'
        f"<td>{esc(r['customer'])}</td><td>{esc(r['status'].capitalize())}</td>"
        f"<td>{money(r['grand_total_cents'])}</td></tr>"
        for r in rows
    ]
    options = [("", "Any status"), *((s, s.capitalize()) for s in STATUSES)]
    body = (
        '<h1>Orders</h1><form method="get" action="/orders" role="search">'
        + field("Search orders", "q", q, kind="search")
        + select_field("Status", "status", options, status)
        + "<br><button type=submit>Search</button></form>"
        + f"<p>{total} orders found</p>"
        + _table(("Order", "Placed", "Customer", "Status", "Grand total"), lines)
        + pager("/orders", {"q": q, "status": status}, page, -(-total // PAGE_SIZE))
    )
    return _page("Orders", body)


def _order(conn: sqlite3.Connection, oid: int) -> sqlite3.Row:
    row = conn.execute(
        "SELECT o.*, c.first_name || ' ' || c.last_name AS customer, c.email"
        " FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ?",
        (oid,),
    ).fetchone()
    if row is None:
        raise NotFound()
    return row


def order(request: Request, conn: sqlite3.Connection, oid: int) -> Response:
    """One order: items, totals, shipping address, status and cancel controls."""
    o = _order(conn, oid)
    items = conn.execute(
        "SELECT * FROM order_items WHERE order_id = ? ORDER BY id", (oid,)
    ).fetchall()
    lines = [
        f"<tr><td>{esc(i['name'])}</td><td>{esc(i['sku'])}</td><td>{money(i['price_cents'])}</td>"
        f"<td>{i['qty']}</td><td>{money(i['price_cents'] * i['qty'])}</td></tr>"
        for i in items
    ]
    options = [(s, s.capitalize()) for s in STATUSES]
    cancel = (
        button_form(f"/orders/{oid}/cancel", "Cancel order") if o["status"] in CANCELLABLE else ""
    )
    body = (
        f"<h1>Order #{oid}</h1><p>Status: <b>{esc(o['status'].capitalize())}</b> · Placed "
        f"{esc(o['created'])}</p><p>Customer: <a href='/customers/{o['customer_id']}'>"
        f"{esc(o['customer'])}</a> ({esc(o['email'])})</p>"
        + _table(("Product", "SKU", "Price", "Qty", "Row total"), lines)
        + f"<p>Subtotal: {money(o['subtotal_cents'])}<br>Shipping: {money(o['shipping_cents'])}"
        f"<br><b>Grand total: {money(o['grand_total_cents'])}</b></p>"
        f"<h2>Shipping address</h2><address>{esc(o['ship_name'])}<br>{esc(o['ship_street'])}"
        f"<br>{esc(o['ship_city'])}, {esc(o['ship_state'])} {esc(o['ship_zip'])}</address>"
        f'<p><a href="/orders/{oid}/address">Edit shipping address</a></p>'
        + _form(
            f"/orders/{oid}/status",
            "",
            select_field("Order status", "status", options, o["status"]),
            "Update status",
        )
        + f"<div>{cancel}</div>"
    )
    return _page(f"Order #{oid}", body)


def order_status(request: Request, conn: sqlite3.Connection, oid: int) -> Response:
    """Set an order's status."""
    _order(conn, oid)
    status = request.form.get("status", "")
    if status in STATUSES:
        conn.execute("UPDATE orders SET status = ? WHERE id = ?", (status, oid))
    return redirect(f"/orders/{oid}", 303)


def order_cancel(request: Request, conn: sqlite3.Connection, oid: int) -> Response:
    """Cancel an order that has not shipped yet."""
    if _order(conn, oid)["status"] in CANCELLABLE:
        conn.execute("UPDATE orders SET status = 'canceled' WHERE id = ?", (oid,))
    return redirect(f"/orders/{oid}", 303)


_ADDRESS = (
    ("ship_name", "Recipient name"),
    ("ship_street", "Street address"),
    ("ship_city", "City"),
    ("ship_state", "State"),
    ("ship_zip", "ZIP code"),
)


def _edit(
    request: Request,
    row: Any,
    labels: tuple[tuple[str, str], ...],
    check: Callable[[dict[str, str]], str],
) -> tuple[dict[str, str], str]:
    """The values an edit form shows, and the error that blocks saving them ("" to save)."""
    values = {k: str(row[k]) for k, _ in labels}
    if request.method != "POST":
        return values, "GET"
    values = {k: " ".join(request.form.get(k, "").split()) for k, _ in labels}
    missing = [label for k, label in labels if not values[k]]
    return values, (f"{missing[0]} cannot be empty." if missing else check(values))


def order_address(request: Request, conn: sqlite3.Connection, oid: int) -> Response:
    """Edit an order's shipping address."""
    o = _order(conn, oid)
    values, error = _edit(request, o, _ADDRESS, lambda v: "")
    if not error:
        conn.execute(
            "UPDATE orders SET ship_name = ?, ship_street = ?, ship_city = ?, ship_state = ?,"
            " ship_zip = ? WHERE id = ?",
            (*(values[k] for k, _ in _ADDRESS), oid),
        )
        return redirect(f"/orders/{oid}", 303)
    fields = "".join(field(label, k, values[k]) for k, label in _ADDRESS)
    body = f"<h1>Shipping address of order #{oid}</h1>" + _form(
        f"/orders/{oid}/address", "" if error == "GET" else error, fields, "Save address"
    )
    return _page(f"Order #{oid} address", body, 200 if error == "GET" else 400)


def customers(request: Request, conn: sqlite3.Connection) -> Response:
    """The customer grid: search by name or email."""
    q = " ".join(request.args.get("q", "").split())
    sql = (
        " FROM customers c WHERE c.first_name || ' ' || c.last_name LIKE ? ESCAPE '\\'"
        " OR c.email LIKE ? ESCAPE '\\'"
    )
    params = [_like(q), _like(q)]
    total = conn.execute("SELECT COUNT(*)" + sql, params).fetchone()[0]
    page = _page_number(request)
    rows = conn.execute(
        "SELECT c.*, (SELECT COUNT(*) FROM orders o WHERE o.customer_id = c.id) AS n_orders"
        + sql
        + " ORDER BY c.last_name, c.first_name LIMIT ? OFFSET ?",
        [*params, PAGE_SIZE, (page - 1) * PAGE_SIZE],
    ).fetchall()
    lines = [
        f'<tr><td><a href="/customers/{r["id"]}">{esc(r["first_name"])} {esc(r["last_name"])}'
        f"</a></td><td>{esc(r['email'])}</td><td>{esc(r['city'])}</td><td>{r['n_orders']}</td></tr>"
        for r in rows
    ]
    body = (
        '<h1>Customers</h1><form method="get" action="/customers" role="search">'
        + field("Search customers", "q", q, kind="search")
        + " <button type=submit>Search</button></form>"
        + f"<p>{total} customers found</p>"
        + _table(("Name", "Email", "City", "Orders"), lines)
        + pager("/customers", {"q": q}, page, -(-total // PAGE_SIZE))
    )
    return _page("Customers", body)


def customer(request: Request, conn: sqlite3.Connection, cid: int) -> Response:
    """One customer: contact details and all their orders."""
    c = conn.execute("SELECT * FROM customers WHERE id = ?", (cid,)).fetchone()
    if c is None:
        raise NotFound()
    rows = conn.execute(
        "SELECT * FROM orders WHERE customer_id = ? ORDER BY id DESC", (cid,)
    ).fetchall()
    lines = [
        f'<tr><td><a href="/orders/{r["id"]}">#{r["id"]}</a></td><td>{esc(r["created"])}</td>'
        f"<td>{esc(r['status'].capitalize())}</td><td>{money(r['grand_total_cents'])}</td></tr>"
        for r in rows
    ]
    name = f"{c['first_name']} {c['last_name']}"
    body = (
        f"<h1>{esc(name)}</h1><dl><dt>Email</dt><dd>{esc(c['email'])}</dd><dt>Phone</dt>"
        f"<dd>{esc(c['phone'])}</dd><dt>City</dt><dd>{esc(c['city'])}</dd>"
        f"<dt>Customer since</dt><dd>{esc(c['created'])}</dd></dl>"
        f'<p><a href="/customers/{cid}/edit">Edit customer</a></p>'
        f"<h2>Orders</h2><p>{len(rows)} orders</p>"
        + _table(("Order", "Placed", "Status", "Grand total"), lines)
    )
    return _page(name, body)


_CUSTOMER = (
    ("first_name", "First name"),
    ("last_name", "Last name"),
    ("email", "Email"),
    ("phone", "Phone"),
)


def customer_edit(request: Request, conn: sqlite3.Connection, cid: int) -> Response:
    """Edit a customer's name and contact details."""
    c = conn.execute("SELECT * FROM customers WHERE id = ?", (cid,)).fetchone()
    if c is None:
        raise NotFound()

    def check(values: dict[str, str]) -> str:
        if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", values["email"]):
            return "Enter a valid email address."
        taken = conn.execute(
            "SELECT 1 FROM customers WHERE email = ? AND id != ?", (values["email"], cid)
        ).fetchone()
        return "Another customer already uses this email." if taken else ""

    values, error = _edit(request, c, _CUSTOMER, check)
    if not error:
        conn.execute(
            "UPDATE customers SET first_name = ?, last_name = ?, email = ?, phone = ? WHERE id = ?",
            (*(values[k] for k, _ in _CUSTOMER), cid),
        )
        return redirect(f"/customers/{cid}", 303)
    fields = "".join(
        field(label, k, values[k], kind="email" if k == "email" else "text")
        for k, label in _CUSTOMER
    )
    body = f"<h1>Edit customer {esc(c['first_name'])} {esc(c['last_name'])}</h1>" + _form(
        f"/customers/{cid}/edit", "" if error == "GET" else error, fields, "Save customer"
    )
    return _page("Edit customer", body, 200 if error == "GET" else 400)


def products(request: Request, conn: sqlite3.Connection) -> Response:
    """The product grid: search by name or SKU."""
    q = " ".join(request.args.get("q", "").split())
    sql = " FROM products WHERE name LIKE ? ESCAPE '\\' OR sku LIKE ? ESCAPE '\\'"
    params = [_like(q), _like(q)]
    total = conn.execute("SELECT COUNT(*)" + sql, params).fetchone()[0]
    page = _page_number(request)
    rows = conn.execute(
        "SELECT *" + sql + " ORDER BY name LIMIT ? OFFSET ?",
        [*params, PAGE_SIZE, (page - 1) * PAGE_SIZE],
    ).fetchall()
    lines = [
        f'<tr><td><a href="/products/{r["id"]}">{esc(r["name"])}</a></td><td>{esc(r["sku"])}</td>'
        f"<td>{money(r['price_cents'])}</td><td>{r['stock']}</td></tr>"
        for r in rows
    ]
    body = (
        '<h1>Products</h1><form method="get" action="/products" role="search">'
        + field("Search products", "q", q, kind="search")
        + " <button type=submit>Search</button></form>"
        + f"<p>{total} products found</p>"
        + _table(("Name", "SKU", "Price", "In stock"), lines)
        + pager("/products", {"q": q}, page, -(-total // PAGE_SIZE))
    )
    return _page("Products", body)


def _product(conn: sqlite3.Connection, pid: int) -> sqlite3.Row:
    row = conn.execute("SELECT * FROM products WHERE id = ?", (pid,)).fetchone()
    if row is None:
        raise NotFound()
    return row


def product(request: Request, conn: sqlite3.Connection, pid: int) -> Response:
    """One product: SKU, price and stock."""
    p = _product(conn, pid)
    body = (
        f"<h1>{esc(p['name'])}</h1><dl><dt>SKU</dt><dd>{esc(p['sku'])}</dd><dt>Price</dt>"
        f"<dd>{money(p['price_cents'])}</dd><dt>Quantity in stock</dt><dd>{p['stock']}</dd></dl>"
        f'<p><a href="/products/{pid}/edit">Edit product</a></p>'
    )
    return _page(p["name"], body)


_PRODUCT = (("name", "Product name"), ("price", "Price"), ("stock", "Quantity in stock"))


def _cents(text: str) -> int | None:
    text = text.replace("$", "").replace(",", "").strip()
    if not re.fullmatch(r"\d{1,9}(\.\d{1,2})?", text):  # float() of 400 digits is inf
        return None
    return round(float(text) * 100)


def product_edit(request: Request, conn: sqlite3.Connection, pid: int) -> Response:
    """Edit a product's name, price and stock."""
    p = _product(conn, pid)
    shown = {"name": p["name"], "price": f"{p['price_cents'] / 100:.2f}", "stock": p["stock"]}

    def check(values: dict[str, str]) -> str:
        if _cents(values["price"]) is None:
            return "Price must be an amount like 19.99."
        if not (values["stock"].isdecimal() and len(values["stock"]) <= 9):
            return "Quantity in stock must be a whole number."
        taken = conn.execute(
            "SELECT 1 FROM products WHERE name = ? AND id != ?", (values["name"], pid)
        ).fetchone()
        return "Another product already has this name." if taken else ""

    values, error = _edit(request, shown, _PRODUCT, check)
    if not error:
        conn.execute(
            "UPDATE products SET name = ?, price_cents = ?, stock = ? WHERE id = ?",
            (values["name"], _cents(values["price"]), int(values["stock"]), pid),
        )
        return redirect(f"/products/{pid}", 303)
    fields = "".join(field(label, k, values[k]) for k, label in _PRODUCT)
    body = f"<h1>Edit {esc(p['name'])}</h1>" + _form(
        f"/products/{pid}/edit", "" if error == "GET" else error, fields, "Save product"
    )
    return _page("Edit product", body, 200 if error == "GET" else 400)


def make_app(db_path: Path) -> SqliteApp:
    """The back-office WSGI app for the database at ``db_path``."""
    rules = [
        Rule("/", endpoint="dashboard"),
        Rule("/orders", endpoint="orders"),
        Rule("/orders/<int:oid>", endpoint="order"),
        Rule("/orders/<int:oid>/status", endpoint="order_status", methods=["POST"]),
        Rule("/orders/<int:oid>/cancel", endpoint="order_cancel", methods=["POST"]),
        Rule("/orders/<int:oid>/address", endpoint="order_address", methods=["GET", "POST"]),
        Rule("/customers", endpoint="customers"),
        Rule("/customers/<int:cid>", endpoint="customer"),
        Rule("/customers/<int:cid>/edit", endpoint="customer_edit", methods=["GET", "POST"]),
        Rule("/products", endpoint="products"),
        Rule("/products/<int:pid>", endpoint="product"),
        Rule("/products/<int:pid>/edit", endpoint="product_edit", methods=["GET", "POST"]),
    ]
    with AST_LOCK:  # werkzeug compiles each rule with ast.parse (turngym/pyparse.py)
        url_map = Map(rules)
    handlers: dict[str, Callable[..., Response]] = {
        "dashboard": dashboard,
        "orders": orders,
        "order": order,
        "order_status": order_status,
        "order_cancel": order_cancel,
        "order_address": order_address,
        "customers": customers,
        "customer": customer,
        "customer_edit": customer_edit,
        "products": products,
        "product": product,
        "product_edit": product_edit,
    }
    return SqliteApp(db_path, url_map, handlers, _not_found)

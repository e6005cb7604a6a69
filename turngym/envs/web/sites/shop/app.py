"""The shop's web pages: a server-rendered Werkzeug WSGI app over the shop database.

Pages (plain HTML, a little inline CSS, no scripts): ``/`` (search box), ``/search``
(``?q=...&page=N``, 10 results a page), ``/product/<id>`` (features, description,
options and the buy buttons; the hard catalog's pages have no feature list),
``/cart``, ``/checkout`` and ``/order/<no>``. State changes are POST forms
answered with a 303 redirect. Every request opens its own SQLite connection, because
the env replaces the database file between episodes.

Accessible names the oracle relies on: the search field is a ``searchbox`` labelled
"Search" with a "Search" button; a result is a ``link`` named ``"<title> - $<price>"``
(``ShopIndex.result_name``); paging links are "< Prev" and "Next >"; each option group
is a ``combobox`` labelled by ``option_label(group)``; the buttons are "Buy Now",
"Add to cart" and "Place order".
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from turngym.extras import needs_extra
from turngym.pyparse import AST_LOCK

with needs_extra("web", "a web env"):
    from werkzeug.exceptions import HTTPException, NotFound
    from werkzeug.routing import Map, Rule
    from werkzeug.utils import redirect
    from werkzeug.wrappers import Request, Response

from turngym.envs.web.sites.shop.catalog import Product, format_price
from turngym.envs.web.sites.shop.search import RESULTS_PER_PAGE, shop_index

__all__ = ["ShopApp", "option_label"]

_CSS = """
body { font-family: sans-serif; max-width: 52rem; margin: 0 auto; padding: 0 1rem; }
nav { padding: .5rem 0; border-bottom: 1px solid #ccc; }
nav a { margin-right: 1rem; }
li { margin: .4rem 0; }
.meta { color: #555; font-size: .9rem; }
.price { font-weight: bold; }
form p { margin: .5rem 0; }
label { display: inline-block; min-width: 5rem; }
"""

_RULES = [
    Rule("/", endpoint="home"),
    Rule("/search", endpoint="search"),
    Rule("/product/<int:product_id>", endpoint="product"),
    Rule("/buy/<int:product_id>", endpoint="buy", methods=["POST"]),
    Rule("/cart", endpoint="cart"),
    Rule("/cart/add/<int:product_id>", endpoint="cart_add", methods=["POST"]),
    Rule("/cart/remove/<int:item_id>", endpoint="cart_remove", methods=["POST"]),
    Rule("/checkout", endpoint="checkout", methods=["GET", "POST"]),
    Rule("/order/<int:order_no>", endpoint="order"),
]
with AST_LOCK:  # werkzeug compiles each rule with ast.parse (turngym/pyparse.py)
    _URLS = Map(_RULES)


_CONTINUE = '<p><a href="/">Continue shopping</a></p>'


def option_label(group: str) -> str:
    """The label (and accessible name) of an option group's drop-down.

    >>> option_label("color")
    'Color'
    """
    return group.capitalize()


def _search_form(query: str = "") -> str:
    return (
        '<form method="get" action="/search"><p><label for="q">Search</label> '
        f'<input type="search" id="q" name="q" value="{escape(query)}" size="40"> '
        '<button type="submit">Search</button></p></form>'
    )


def _options_text(options: dict[str, str]) -> str:
    return ", ".join(f"{g}: {v}" for g, v in options.items()) or "no options chosen"


class ShopApp:
    """The WSGI application of the shop over the database at ``db_path``.

    Args:
        db_path: the shop database (see ``catalog.build_database``).

    """

    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        """Answer one request (WSGI)."""
        request = Request(environ)
        conn = sqlite3.connect(self.db_path)
        try:
            adapter = _URLS.bind_to_environ(environ)
            endpoint, args = adapter.match()
            response = getattr(self, f"_{endpoint}")(request, conn, **args)
        except HTTPException as error:
            # Keep Werkzeug's status and headers (Allow on a 405), show the shop's page.
            response = error.get_response(environ)
            why = escape(error.description or "")
            body = f"<h1>{error.code} {escape(error.name)}</h1><p>{why}</p>"
            response.set_data(self._page(conn, error.name, body).get_data())
            response.mimetype = "text/html"
        finally:
            conn.close()
        return response(environ, start_response)

    # -- rendering -----------------------------------------------------------------

    def _page(self, conn: sqlite3.Connection, title: str, body: str) -> Response:
        n = conn.execute("SELECT COUNT(*) FROM cart").fetchone()[0]
        html = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{escape(title)} - Shop</title><style>{_CSS}</style></head><body>"
            f'<nav><a href="/">Home</a><a href="/cart">Cart</a>'
            f"<span>({n} item{'' if n == 1 else 's'})</span></nav>"
            f"<main>{body}</main></body></html>"
        )
        return Response(html, mimetype="text/html")

    def _product_or_404(self, conn: sqlite3.Connection, product_id: int) -> Product:
        product = shop_index(conn).by_id.get(product_id)
        if product is None:
            raise NotFound(f"There is no product {product_id}.")
        return product

    @staticmethod
    def _chosen_options(request: Request, product: Product) -> dict[str, str]:
        """The posted options the product offers; a missing or unknown value is left out."""
        chosen = {}
        for group, values in product.options:
            value = request.form.get(group, "")
            if value in values:
                chosen[group] = value
        return chosen

    # -- pages ---------------------------------------------------------------------

    def _home(self, request: Request, conn: sqlite3.Connection) -> Response:
        n = len(shop_index(conn).products)
        body = (
            "<h1>Shop</h1>"
            f"<p>Find what you need among {n:,} products: shoes, clothing, electronics, "
            "grocery, beauty, bags, sports, home and pet supplies.</p>" + _search_form()
        )
        return self._page(conn, "Home", body)

    def _search(self, request: Request, conn: sqlite3.Connection) -> Response:
        query = request.args.get("q", "").strip()
        page = request.args.get("page", "1")
        page_no = int(page) if page.isdecimal() and len(page) <= 6 else 1
        if not query:
            return redirect("/", code=303)
        index = shop_index(conn)
        results, page_no, total = index.page(query, page_no)
        parts = [f"<h1>Results for &quot;{escape(query)}&quot;</h1>", _search_form(query)]
        if not results:
            parts.append("<p>No products match your search. Try other words.</p>")
            return self._page(conn, "Search", "".join(parts))
        first = (page_no - 1) * RESULTS_PER_PAGE + 1
        parts.append(
            f"<p>Results {first}-{first + len(results) - 1} of {total} "
            f"(page {page_no} of {-(-total // RESULTS_PER_PAGE)})</p><p>"
        )
        if page_no > 1:
            prev = escape(f"/search?{urlencode({'q': query, 'page': page_no - 1})}")
            parts.append(f'<a href="{prev}">&lt; Prev</a> ')
        if first + len(results) - 1 < total:
            nxt = escape(f"/search?{urlencode({'q': query, 'page': page_no + 1})}")
            parts.append(f'<a href="{nxt}">Next &gt;</a>')
        parts.append("</p><ol>")
        back = urlencode({"q": query, "page": page_no})
        for p in results:
            parts.append(
                f'<li><a href="/product/{p.id}?{escape(back)}">'
                f"{escape(index.result_name(p))}</a>"
                f'<div class="meta">{escape(p.type)} - rated {p.rating} of 5</div></li>'
            )
        parts.append("</ol>")
        return self._page(conn, "Search", "".join(parts))

    def _product(self, request: Request, conn: sqlite3.Connection, product_id: int) -> Response:
        p = self._product_or_404(conn, product_id)
        query = request.args.get("q", "")
        back = f"/search?{urlencode({'q': query, 'page': request.args.get('page', '1')})}"
        parts = [
            f'<p><a href="{escape(back) if query else "/"}">Back to search</a></p>',
            f"<h1>{escape(p.title)}</h1>",
            f'<p class="price">Price: {p.price_text}</p>',
            f"<p>Rating: {p.rating} out of 5 ({p.reviews} reviews)</p>",
            f"<p>Category: {escape(p.category)}. Type: {escape(p.type)}.</p>",
        ]
        if shop_index(conn).features:  # the hard shop states features in descriptions only
            parts += ["<h2>Features</h2><ul>", *(f"<li>{escape(a)}</li>" for a in p.attributes)]
            parts.append("</ul>")
        parts += [
            f"<h2>Description</h2><p>{escape(p.description)}</p>",
            f'<h2>Options</h2><form method="post" action="/buy/{p.id}">',
        ]
        for group, values in p.options:
            options = "".join(f"<option>{escape(v)}</option>" for v in values)
            parts.append(
                f'<p><label for="opt-{escape(group)}">{escape(option_label(group))}</label> '
                f'<select id="opt-{escape(group)}" name="{escape(group)}">'
                f'<option value="">choose {escape(group)}</option>{options}</select></p>'
            )
        parts.append(
            '<p><button type="submit">Buy Now</button> '
            f'<button type="submit" formaction="/cart/add/{p.id}">Add to cart</button></p></form>'
        )
        return self._page(conn, p.title, "".join(parts))

    def _buy(self, request: Request, conn: sqlite3.Connection, product_id: int) -> Response:
        p = self._product_or_404(conn, product_id)
        order_no = self._place_order(
            conn, [(p.id, self._chosen_options(request, p), p.price_cents)]
        )
        return redirect(f"/order/{order_no}", code=303)

    @staticmethod
    def _place_order(
        conn: sqlite3.Connection, items: Iterable[tuple[int, dict[str, str], int]]
    ) -> int:
        with conn:  # one transaction: an order is written whole or not at all
            order_no = conn.execute("SELECT COALESCE(MAX(order_no), 0) + 1 FROM orders").fetchone()[
                0
            ]
            conn.executemany(
                "INSERT INTO orders (order_no, product_id, options, price_cents) "
                "VALUES (?, ?, ?, ?)",
                [(order_no, pid, json.dumps(opts), cents) for pid, opts, cents in items],
            )
        return int(order_no)

    def _cart_items(
        self, conn: sqlite3.Connection
    ) -> list[tuple[int, Product, dict[str, str], int]]:
        index = shop_index(conn)
        rows = conn.execute("SELECT id, product_id, options, price_cents FROM cart ORDER BY id")
        return [(i, index.by_id[pid], json.loads(o), c) for i, pid, o, c in rows]

    def _cart(self, request: Request, conn: sqlite3.Connection) -> Response:
        items = self._cart_items(conn)
        if not items:
            return self._page(conn, "Cart", "<h1>Your cart</h1><p>Your cart is empty.</p>")
        parts = ["<h1>Your cart</h1><ol>"]
        for n, (item_id, p, options, cents) in enumerate(items, start=1):
            parts.append(
                f'<li>Item {n}: <a href="/product/{p.id}">{escape(p.title)}</a> '
                f'<span class="meta">({escape(_options_text(options))})</span> '
                f'<span class="price">{format_price(cents)}</span> '
                f'<form method="post" action="/cart/remove/{item_id}" style="display:inline">'
                f'<button type="submit">Remove item {n}</button></form></li>'
            )
        total = sum(c for _, _, _, c in items)
        parts.append(f'</ol><p class="price">Total: {format_price(total)}</p>')
        parts.append('<p><a href="/checkout">Proceed to checkout</a></p>')
        return self._page(conn, "Cart", "".join(parts))

    def _cart_add(self, request: Request, conn: sqlite3.Connection, product_id: int) -> Response:
        p = self._product_or_404(conn, product_id)
        with conn:
            conn.execute(
                "INSERT INTO cart (product_id, options, price_cents) VALUES (?, ?, ?)",
                (p.id, json.dumps(self._chosen_options(request, p)), p.price_cents),
            )
        return redirect("/cart", code=303)

    def _cart_remove(self, request: Request, conn: sqlite3.Connection, item_id: int) -> Response:
        with conn:
            conn.execute("DELETE FROM cart WHERE id = ?", (item_id,))
        return redirect("/cart", code=303)

    def _checkout(self, request: Request, conn: sqlite3.Connection) -> Response:
        items = self._cart_items(conn)
        if request.method == "POST":
            if not items:
                return redirect("/cart", code=303)
            order_no = self._place_order(conn, [(p.id, o, c) for _, p, o, c in items])
            with conn:
                conn.execute("DELETE FROM cart")
            return redirect(f"/order/{order_no}", code=303)
        if not items:
            body = "<h1>Checkout</h1><p>Your cart is empty.</p>" + _CONTINUE
            return self._page(conn, "Checkout", body)
        parts = ["<h1>Checkout</h1><ul>"]
        for _, p, options, cents in items:
            parts.append(
                f"<li>{escape(p.title)} ({escape(_options_text(options))}) "
                f"{format_price(cents)}</li>"
            )
        total = sum(c for _, _, _, c in items)
        parts.append(f'</ul><p class="price">Total: {format_price(total)}</p>')
        parts.append(
            '<form method="post" action="/checkout">'
            '<button type="submit">Place order</button></form>'
        )
        return self._page(conn, "Checkout", "".join(parts))

    def _order(self, request: Request, conn: sqlite3.Connection, order_no: int) -> Response:
        index = shop_index(conn)
        rows = conn.execute(
            "SELECT product_id, options, price_cents FROM orders WHERE order_no = ? ORDER BY id",
            (order_no,),
        ).fetchall()
        if not rows:
            raise NotFound(f"There is no order {order_no}.")
        parts = [f"<h1>Order {order_no} placed</h1><p>Thank you for your order.</p><ul>"]
        for pid, options, cents in rows:
            p = index.by_id[pid]
            parts.append(
                f"<li>{escape(p.title)} ({escape(_options_text(json.loads(options)))}) "
                f"{format_price(cents)}</li>"
            )
        parts.append("</ul>" + _CONTINUE)
        return self._page(conn, f"Order {order_no}", "".join(parts))

"""Product search: the one BM25 ranking that the results pages show and the oracle plans with.

A product's document is its title, attributes and description; in the hard catalog,
whose product pages list no features, it is what those pages show: the title and the
description (which states the attributes in prose). ``shop_index`` builds
the index once per process and catalog version (the catalog never changes while the
shop runs; only the cart and order tables do), so every request and every task reuses it.
"""

from __future__ import annotations

import sqlite3
import threading

from turngym.envs.text.bm25 import BM25Index
from turngym.envs.web.sites.shop.catalog import Product, load_products

__all__ = ["MAX_QUERY_CHARS", "RESULTS_PER_PAGE", "STOPWORDS", "ShopIndex", "shop_index"]

RESULTS_PER_PAGE = 10
"""Results shown on one page."""
MAX_QUERY_CHARS = 300
"""Longer queries are cut to this many characters."""
_STOPWORD_TEXT = (
    "a an the and or of in on to with that is are i am me my looking need want buy find get "
    "like d price lower than dollars under"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""Words ignored by search, so pasting a whole instruction as the query still works."""


class ShopIndex:
    """The catalog in memory, searchable with BM25.

    Args:
        products: the catalog, by id.
        features: whether product pages list the attributes as features (the easy
            catalog) and so search indexes them; False for the hard catalog.

    Example:
        >>> from turngym.envs.web.sites.shop.catalog import generate_catalog
        >>> index = ShopIndex(generate_catalog(2))
        >>> index.search("yoga mat")[0].type
        'yoga mat'

    """

    def __init__(self, products: list[Product], *, features: bool = True) -> None:
        self.products = products
        self.features = features
        self.by_id = {p.id: p for p in products}
        docs = [
            " ".join((p.title, *p.attributes, p.description))
            if features
            else f"{p.title} {p.description}"
            for p in products
        ]
        self._bm25 = BM25Index(docs, stopwords=STOPWORDS)

    def search(self, query: str) -> list[Product]:
        """Every product sharing a term with ``query``, best first (ties: lower id first)."""
        ranked = self._bm25.search(query[:MAX_QUERY_CHARS], k=len(self.products))
        return [self.products[doc] for doc, _ in ranked]

    def page(self, query: str, page: int) -> tuple[list[Product], int, int]:
        """The results on 1-based ``page`` (clamped to the last), that page, and the total."""
        ranked = self.search(query)
        last = max(1, -(-len(ranked) // RESULTS_PER_PAGE))
        page = min(max(1, page), last)
        start = (page - 1) * RESULTS_PER_PAGE
        return ranked[start : start + RESULTS_PER_PAGE], page, len(ranked)

    @staticmethod
    def result_name(product: Product) -> str:
        """The text (and accessible name) of a product's link on a results page."""
        return f"{product.title} - {product.price_text}"


_CACHE: dict[tuple[str, int], ShopIndex] = {}
_LOCK = threading.Lock()


def shop_index(conn: sqlite3.Connection) -> ShopIndex:
    """The index of the catalog in ``conn``, built on first use and then shared.

    The database's ``meta`` table names the catalog and, for the hard one, its difficulty.
    """
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    count = conn.execute("SELECT COUNT(*) FROM products").fetchone()[0]
    key = (str(meta["catalog"]), int(count))
    with _LOCK:  # the server is threaded: build once, not once per concurrent request
        if key not in _CACHE:
            features = meta.get("difficulty", "easy") == "easy"
            _CACHE[key] = ShopIndex(load_products(conn), features=features)
        return _CACHE[key]

"""What the forum and admin sites share: HTML building blocks, a WSGI dispatcher, answer checks.

The HTML helpers return strings with every piece of user text escaped, and give each
form field a ``<label for=...>`` so the browser's accessibility tree names it. ``SqliteApp``
serves a ``werkzeug.routing.Map`` with a new SQLite connection per request (the env swaps
the database file between episodes). The scoring helpers: ``answer_matches`` compares the
agent's answer forgivingly, and ``expect_change`` / ``nothing_else_changed`` fingerprint
the whole database but the rows a task is expected to change, so that a state-changing
task scores only when its change, and nothing else, was made.
"""

from __future__ import annotations

import hashlib
import html
import re
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlencode

import numpy as np

from turngym.envs.web.tasks import Task

if TYPE_CHECKING:  # werkzeug is the `web` extra: imported when an app is built
    from werkzeug.routing import Map
    from werkzeug.wrappers import Request, Response

__all__ = [
    "PAGE_SIZE",
    "SqliteApp",
    "answer_matches",
    "button_form",
    "document",
    "draw_task",
    "esc",
    "expect_change",
    "field",
    "money",
    "nothing_else_changed",
    "pager",
    "pick",
    "same_text",
    "select_field",
]

T = TypeVar("T")

PAGE_SIZE = 20
"""Rows per list page: the agent reads the whole accessibility tree every step."""

_CSS = (
    "body{font-family:sans-serif;margin:0;color:#222}"
    "header{background:#234;color:#fff;padding:6px 12px}"
    "header a{color:#fff;margin-right:12px}"
    "main{padding:8px 16px;max-width:960px}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
    "label{display:block;margin-top:6px}.muted{color:#666;font-size:90%}"
    ".error{color:#b00}.comment{border-left:2px solid #ccc;padding-left:8px;margin:6px 0}"
)


def esc(value: object) -> str:
    """``value`` as HTML text, with ``<``, ``>``, ``&`` and quotes escaped."""
    return html.escape(str(value), quote=True)


def money(cents: int) -> str:
    """Cents as dollars the way the pages show them: ``$1,234.50``."""
    return f"${cents / 100:,.2f}"


def document(title: str, header: str, body: str) -> str:
    """A whole page: ``title`` (plain text), ``header`` and ``body`` (HTML already escaped)."""
    # The empty icon keeps the browser from asking for /favicon.ico on every page.
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{esc(title)}</title>"
        '<link rel="icon" href="data:,">'
        f"<style>{_CSS}</style></head><body><header>{header}</header>"
        f"<main>{body}</main></body></html>"
    )


def field(label: str, name: str, value: object = "", kind: str = "text") -> str:
    """A labelled input (``kind`` is an input type, or ``textarea``); its id is ``f-<name>``."""
    fid = f"f-{name}"
    head = f'<label for="{fid}">{esc(label)}</label>'
    if kind == "textarea":
        return (
            f'{head}<textarea id="{fid}" name="{esc(name)}" rows=4 cols=60>{esc(value)}</textarea>'
        )
    return f'{head}<input type="{kind}" id="{fid}" name="{esc(name)}" value="{esc(value)}" size=40>'


def select_field(
    label: str, name: str, options: Iterable[tuple[str, str]], selected: str = ""
) -> str:
    """A labelled drop-down of ``(value, text)`` options, with ``selected`` preselected."""
    fid = f"f-{name}"
    items = "".join(
        f'<option value="{esc(value)}"{" selected" if value == selected else ""}>'
        f"{esc(text)}</option>"
        for value, text in options
    )
    return (
        f'<label for="{fid}">{esc(label)}</label>'
        f'<select id="{fid}" name="{esc(name)}">{items}</select>'
    )


def button_form(action: str, text: str, hidden: Mapping[str, str] | None = None) -> str:
    """A POST form holding one button (votes, deletes, cancels)."""
    inputs = "".join(
        f'<input type="hidden" name="{esc(k)}" value="{esc(v)}">' for k, v in (hidden or {}).items()
    )
    return (
        f'<form method="post" action="{esc(action)}" style="display:inline">'
        f"{inputs}<button type=submit>{esc(text)}</button></form>"
    )


def pager(path: str, params: Mapping[str, str], page: int, pages: int) -> str:
    """``Page i of n`` with ``Previous page``/``Next page`` links that keep the query."""

    def href(number: int) -> str:
        query = {k: v for k, v in params.items() if v}
        query["page"] = str(number)
        return esc(f"{path}?{urlencode(query)}")

    parts = [f"<p>Page {page} of {max(pages, 1)} "]
    if page > 1:
        parts.append(f'<a href="{href(page - 1)}">Previous page</a> ')
    if page < pages:
        parts.append(f'<a href="{href(page + 1)}">Next page</a>')
    parts.append("</p>")
    return "".join(parts)


class SqliteApp:
    """A WSGI app dispatching a URL map to handlers, one SQLite connection per request.

    A handler is ``handler(request, conn, **url_values) -> Response``; the connection is
    committed after a handler returns and closed in any case.

    Args:
        db_path: the SQLite file to serve.
        url_map: the routes; each rule's endpoint is a key of ``handlers``.
        handlers: the page functions.
        not_found: renders the body of a 404 page.

    """

    def __init__(
        self,
        db_path: Path,
        url_map: Map,
        handlers: Mapping[str, Callable[..., Response]],
        not_found: Callable[[str], str],
    ) -> None:
        self.db_path = Path(db_path)
        self.url_map = url_map
        self.handlers = dict(handlers)
        self.not_found = not_found

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        """Serve one request (PEP 3333)."""
        from werkzeug.exceptions import HTTPException
        from werkzeug.wrappers import Request, Response

        request = Request(environ)
        adapter = self.url_map.bind_to_environ(environ)
        try:
            endpoint, values = adapter.match()
            response = self._run(request, str(endpoint), values)
        except HTTPException as exc:
            if exc.code == 404:
                page = self.not_found(f"Page not found: {request.path}")
                response = Response(page, status=404, mimetype="text/html")
            else:
                response = exc.get_response(environ)
        return response(environ, start_response)

    def _run(self, request: Request, endpoint: str, values: Mapping[str, Any]) -> Response:
        conn = sqlite3.connect(self.db_path)
        conn.row_factory = sqlite3.Row
        try:
            response = self.handlers[endpoint](request, conn, **values)
            conn.commit()
            return response
        finally:
            conn.close()


_SPACES = re.compile(r"\s+")
_NUMBER = re.compile(r"^[-+]?\d+(\.\d+)?$")


def _norm(text: str) -> str:
    # Agents often wrap answers in quotes or end them with a full stop (in either order).
    text, before = _SPACES.sub(" ", text), None
    while text != before:
        before, text = text, text.strip().strip("\"'`“”‘’").rstrip(".")
    return text.casefold()


def _number(text: str) -> float | None:
    text = _norm(text).replace("$", "").replace(",", "").replace(" ", "")
    return float(text) if _NUMBER.match(text) else None


def answer_matches(answer: str | None, expected: Sequence[str]) -> bool:
    """Whether ``answer`` says one of ``expected``.

    Text is compared ignoring case, surrounding quotes, a final full stop and runs of
    whitespace; numbers numerically, with or without ``$`` and thousands separators.

    >>> answer_matches(" $1,204.5 ", ["1204.50"]), answer_matches("Cooking.", ["cooking"])
    (True, True)
    """
    if answer is None:
        return False
    given = _norm(answer)
    number = _number(answer)
    for want in expected:
        want_number = _number(want)
        if want_number is not None and number is not None:
            if abs(want_number - number) < 0.005:
                return True
        elif given and given == _norm(want):
            return True
    return False


def _table_digests(
    conn: sqlite3.Connection, expected: Mapping[str, Sequence[Any]]
) -> dict[str, str]:
    """A fingerprint of each table's rows, leaving out the rows ``expected`` selects."""
    # sqlite_* tables are SQLite's own bookkeeping (AUTOINCREMENT counters, ANALYZE
    # statistics): they follow from the data, which is fingerprinted itself.
    tables = [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
        )
    ]
    unknown = sorted(set(expected) - set(tables))
    if unknown:
        raise ValueError(f"expected change names unknown tables {unknown}; tables: {tables}")
    digests = {}
    for table in tables:
        where, params = expected.get(table, ("0", ()))
        # NOT COALESCE: a condition that is NULL for a row (a NULL column) keeps the row in.
        rows = conn.execute(
            f'SELECT * FROM "{table}" WHERE NOT COALESCE(({where}), 0)', tuple(params)
        )
        # Sorted: a table is compared as a set of rows, whatever order SQLite stores them in.
        lines = sorted(repr(tuple(row)) for row in rows)
        digests[table] = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return digests


def expect_change(
    conn: sqlite3.Connection, expected: Mapping[str, tuple[str, Sequence[Any]]]
) -> dict[str, Any]:
    """The goal entries that let ``nothing_else_changed`` check a state-changing task.

    ``expected`` maps a table to an SQL condition (and its parameters) selecting the rows
    the task may update, insert or delete; every other row of every table is
    fingerprinted now, in the start state. The template checks the selected rows itself.

    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
    >>> _ = conn.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    >>> goal = expect_change(conn, {"t": ("id = ?", [1])})
    >>> _ = conn.execute("UPDATE t SET v = 'z' WHERE id = 1")
    >>> nothing_else_changed(conn, goal)
    True
    >>> _ = conn.execute("DELETE FROM t WHERE id = 2")
    >>> nothing_else_changed(conn, goal)
    False
    """
    rows = {table: [where, list(params)] for table, (where, params) in expected.items()}
    return {"may_change": rows, "untouched": _table_digests(conn, rows)}


def nothing_else_changed(conn: sqlite3.Connection, goal: Mapping[str, Any]) -> bool:
    """Whether every row ``expect_change`` fingerprinted into ``goal`` is as it was.

    A row deleted, edited or added anywhere outside the expected change, or a table
    created or dropped, makes this False.
    """
    return _table_digests(conn, goal["may_change"]) == goal["untouched"]


def pick(rng: np.random.Generator, items: Sequence[T]) -> T:
    """One of ``items``, drawn with ``rng``."""
    return items[int(rng.integers(len(items)))]


def same_text(a: object, b: object) -> bool:
    """Equal up to case and runs of whitespace."""
    return " ".join(str(a).split()).casefold() == " ".join(str(b).split()).casefold()


def draw_task(
    site: Any, rng: np.random.Generator, conn: sqlite3.Connection, template: str | None
) -> Task:
    """A task from ``template`` (or one drawn with ``rng``), made by ``site._task_<template>``.

    Raises:
        ValueError: ``template`` is not one of the site's.

    """
    if template is None:
        template = pick(rng, site.templates)
    if template not in site.templates:
        raise ValueError(f"unknown {site.name} template {template!r}; use one of {site.templates}")
    conn.row_factory = sqlite3.Row
    make: Callable[[np.random.Generator, sqlite3.Connection], Task] = getattr(
        site, f"_task_{template}"
    )
    return make(rng, conn)

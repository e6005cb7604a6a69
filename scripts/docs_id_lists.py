"""MkDocs hook: the id lists, id counts and per-id table rows of the pages, from the registry.

A page names ids through markers, so a new env needs only its env file and a registry
row to show up; each marker takes a selection, one or more words, each a family of
``turngym.registry.FAMILIES`` (``babyai``) or the start of a short id (``minihack.``):

- ``<!-- id-list: SEL -->`` becomes the selected short ids, in the registry's order:
  `` `babyai.GoTo-v0`, `babyai.Open-v0` ``;
- ``<!-- id-names: SEL -->`` the same names without their prefix (up to the first dot)
  and version: `` `click-test`, `click-button` ``;
- ``<!-- id-count: SEL -->`` how many ids the selection holds;
- ``<!-- id-table-rest: SEL -->``, on the line right after a Markdown table whose rows
  each start with a `` `turngym/<id>` `` cell, the table's rows for the selected ids no
  such table on the page describes, made from the registry row (its description, its
  expert). The hand-written rows stay; one that names an id that is not registered, or
  that the selection does not cover, fails the build.

A word that selects no id, a table marker that follows no table, or a marker of no
known kind (a misspelt one) fails the build (``PluginError``), as
``scripts/docs_config_tables.py`` does for a missing help text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from mkdocs.exceptions import PluginError

if TYPE_CHECKING:
    from turngym.registry import EnvEntry

# An inline marker; one written in a code span (a page that shows the syntax) is left be.
INLINE = re.compile(r"(?<!`)<!-- id-(?P<kind>list|names|count): (?P<selection>[^<>`]+?) -->")
TABLE_REST = re.compile(r"^<!-- id-table-rest: (?P<selection>[^<>`]+?) -->$")
# Any id marker left once the others are expanded: a misspelt one would vanish silently.
STRAY = re.compile(r"(?<!`)<!-- id-.*?-->")
ROW_ID = re.compile(r"^\|\s*`turngym/(?P<name>[^`]+)`\s*\|")
# The header a generated row puts the registry's one-line description under.
DESCRIPTION_HEADERS = ("what", "task", "the game", "game", "description")


def select(selection: str, marker: str = "id-list") -> list[EnvEntry]:
    """The registry rows ``selection`` names (families or id prefixes), in table order.

    Raises:
        PluginError: the selection is empty, or one of its words selects no id.

    """
    # read at call time: the table may have been rebuilt since (a newcomer's row)
    from turngym.registry import NAMESPACE, table

    words = selection.replace(",", " ").split()
    if not words:
        raise PluginError(f"{marker}: the marker names no family or id prefix")
    chosen: set[str] = set()
    for word in words:
        if word in table.FAMILIES:
            rows = table.select(families=[word])
        else:
            prefix = word.removeprefix(f"{NAMESPACE}/")
            rows = [e for e in table.ENVS if e.name.startswith(prefix)]
        if not rows:
            raise PluginError(
                f"{marker}: {word!r} selects no registered id; name a family "
                f"({', '.join(table.FAMILIES)}) or the start of an id `turngym list` shows"
            )
        chosen.update(e.id for e in rows)
    return [e for e in table.ENVS if e.id in chosen]


def _bare(name: str) -> str:
    """``miniwob.click-test-v0`` -> ``click-test``; ``crafter-v0`` -> ``crafter``."""
    stem = name.rsplit("-v", 1)[0]
    return stem.partition(".")[2] or stem


def expand_inline(kind: str, selection: str) -> str:
    """The text an ``id-list``, ``id-names`` or ``id-count`` marker stands for."""
    rows = select(selection, f"id-{kind}")
    if kind == "count":
        return f"{len(rows):,}"
    names = [e.name if kind == "list" else _bare(e.name) for e in rows]
    return ", ".join(f"`{name}`" for name in names)


def _cells(row: str) -> list[str]:
    # a \| inside a cell is text, not a column break
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table_above(lines: list[str], marker: int) -> tuple[list[str], list[str]]:
    """The header cells and the row lines of the table that ends right above ``marker``."""
    start = marker
    while start > 0 and lines[start - 1].startswith("|"):
        start -= 1
    if marker - start < 2:
        raise PluginError(
            f"id-table-rest: {lines[marker]!r} must come right after a Markdown table "
            "(no blank line between)"
        )
    return _cells(lines[start]), lines[start + 2 : marker]


def _described(rows: list[str], selected: set[str], marker: str) -> list[str]:
    """The ids a table's hand-written rows describe, each checked against the registry."""
    from turngym.registry import NAMESPACE, table

    ids = []
    for row in rows:
        match = ROW_ID.match(row)
        if match is None:
            raise PluginError(f"{marker}: a row does not start with a `turngym/<id>` cell: {row}")
        try:
            row_id = table.entry(match["name"]).id
        except KeyError as error:
            raise PluginError(f"{marker}: the table's row {match['name']!r}: {error}") from error
        if row_id not in selected:
            raise PluginError(
                f"{marker}: the table describes {row_id}, which the marker's selection does "
                f"not cover; add its family or prefix to the marker"
            )
        ids.append(row_id.removeprefix(f"{NAMESPACE}/"))
    return ids


def generated_row(row: EnvEntry, headers: list[str]) -> str:
    """A table row for ``row`` under ``headers``, from what the registry knows of it."""
    keys = [h.lower() for h in headers]
    what = next((i for i, k in enumerate(keys) if k in DESCRIPTION_HEADERS), 1)
    cells = []
    for i, key in enumerate(keys):
        if i == 0:
            cells.append(f"`{row.id}`")
        elif i == what:
            cells.append(_cell(row.description) or "-")
        elif key == "expert":
            cells.append(f"`{row.expert.rpartition(':')[2]}`" if row.expert else "none")
        elif key == "actions":
            cells.append('listed in `info["legal_actions"]`' if row.finite_actions else "free text")
        elif key == "max_episode_steps":
            cells.append(f"{row.max_episode_steps:,}" if row.max_episode_steps else "none")
        else:
            cells.append("-")
    return "| " + " | ".join(cells) + " |"


def expand_tables(markdown: str) -> str:
    """The page with each ``id-table-rest`` marker replaced by its table's missing rows."""
    lines = markdown.split("\n")
    marks = [(i, m["selection"]) for i, line in enumerate(lines) if (m := TABLE_REST.match(line))]
    if not marks:
        return markdown
    tables = {}
    described: set[str] = set()
    for i, selection in marks:
        marker = f"id-table-rest: {selection}"
        selected = {e.id for e in select(selection, "id-table-rest")}
        headers, rows = _table_above(lines, i)
        tables[i] = headers
        described.update(_described(rows, selected, marker))
    written = set(described)
    for i, selection in marks:
        missing = [e for e in select(selection, "id-table-rest") if e.name not in written]
        written.update(e.name for e in missing)
        # the rows take the marker's line, so they continue the table above it
        lines[i] = "\n".join(generated_row(e, tables[i]) for e in missing)
    # a marker with nothing to add leaves no line behind
    return "\n".join(line for i, line in enumerate(lines) if line or i not in tables)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs event: expand the id-table-rest markers, then the inline id markers."""
    markdown = expand_tables(markdown)
    markdown = INLINE.sub(lambda m: expand_inline(m["kind"], m["selection"].strip()), markdown)
    stray = STRAY.search(markdown)
    if stray is not None:
        raise PluginError(
            f"{stray[0]!r} is no id marker: write id-list, id-names or id-count with a "
            "selection, or id-table-rest alone on the line after a table"
        )
    return markdown

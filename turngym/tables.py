"""Plain-text tables for the CLI and reports (no dependency beyond the stdlib)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["TableStream", "format_table"]


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str = "") -> str:
    """Left-aligned columns separated by two spaces, with a rule under the header.

    >>> print(format_table(["id", "ok"], [["Wordle-v0", "yes"]]))
    id         ok
    ---------  ---
    Wordle-v0  yes
    """
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()

    out = [title] if title else []
    out.append(line(cells[0]))
    out.append(line(["-" * w for w in widths]))
    out.extend(line(row) for row in cells[1:])
    return "\n".join(out)


class TableStream:
    """A table printed a row at a time, for rows that arrive slowly (``turngym eval``).

    Column widths are fixed up front (the header's, or a wider ``widths`` entry); a
    longer cell pushes the rest of its row right instead of holding the table back.

    >>> table = TableStream(["env", "success"], widths=[9, 0])
    >>> print(table.header())
    env        success
    ---------  -------
    >>> print(table.row(["Wordle-v0", "1.00"]))
    Wordle-v0  1.00
    """

    def __init__(self, headers: Sequence[str], widths: Sequence[int] = ()) -> None:
        given = list(widths) + [0] * (len(headers) - len(widths))
        self.headers = [str(h) for h in headers]
        self.widths = [max(len(h), w) for h, w in zip(self.headers, given, strict=True)]

    def row(self, cells: Sequence[Any]) -> str:
        """One row; fewer cells than columns leave the rest empty."""
        texts = [str(c) for c in cells]
        return "  ".join(c.ljust(w) for c, w in zip(texts, self.widths, strict=False)).rstrip()

    def header(self) -> str:
        """The header line and the rule under it."""
        return self.row(self.headers) + "\n" + self.row(["-" * w for w in self.widths])

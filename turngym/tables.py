"""Plain-text tables for the CLI and reports (no dependency beyond the stdlib)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["format_table"]


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

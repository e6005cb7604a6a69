"""Progress for long loops: tqdm when installed, else a light stderr counter or plain lines."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["progress"]

T = TypeVar("T")


def progress(
    items: Iterable[T], total: int | None = None, desc: str = "", plain_every: float | None = None
) -> Iterator[T]:
    """Yield ``items`` while showing progress on stderr.

    On a terminal: a bar (tqdm, or a counter rewritten in place). Elsewhere (a log file,
    a pipe) nothing by default; with ``plain_every`` (seconds), one plain line
    ``desc i/total`` at most that often (and a last one when any was written), so a log
    shows where a long loop is without carriage returns.

    >>> list(progress(range(3), desc="demo"))
    [0, 1, 2]
    """
    if not sys.stderr.isatty():
        if plain_every is None:
            yield from items
            return
        yield from _plain_lines(items, total, desc, plain_every)
        return
    try:
        from tqdm import tqdm
    except ImportError:
        pass
    else:
        yield from tqdm(items, total=total, desc=desc, leave=False)
        return
    last = 0.0
    for i, item in enumerate(items, 1):
        now = time.monotonic()
        if now - last > 0.2:
            last = now
            of = f"/{total}" if total else ""
            sys.stderr.write(f"\r{desc} {i}{of}")
            sys.stderr.flush()
        yield item
    sys.stderr.write("\r" + " " * (len(desc) + 24) + "\r")
    sys.stderr.flush()


def _plain_lines(items: Iterable[T], total: int | None, desc: str, every: float) -> Iterator[T]:
    """``items``, with a ``desc i/total`` line on stderr after an item at most every ``every`` s."""
    of = f"/{total}" if total else ""
    last = time.monotonic()
    i, said = 0, False
    for i, item in enumerate(items, 1):
        yield item
        now = time.monotonic()
        if now - last >= every and (total is None or i < total):
            last, said = now, True
            print(f"{desc} {i}{of}", file=sys.stderr, flush=True)
    if said:  # a short loop says nothing; a long one says that it ended
        print(f"{desc} {i}{of} done", file=sys.stderr, flush=True)

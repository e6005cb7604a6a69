"""A progress bar for long loops: tqdm when installed, else a light stderr counter."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["progress"]

T = TypeVar("T")


def progress(items: Iterable[T], total: int | None = None, desc: str = "") -> Iterator[T]:
    """Yield ``items`` while showing progress on stderr (only when stderr is a terminal).

    >>> list(progress(range(3), desc="demo"))
    [0, 1, 2]
    """
    if not sys.stderr.isatty():
        yield from items
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

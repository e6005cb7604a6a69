"""turngym.pyparse: Python parsed from many threads at once never fails spuriously.

CPython's AST constructor shares its recursion depth between threads: a finalizer run
by the garbage collector in the middle of a tree hands the GIL to a thread that builds
another, and the first fails with ``SystemError: AST constructor recursion depth
mismatch`` (it failed ``make test``: two web envs reset in threads, werkzeug compiling
URL rules). Every parse of turngym's goes through one lock.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

from turngym.pyparse import AST_LOCK, parse

SOURCE = "\n".join(
    f"def f{i}(a, b=1, *c, **d):\n    return [x * y for x in a for y in b if x > {i}]"
    for i in range(30)
)


class _Cycle:
    """Garbage only the collector frees; its finalizer gives up the GIL mid-tree."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        time.sleep(0)


def _errors(parse_fn: Callable[[str], object], threads: int = 4, rounds: int = 200) -> list[str]:
    errors: list[str] = []

    def work() -> None:
        for _ in range(rounds):
            for _ in range(50):
                _Cycle()
            try:
                parse_fn(SOURCE)
            except SystemError as error:
                errors.append(str(error))
                return

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=work) for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(old)
    return errors


def test_threads_parsing_at_once_never_see_a_recursion_depth_mismatch():
    # plain ast.parse fails here on CPython 3.11.7 (one thread of four, each run seen)
    assert _errors(parse) == []
    with AST_LOCK:  # reentrant: a parse inside a held lock (werkzeug's, in a site) goes on
        assert parse("x").body


def test_parse_keeps_the_errors_of_ast_parse():
    import ast

    import pytest

    assert isinstance(parse("1 + 2", mode="eval"), ast.Expression)
    with pytest.raises(SyntaxError):
        parse("def (")

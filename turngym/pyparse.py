"""Python source parsed safely from many threads: ``ast.parse`` under one process lock.

CPython's AST constructor keeps its recursion depth in per-interpreter state. When the
garbage collector runs a finalizer in the middle of building a tree, another thread can
take the GIL and build a tree of its own, and the first one then fails with
``SystemError: AST constructor recursion depth mismatch`` (seen in ``make test`` on
3.11.7: two web envs reset in threads, werkzeug compiling URL rules with ``ast.parse``).
Everything in turngym that parses Python (action calls, answers, a task's tests, the
configs' field docs, the sites' URL maps) does it under :data:`AST_LOCK`.
"""

from __future__ import annotations

import ast
import threading
from typing import Literal, overload

AST_LOCK = threading.RLock()
"""Held while turngym builds a syntax tree (reentrant: a parse may start another)."""


@overload
def parse(source: str, mode: Literal["exec"] = "exec") -> ast.Module: ...
@overload
def parse(source: str, mode: Literal["eval"]) -> ast.Expression: ...


def parse(source: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(source, mode=mode)`` under :data:`AST_LOCK`; the same errors."""
    with AST_LOCK:
        return ast.parse(source, mode=mode)

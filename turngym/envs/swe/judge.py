"""The grader's own judgement: hidden tests' expected constants kept outside the sandbox.

Before the hidden test files reach the sandbox, `strip_expectations` rewrites each
assertion that compares with a constant so that the test only *observes* the value:

- ``assert EXPR == CONSTANT`` (either side; ``pytest.approx(CONSTANT)`` too),
  ``assert EXPR is None/True/False``, ``self.assertEqual(EXPR, CONSTANT)``,
  ``self.assertIsNone(EXPR)``: the value of ``EXPR`` is sent out
  (``__turngym_observe__(site, EXPR)``);
- ``with pytest.raises(EXCEPTION): ...``: the class of what the block raised is sent
  out (``with __turngym_raises__(site): ...``);
- ``assert A and B`` is two assertions.

The constants and exception names (a `Site` each) stay in the grader's memory. The
grading harness (``plugin/turngym_grade.py``) sends each observed value as plain data
read from the exact built-in types only, and `judge` compares it here. So nothing the
code under test does inside its interpreter can make an observation right except
computing the right value: not a forged report, not a replaced pytest, not an object
whose ``__eq__`` is always true. A site in a test's straight-line code (not under an
``if``, a loop, a ``try`` or after a ``pytest.raises``) must be observed for the test to
pass; a test none of whose sites can be kept outside rests on the harness's seal alone
(`Expectations.unjudged` lists them; the task validator rejects such FAIL_TO_PASS tests).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from turngym.pyparse import parse

__all__ = ["Expectations", "Site", "decode", "judge", "strip_expectations"]

OBSERVE, RAISES = "__turngym_observe__", "__turngym_raises__"
_PARAMS = re.compile(r"\[.*\]$", re.DOTALL)
_APPROX_REL, _APPROX_ABS = 1e-6, 1e-12  # pytest.approx's defaults


@dataclass(frozen=True)
class Site:
    """One assertion whose expected value the grader keeps.

    Attributes:
        kind: ``"eq"`` (``==``), ``"is"`` (``is None/True/False``), ``"approx"`` or
            ``"raises"``.
        expected: the constant (``"eq"``, ``"is"``, ``"approx"``), or the names of the
            exception classes any of which passes (``"raises"``).
        function: the test function's qualified name (``"test_x"``, ``"TestA.test_x"``).
        required: whether every run of the test must observe it (straight-line code).
        rel: ``pytest.approx``'s relative tolerance.
        abs: ``pytest.approx``'s absolute tolerance.

    """

    kind: str
    expected: Any
    function: str
    required: bool
    rel: float = _APPROX_REL
    abs: float = _APPROX_ABS


@dataclass
class Expectations:
    """What the grader kept of a run's test files: sites by id, and tests with none."""

    sites: dict[str, Site] = field(default_factory=dict)
    """site id -> what it expects"""
    functions: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """(file, function) -> its site ids"""
    unjudged: set[tuple[str, str]] = field(default_factory=set)
    """(file, function) of the tests with no site kept here"""

    def unjudged_tests(self, test_ids: Iterable[str]) -> tuple[str, ...]:
        r"""Those of ``test_ids`` that no check kept here judges (their file's or their own).

        >>> kept = Expectations()
        >>> _ = strip_expectations("def test_a():\n    assert f()\n", "t.py", kept)
        >>> kept.unjudged_tests(["t.py::test_a", "u.py::test_b"])
        ('t.py::test_a', 'u.py::test_b')

        """
        found = []
        for test_id in test_ids:
            path, _, rest = _PARAMS.sub("", test_id).partition("::")
            if not self.functions.get((path, rest.replace("::", "."))):
                found.append(test_id)
        return tuple(found)


def strip_expectations(source: str, path: str, into: Expectations) -> str:
    r"""``source`` with each assertion on a constant turned into an observation.

    Args:
        source: a test file's text.
        path: its repository-relative path (site ids and test ids start with it).
        into: where the sites are recorded.

    Returns:
        The new text: same lines (tracebacks keep their line numbers), no constant of
        an assertion left in it. A file that does not parse is returned as it is.

    >>> kept = Expectations()
    >>> print(strip_expectations("def test_a():\n    assert f() == 3\n", "t.py", kept))
    def test_a():
        __turngym_observe__('t.py#0', (f()))
    <BLANKLINE>
    >>> kept.sites["t.py#0"].expected
    3

    """
    try:
        tree = parse(source)
    except (SyntaxError, ValueError):
        return source
    lines = source.splitlines(keepends=True)
    edits: list[tuple[tuple[int, int], tuple[int, int], str]] = []
    for qualname, function in _test_functions(tree):
        found: list[str] = []
        for node, required in _statements(function.body, required=True):
            edit = _rewrite(node, required, qualname, path, into, found, lines)
            if edit is not None:
                start, end = _span(edit[0], lines)
                edits.append((start, end, edit[1]))
        into.functions[(path, qualname)] = found
        if not found:
            into.unjudged.add((path, qualname))
    for start, end, text in sorted(edits, reverse=True):
        lines = _replace(lines, start, end, text)
    return "".join(lines)


def _test_functions(
    tree: ast.Module,
) -> Iterable[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, functions) and node.name.startswith("test"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for inner in node.body:
                if isinstance(inner, functions) and inner.name.startswith("test"):
                    yield f"{node.name}.{inner.name}", inner


def _statements(body: Sequence[ast.stmt], required: bool) -> Iterable[tuple[ast.stmt, bool]]:
    """Each statement (into blocks), with whether it runs whenever its function reaches it."""
    after_raises = False
    for node in body:
        yield node, required and not after_raises
        if isinstance(node, (ast.With, ast.AsyncWith)):
            raising = any(_raises_call(item.context_expr) for item in node.items)
            yield from _statements(node.body, required and not raising and not after_raises)
        elif isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try)):
            for block in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, block, [])
                if block == "handlers":
                    for handler in inner:
                        yield from _statements(handler.body, False)
                else:
                    yield from _statements(inner, False)
        if isinstance(node, (ast.Raise, ast.Return)):
            after_raises = True


def _raises_call(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and _dotted(node.func) in ("pytest.raises", "raises")
        and len(node.args) == 1
    )


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def _constant(node: ast.expr) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _rewrite(
    node: ast.stmt,
    required: bool,
    qualname: str,
    path: str,
    into: Expectations,
    found: list[str],
    lines: list[str],
) -> tuple[ast.AST, str] | None:
    """What to replace in ``node`` (itself or a part) and with what; None: nothing."""

    def site(kind: str, expected: Any, **tolerance: float) -> str:
        name = f"{path}#{len(into.sites)}"
        into.sites[name] = Site(kind, expected, qualname, required, **tolerance)
        found.append(name)
        return name

    def source(expr: ast.expr) -> str:
        return _segment(expr, lines)

    if isinstance(node, ast.Assert):
        test: Any = node.test
        parts = test.values if _is_and(test) else [test]
        texts = [_observation(part, site, source) for part in parts]
        if all(text is None for text in texts):
            return None
        return node, "; ".join(
            text if text is not None else f"assert ({source(part)})"
            for text, part in zip(texts, parts, strict=True)
        )
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        method = _dotted(call.func)
        text = None
        if method == "self.assertEqual" and len(call.args) == 2 and not call.keywords:
            text = _equal(call.args[0], call.args[1], site, source)
        if method == "self.assertIsNone" and len(call.args) == 1 and not call.keywords:
            text = f"{OBSERVE}({site('is', None)!r}, ({source(call.args[0])}))"
        return None if text is None else (node, text)
    if isinstance(node, ast.With):
        return _with_raises(node, site, source)
    return None


def _is_and(node: ast.expr) -> bool:
    return isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And)


def _observation(test: ast.expr, site: Any, source: Any) -> str | None:
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, ast.Eq):
            return _equal(left, right, site, source)
        if isinstance(op, ast.Is):
            ok, value = _constant(right)
            if (ok and value is None) or value is True or value is False:
                return f"{OBSERVE}({site('is', value)!r}, ({source(left)}))"
    return None


def _equal(left: ast.expr, right: ast.expr, site: Any, source: Any) -> str | None:
    for value_side, other in ((left, right), (right, left)):
        approx = _approx(other)
        if approx is not None:
            expected, tolerance = approx
            return f"{OBSERVE}({site('approx', expected, **tolerance)!r}, ({source(value_side)}))"
        ok, value = _constant(other)
        if ok and not _constant(value_side)[0]:
            return f"{OBSERVE}({site('eq', value)!r}, ({source(value_side)}))"
    return None


def _approx(node: ast.expr) -> tuple[Any, dict[str, float]] | None:
    if not (isinstance(node, ast.Call) and _dotted(node.func) in ("pytest.approx", "approx")):
        return None
    if len(node.args) != 1:
        return None
    ok, expected = _constant(node.args[0])
    if not ok or not _numbers(expected):
        return None
    tolerance: dict[str, float] = {}
    for keyword in node.keywords:
        good, value = _constant(keyword.value)
        if keyword.arg not in ("rel", "abs") or not good or not isinstance(value, (int, float)):
            return None
        tolerance[keyword.arg] = float(value)
    return expected, tolerance


def _numbers(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_numbers(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _with_raises(node: ast.With, site: Any, source: Any) -> tuple[ast.AST, str] | None:
    """``pytest.raises(E)`` of a ``with`` line replaced (the block stays as it is)."""
    if len(node.items) != 1 or not _raises_call(node.items[0].context_expr):
        return None
    call = node.items[0].context_expr
    assert isinstance(call, ast.Call)
    names = _exception_names(call.args[0])
    if names is None or any(k.arg != "match" for k in call.keywords):
        return None
    match = "".join(f", match=({source(k.value)})" for k in call.keywords)
    return call, f"{RAISES}({site('raises', names)!r}{match})"


def _exception_names(node: ast.expr) -> tuple[str, ...] | None:
    names = [_dotted(e) for e in node.elts] if isinstance(node, ast.Tuple) else [_dotted(node)]
    if not all(names):
        return None
    return tuple(name.rsplit(".", 1)[-1] for name in names)


# --------------------------------------------------------------------------- text edits


def _segment(node: Any, lines: list[str]) -> str:
    (line, col), (end_line, end_col) = _span(node, lines)
    if line == end_line:
        return lines[line][col:end_col]
    return lines[line][col:] + "".join(lines[line + 1 : end_line]) + lines[end_line][:end_col]


def _span(node: Any, lines: list[str]) -> tuple[tuple[int, int], tuple[int, int]]:
    """(line, character) of ``node``'s start and end, 0-based (ast counts UTF-8 bytes)."""

    def column(line: int, byte: int) -> int:
        return len(lines[line].encode("utf-8")[:byte].decode("utf-8", "replace"))

    line, end_line = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    end_col = node.end_col_offset if node.end_col_offset is not None else 0
    return (line, column(line, node.col_offset)), (end_line, column(end_line, end_col))


def _replace(
    lines: list[str], start: tuple[int, int], end: tuple[int, int], text: str
) -> list[str]:
    """``lines`` with the span replaced by ``text``, padded to keep the line count."""
    (line, col), (end_line, end_col) = start, end
    missing = (end_line - line) - text.count("\n")
    if missing > 0:  # newlines inside the last bracket keep the following lines in place
        text = text[:-1] + "\n" * missing + text[-1]
    head, tail = lines[line][:col], lines[end_line][end_col:]
    return [*lines[:line], *(head + text + tail).splitlines(keepends=True), *lines[end_line + 1 :]]


# --------------------------------------------------------------------------- judging


def decode(data: Any) -> Any:
    """A value the harness sent, as the built-in value it was (``_OTHER`` when it was not one).

    >>> decode({"t": "list", "v": [{"t": "int", "v": "ff"}, None]})
    [255, None]
    >>> decode({"t": "other", "type": "AlwaysEqual"}) == 0
    False

    """
    if data is None:
        return None
    if not isinstance(data, dict):
        return _OTHER
    tag: Any = data.get("t")
    value: Any = data.get("v")
    try:
        if tag == "bool":
            return value is True
        if tag == "int":
            return int(str(value), 16)
        if tag == "float":
            return float(str(value))
        if tag == "complex":
            return complex(float(value[0]), float(value[1]))
        if tag == "str" and isinstance(value, str):
            return value
        if tag == "bytes":
            return bytes.fromhex(str(value))
        if tag == "list":
            return [decode(v) for v in value]
        if tag == "tuple":
            return tuple(decode(v) for v in value)
        if tag == "dict":
            return {_hashable(decode(k)): decode(v) for k, v in value}
        if tag in ("set", "frozenset"):
            items = {_hashable(decode(v)) for v in value}
            return items if tag == "set" else frozenset(items)
    except (TypeError, ValueError, OverflowError):
        return _OTHER
    return _OTHER


class _Other:
    """What no constant equals: a value that was not a built-in one, or too big to send."""

    def __eq__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return "<not a built-in value>"


_OTHER = _Other()


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        raise TypeError("unhashable")
    return value


def _holds(site: Site, record: Mapping[str, Any]) -> bool:
    if site.kind == "raises":
        raised = record.get("raised")
        if not isinstance(raised, list):
            return False
        qualnames = {str(name).rsplit(".", 1)[-1] for name in raised}
        return any(name in qualnames for name in site.expected)
    if "value" not in record:
        return False
    value = decode(record["value"])
    if site.kind == "is":
        return value is site.expected
    if site.kind == "approx":
        return _close(value, site.expected, site.rel, site.abs)
    try:
        return bool(value == site.expected)
    except (TypeError, ValueError):
        return False


def _close(value: Any, expected: Any, rel: float, tolerance: float) -> bool:
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(expected)
            and all(_close(v, e, rel, tolerance) for v, e in zip(value, expected, strict=True))
        )
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isclose(value, expected, rel_tol=rel, abs_tol=tolerance) or value == expected


def judge(
    expectations: Expectations, observations: Sequence[Mapping[str, Any]], test_ids: Iterable[str]
) -> dict[str, str]:
    """Why each of ``test_ids`` fails the grader's own checks ("" where it passes them).

    A test fails them when an observation of one of its sites does not hold, or a
    required site of its function was never observed during it.
    """
    seen: dict[str, dict[str, bool]] = {}
    for record in observations:
        name, test = str(record.get("site", "")), str(record.get("test", ""))
        site = expectations.sites.get(name)
        if site is None:
            continue
        verdict = seen.setdefault(test, {})
        verdict[name] = verdict.get(name, True) and _holds(site, record)
    why: dict[str, str] = {}
    for test_id in test_ids:
        path, _, rest = _PARAMS.sub("", test_id).partition("::")
        function = rest.replace("::", ".")
        sites = expectations.functions.get((path, function), [])
        verdict = seen.get(test_id, {})
        wrong = [s for s in sites if verdict.get(s) is False]
        missing = [s for s in sites if expectations.sites[s].required and s not in verdict]
        if wrong:
            why[test_id] = f"{len(wrong)} of its checks saw the wrong value"
        elif missing:
            why[test_id] = f"{len(missing)} of its checks never ran"
        else:
            why[test_id] = ""
    return why

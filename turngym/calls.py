"""Function-call actions (``fill(7, "red shoes")``, ``bash("ls -la")``) parsed without ``eval``.

Several envs take their actions as one call in Python syntax with literal arguments:
the web envs' ``click(12)``, the SWE envs' ``str_replace("a.py", "x", "y")``.
``parse_call`` reads such a text with Python's ``ast`` and accepts only a bare call of a
known name whose arguments are literals (numbers, strings, lists of them): nothing is
evaluated, so ``click(__import__('os'))`` is refused like any other malformed action. Each
env describes its calls as a table of ``Param`` lists; a param's ``Kind`` says what a
literal must be and converts it (an element id may be written ``12``, ``"12"`` or
``[12]``). Text that is too long is refused before it is parsed, and every refusal is an
``Invalid`` whose reason tells the agent what to write instead.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from turngym.core import Invalid
from turngym.pyparse import parse

__all__ = ["REQUIRED", "Kind", "Param", "parse_call", "usage"]

REQUIRED: Any = object()
"""The default of a parameter that must be given."""


@dataclass(frozen=True)
class Kind:
    """What a parameter's literal must be: a name for messages and a converter.

    ``convert`` gets the literal's Python value (str, int, float, list) and returns the
    typed value, or None when the literal is not of this kind; ``hint`` ends the message
    that says so (e.g. ``" in quotes"``).
    """

    name: str
    convert: Callable[[object], Any]
    hint: str = ""


@dataclass(frozen=True)
class Param:
    """One parameter of a call: its name, kind and default (``REQUIRED`` if none)."""

    name: str
    kind: Kind
    default: Any = REQUIRED


def usage(name: str, params: Sequence[Param]) -> str:
    """How a call is written, e.g. ``view(path, start?, end?)`` (``?``: optional)."""
    shown = (p.name + ("?" if p.default is not REQUIRED else "") for p in params)
    return f"{name}({', '.join(shown)})"


def parse_call(
    text: object,
    calls: Mapping[str, Sequence[Param]],
    *,
    max_chars: int,
    json_calls: bool = False,
) -> tuple[str, dict[str, Any]] | Invalid:
    """The call ``text`` makes as (name, {param: value}), or an ``Invalid`` saying why not.

    Calls without parameters may be written bare (``back``). With ``json_calls`` a call
    may also come as a function-calling model writes it, ``{"name": ..., "arguments":
    {...}}`` (arguments as an object or a JSON string).

    >>> text = {"name": Kind("text", lambda v: v if isinstance(v, str) else None, " in quotes")}
    >>> calls = {"say": [Param("text", text["name"])], "stop": []}
    >>> parse_call('say("hi")', calls, max_chars=100)
    ('say', {'text': 'hi'})
    >>> parse_call("say(__import__('os'))", calls, max_chars=100).reason
    "say: text must be a literal text in quotes, got __import__('os')"
    """
    every = "; ".join(usage(n, p) for n, p in calls.items())
    if not isinstance(text, str):
        return Invalid(f"an action is a call such as {_first(calls)}, got {type(text).__name__}")
    if len(text) > max_chars:
        return Invalid(f"action too long ({len(text)} characters; at most {max_chars})")
    source = _unwrap(text)
    if source in calls and not calls[source]:
        return source, {}
    if json_calls and source.startswith("{"):
        return _from_json(source, calls, every)
    tree = _ast(source)
    if tree is None and "\n" in source:
        # Models often break lines inside a quoted string; read those breaks as \n.
        tree = _ast(source.replace("\n", "\\n"))
    call = tree.body if tree is not None else None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return Invalid(f"not a single action call ({_short(source)}); use one of: {every}")
    name = call.func.id
    if name not in calls:
        return Invalid(f"unknown action {name!r}; use one of: {every}")
    params = calls[name]
    sig = usage(name, params)
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return Invalid(f"{name}: no * or ** arguments; use {sig}")
    if len(call.args) > len(params):
        return Invalid(f"{name} takes {len(params)} argument(s), got {len(call.args)}; use {sig}")
    nodes = dict(zip((p.name for p in params), call.args, strict=False))
    for keyword in call.keywords:
        if keyword.arg not in {p.name for p in params}:
            return Invalid(f"{name} has no argument {keyword.arg!r}; use {sig}")
        if keyword.arg in nodes:
            return Invalid(f"{name}: {keyword.arg} given twice; use {sig}")
        nodes[str(keyword.arg)] = keyword.value
    values = {key: _literal(node) for key, node in nodes.items()}
    shown = {key: ast.unparse(node) for key, node in nodes.items()}
    return _bind(name, params, values, shown)


def _bind(
    name: str, params: Sequence[Param], values: Mapping[str, object], shown: Mapping[str, str]
) -> tuple[str, dict[str, Any]] | Invalid:
    """Check the given values against the parameters and convert them."""
    sig = usage(name, params)
    missing = [p.name for p in params if p.name not in values and p.default is REQUIRED]
    if missing:
        return Invalid(f"{name}: missing {', '.join(missing)}; use {sig}")
    args: dict[str, Any] = {}
    for param in params:
        if param.name not in values:
            args[param.name] = param.default
            continue
        value = values[param.name]
        typed = None if value is _NOT_LITERAL else param.kind.convert(value)
        if typed is None:
            kind = param.kind
            got = _short(shown[param.name])
            return Invalid(
                f"{name}: {param.name} must be a literal {kind.name}{kind.hint}, got {got}"
            )
        args[param.name] = typed
    return name, args


def _from_json(
    source: str, calls: Mapping[str, Sequence[Param]], every: str
) -> tuple[str, dict[str, Any]] | Invalid:
    """A call written as a JSON tool call: ``{"name": ..., "arguments": {...}}``."""
    try:
        data = json.loads(source)
        arguments = data.get("arguments", {}) if isinstance(data, dict) else None
        if isinstance(arguments, str):
            arguments = json.loads(arguments or "{}")
    except (ValueError, RecursionError):
        return Invalid(
            f'not a JSON tool call ({_short(source)}); write {{"name": ..., "arguments": {{...}}}}'
        )
    name = data.get("name") if isinstance(data, dict) else None
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return Invalid(f"not a JSON tool call; {_JSON_FORM}")
    if name not in calls:
        return Invalid(f"unknown action {name!r}; use one of: {every}")
    known = {p.name for p in calls[name]}
    extra = [key for key in arguments if key not in known]
    if extra:
        return Invalid(f"{name} has no argument {extra[0]!r}; use {usage(name, calls[name])}")
    shown = {key: _short(json.dumps(value)) for key, value in arguments.items()}
    return _bind(name, calls[name], arguments, shown)


_JSON_FORM = 'write {"name": "<tool>", "arguments": {...}}'


def _unwrap(text: str) -> str:
    """The call inside a Markdown code fence or backticks, without a trailing ``;``."""
    source = text.strip()
    if source.startswith("```"):
        source = source.split("\n", 1)[1] if "\n" in source else source.strip("`")
        source = source.removesuffix("```")
    source = source.strip().removesuffix(";").strip().strip("`").strip()
    return source.removesuffix(";").strip()


def _ast(source: str) -> ast.Expression | None:
    try:
        return parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _literal(node: ast.expr) -> object:
    """The value of a literal number, string or list node (a sign allowed), else a sentinel."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _literal(node.operand)
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return -inner if isinstance(node.op, ast.USub) else inner
        return _NOT_LITERAL
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | float):
        return node.value
    if isinstance(node, ast.List | ast.Tuple):
        items = [_literal(e) for e in node.elts]
        return _NOT_LITERAL if any(i is _NOT_LITERAL for i in items) else items
    return _NOT_LITERAL


_NOT_LITERAL = object()


def _first(calls: Mapping[str, Sequence[Param]]) -> str:
    name, params = next(iter(calls.items()))
    return usage(name, params)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."

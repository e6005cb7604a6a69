"""The shared function-call parser: literals only, defaults, JSON tool calls, clear refusals."""

from __future__ import annotations

import pytest

from turngym.calls import Kind, Param, parse_call, usage
from turngym.core import Invalid

TEXT = Kind("text", lambda v: v if isinstance(v, str) else None, " in quotes")
INT = Kind("int", lambda v: v if isinstance(v, int) and not isinstance(v, bool) else None)
CALLS = {
    "view": (Param("path", TEXT), Param("start", INT, None), Param("end", INT, None)),
    "submit": (),
}


def parse(text: object, **kwargs):
    return parse_call(text, CALLS, max_chars=1000, **kwargs)


def test_positional_keyword_and_default_arguments():
    assert parse('view("a.py")') == ("view", {"path": "a.py", "start": None, "end": None})
    assert parse('view("a.py", 3, end=9)') == ("view", {"path": "a.py", "start": 3, "end": 9})
    assert parse("submit") == ("submit", {})
    assert parse("submit()") == ("submit", {})


def test_fences_backticks_and_a_trailing_semicolon_are_unwrapped():
    assert parse('```python\nview("a.py")\n```') == parse('view("a.py")')
    assert parse('`view("a.py")`;') == parse('view("a.py")')


def test_a_raw_line_break_inside_a_string_reads_as_newline():
    assert parse('view("a\nb")')[1]["path"] == "a\nb"  # type: ignore[index]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("view(__import__('os'))", "path must be a literal text in quotes"),
        ("view('a' + 'b')", "path must be a literal text in quotes"),
        ("view('a', '3')", "start must be a literal int"),
        ("view('a', True)", "start must be a literal int"),
        ("view()", "view: missing path; use view(path, start?, end?)"),
        ("view('a', 1, 2, 3)", "view takes 3 argument(s), got 4"),
        ("view('a', path='b')", "path given twice"),
        ("view('a', line=2)", "view has no argument 'line'"),
        ("view(*x)", "no * or ** arguments"),
        ("exec('x')", "unknown action 'exec'"),
        ("view('a'); submit()", "not a single action call"),
        ("os.system('ls')", "not a single action call"),
        ("x" * 1001, "action too long (1001 characters; at most 1000)"),
        (None, "an action is a call such as view(path, start?, end?), got NoneType"),
    ],
)
def test_refusals_say_what_to_write(text, reason):
    parsed = parse(text)
    assert isinstance(parsed, Invalid)
    assert reason in parsed.reason


def test_json_tool_calls_only_when_asked():
    call = '{"name": "view", "arguments": {"path": "a.py", "start": 2}}'
    assert parse(call, json_calls=True) == ("view", {"path": "a.py", "start": 2, "end": None})
    as_string = '{"name": "view", "arguments": "{\\"path\\": \\"a.py\\"}"}'
    assert parse(as_string, json_calls=True)[0] == "view"  # type: ignore[index]
    assert isinstance(parse(call), Invalid)
    for bad, reason in [
        ('{"name": "view", "arguments": {"path": 3}}', "path must be a literal text"),
        ('{"name": "rm", "arguments": {}}', "unknown action 'rm'"),
        ('{"name": "view", "arguments": {"x": 1, "path": "a"}}', "no argument 'x'"),
        ('{"name": "view"', "not a JSON tool call"),
        ('{"arguments": {}}', "not a JSON tool call"),
    ]:
        parsed = parse(bad, json_calls=True)
        assert isinstance(parsed, Invalid) and reason in parsed.reason, bad


def test_usage_marks_optional_parameters():
    assert usage("view", CALLS["view"]) == "view(path, start?, end?)"

"""parse_action: every web action, and malformed or hostile text as a clear Invalid."""

from __future__ import annotations

import pytest

from turngym.core import Invalid
from turngym.envs.web.actions import (
    ACTIONS,
    MAX_ACTION_CHARS,
    WebAction,
    is_loopback_url,
    parse_action,
)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("click(12)", WebAction("click", (12,))),
        ("  click( 12 )\n", WebAction("click", (12,))),
        ("`click(12)`", WebAction("click", (12,))),
        ("click([12])", WebAction("click", (12,))),  # the id as the observation shows it
        ('click("12")', WebAction("click", (12,))),
        ("click(id=3)", WebAction("click", (3,))),
        ('fill(7, "red shoes")', WebAction("fill", (7, "red shoes"))),
        ("fill(7, 'it\\'s \"quoted\"')", WebAction("fill", (7, 'it\'s "quoted"'))),
        ('fill(text="a, b", id=7)', WebAction("fill", (7, "a, b"))),
        ('select(4, "Size: XL")', WebAction("select", (4, "Size: XL"))),
        ('press("Enter")', WebAction("press", ("Enter",))),
        ("scroll(0, -300)", WebAction("scroll", (0.0, -300.0))),
        ("scroll(+1.5, 2)", WebAction("scroll", (1.5, 2.0))),
        ('goto("http://127.0.0.1:8000/cart")', WebAction("goto", ("http://127.0.0.1:8000/cart",))),
        ("back()", WebAction("back")),
        ("back", WebAction("back")),
        ("noop", WebAction("noop")),
        ('answer("42 dollars")', WebAction("answer", ("42 dollars",))),
        ("mouse_click(120, 48.5)", WebAction("mouse_click", (120.0, 48.5))),
    ],
)
def test_every_action_parses(text, want):
    assert parse_action(text) == want


def test_canonical_text_round_trips():
    for text in ('fill(7, "red shoes")', "scroll(0, -300)", "back()", "mouse_click(1.5, 2)"):
        action = parse_action(text)
        assert isinstance(action, WebAction)
        assert parse_action(str(action)) == action
    assert str(parse_action("scroll(0, -300)")) == "scroll(0, -300)"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("click(__import__('os'))", "id must be a literal element id"),
        ("__import__('os').system('ls')", "not a single action call"),
        ("exec('print(1)')", "unknown action 'exec'"),
        ("click(12); click(13)", "not a single action call"),
        ("click(12) or click(13)", "not a single action call"),
        ('fill(7, "unbalanced)', "not a single action call"),
        ("fill(7, 'a' + 'b')", "text must be a literal text in quotes"),
        ('fill(7, f"{x}")', "text must be a literal text in quotes"),
        ("click(*ids)", "no * or ** arguments"),
        ("click(**kw)", "no * or ** arguments"),
        ("click()", "click: missing id"),
        ("click(1, 2)", "click takes 1 argument(s), got 2"),
        ("click(1, id=2)", "id given twice"),
        ("click(ref=2)", "click has no argument 'ref'"),
        ("click(-3)", "id must be a literal element id"),
        ("click(True)", "id must be a literal element id"),
        ("click(1.5)", "id must be a literal element id"),
        ("scroll('up', 3)", "dx must be a literal number"),
        ("scroll(1e12, 0)", "dx must be a literal number"),
        ("page.click(3)", "not a single action call"),
        ("Click the blue button", "not a single action call"),
        ("", "not a single action call"),
        ("jump(3)", "unknown action 'jump'"),
        ("click(\x00)", "not a single action call"),
    ],
)
def test_malformed_actions_say_what_is_wrong(text, says):
    result = parse_action(text)
    assert isinstance(result, Invalid), result
    assert says in result.reason
    assert "\n" not in result.reason and len(result.reason) < 400


def test_overlong_and_non_string_actions_are_refused_before_parsing():
    huge = 'fill(1, "' + "x" * 100_000 + '")'
    result = parse_action(huge)
    assert isinstance(result, Invalid) and "too long" in result.reason
    nested = "click(" + "[" * 4_000 + "]" * 4_000 + ")"  # deep nesting under the limit
    assert len(nested) <= MAX_ACTION_CHARS
    assert isinstance(parse_action(nested), Invalid)
    assert isinstance(parse_action(None), Invalid)
    assert "got int" in parse_action(12).reason  # type: ignore[union-attr]
    at_limit = 'fill(1, "' + "x" * (MAX_ACTION_CHARS - 11) + '")'
    assert len(at_limit) == MAX_ACTION_CHARS
    assert parse_action(at_limit) == WebAction("fill", (1, "x" * (MAX_ACTION_CHARS - 11)))


def test_unknown_action_lists_the_usage():
    reason = parse_action("jump(3)").reason  # type: ignore[union-attr]
    for name in ACTIONS:
        assert f"{name}(" in reason


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8000/cart", True),
        ("https://localhost/forum", True),
        ("http://127.3.4.5/", True),
        ("http://[::1]:9000/x", True),
        ("http://example.com/", False),
        ("http://10.0.0.1/", False),
        ("http://127.0.0.1.nip.io/", False),
        ("file:///etc/passwd", False),
        ("javascript:alert(1)", False),
        ("http://[::1/", False),  # malformed
        ("not a url", False),
    ],
)
def test_is_loopback_url(url, loopback):
    assert is_loopback_url(url) is loopback

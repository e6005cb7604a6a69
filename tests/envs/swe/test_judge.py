"""The grader's own checks (``turngym/envs/swe/judge.py``): constants kept, values judged."""

from __future__ import annotations

import math

import pytest

from turngym.envs.swe.judge import Expectations, decode, judge, strip_expectations

SOURCE = """\
import pytest


def test_values():
    assert total([1, 2, 3]) == 6
    assert "secret" == name()
    assert lookup() is None and ratio() == pytest.approx(0.5)
    assert flag()
    if maybe():
        assert later() == [1, (2, 3)]


def test_raises():
    with pytest.raises(ValueError, match="bad"):
        parse("x")
    assert after() == 1


class TestThing:
    def test_method(self):
        self.assertEqual(size(), 3)


def test_nothing_kept():
    assert a() == b()
"""


def stripped() -> tuple[str, Expectations]:
    kept = Expectations()
    return strip_expectations(SOURCE, "tests/test_x.py", kept), kept


def encode(value):
    """The harness's encoding, for the values the tests below send."""
    if value is None:
        return None
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, int):
        return {"t": "int", "v": format(value, "x")}
    if isinstance(value, float):
        return {"t": "float", "v": repr(value)}
    if isinstance(value, str):
        return {"t": "str", "v": value}
    if isinstance(value, (list, tuple)):
        return {"t": type(value).__name__, "v": [encode(v) for v in value]}
    raise TypeError(value)


def test_no_constant_of_an_assertion_is_left_and_the_lines_stay():
    text, kept = stripped()
    assert len(text.splitlines()) == len(SOURCE.splitlines())
    for constant in ("== 6", '"secret" ==', "approx(0.5)", "ValueError", "[1, (2, 3)]"):
        assert constant not in text
    compile(text, "test_x.py", "exec")
    assert 'match=("bad")' in text  # in-process, as pytest would
    assert "    assert flag()\n" in text  # no constant: stays an assertion
    kinds = sorted(site.kind for site in kept.sites.values())
    assert kinds == ["approx", "eq", "eq", "eq", "eq", "eq", "is", "raises"]


def test_sites_under_a_branch_or_after_a_raises_block_are_not_required():
    _text, kept = stripped()
    required = {repr(s.expected): s.required for s in kept.sites.values() if s.kind == "eq"}
    assert required["6"] and required["'secret'"] and required["3"]
    assert not required["[1, (2, 3)]"]  # under an if
    assert required["1"]  # after the raises block, not in it


def observations(kept: Expectations, test: str, values: dict) -> list[dict]:
    found = []
    for name, site in kept.sites.items():
        if site.kind == "raises":
            continue
        key = site.expected if site.kind != "is" else "is"
        key = str(key)
        if key in values:
            found.append({"site": name, "test": test, "value": encode(values[key])})
    return found


def test_right_values_pass_and_wrong_or_missing_ones_fail():
    _text, kept = stripped()
    test = "tests/test_x.py::test_values"
    right = {"6": 6, "secret": "secret", "is": None, "0.5": 0.5 + 1e-9}
    assert judge(kept, observations(kept, test, right), [test]) == {test: ""}
    wrong = {**right, "6": 5}
    assert "wrong value" in judge(kept, observations(kept, test, wrong), [test])[test]
    missing = {k: v for k, v in right.items() if k != "secret"}
    assert "never ran" in judge(kept, observations(kept, test, missing), [test])[test]
    # an observation made during another test counts for that one only
    moved = observations(kept, "tests/test_x.py::test_raises", right)
    assert "never ran" in judge(kept, moved, [test])[test]


@pytest.mark.parametrize(
    "value",
    [
        {"t": "other", "type": "AlwaysEqual"},
        {"t": "oversized"},
        {"t": "int", "v": "zz"},
        {"t": "list", "v": [{"t": "int", "v": "6"}]},
        {"t": "tuple", "v": []},
        "6",
        {"t": "str", "v": 6},
    ],
)
def test_only_the_exact_built_in_value_equals_the_constant(value):
    kept = Expectations()
    strip_expectations("def test_a():\n    assert f() == 6\n", "t.py", kept)
    record = {"site": "t.py#0", "test": "t.py::test_a", "value": value}
    assert judge(kept, [record], ["t.py::test_a"])["t.py::test_a"]


def test_raises_holds_for_the_named_class_or_a_subclass_only():
    kept = Expectations()
    strip_expectations(
        "def test_a():\n    with pytest.raises(errors.PathError):\n        f()\n", "t.py", kept
    )
    test = "t.py::test_a"

    def verdict(raised):
        return judge(kept, [{"site": "t.py#0", "test": test, "raised": raised}], [test])[test]

    assert verdict(["pkg.KeyPathError", "pkg.PathError", "builtins.Exception"]) == ""
    assert verdict(["builtins.TypeError", "builtins.Exception"])
    assert verdict(None)


def test_decode_gives_built_in_values():
    assert decode({"t": "float", "v": "nan"}) != decode({"t": "float", "v": "nan"})
    assert math.isinf(decode({"t": "float", "v": "inf"}))
    big = {"t": "int", "v": format(10**5000, "x")}
    assert decode(big) == 10**5000
    pairs = {"t": "dict", "v": [[{"t": "str", "v": "a"}, {"t": "tuple", "v": []}]]}
    assert decode(pairs) == {"a": ()}
    assert decode({"t": "set", "v": [{"t": "list", "v": []}]}) != set()


def test_a_test_with_no_constant_is_unjudged():
    _text, kept = stripped()
    assert kept.unjudged_tests(
        ["tests/test_x.py::test_nothing_kept", "tests/test_x.py::test_values[1]"]
    ) == ("tests/test_x.py::test_nothing_kept",)

import pytest

from jpath import PathError, get, has, parse_path

DOC = {"users": [{"name": "ann", "tags": ["a", "b"]}, {"name": "bo", "tags": []}],
       "meta": {"odd key": 1, "count": 2}}


def test_parse_path():
    assert parse_path('users[0].name') == ["users", 0, "name"]
    assert parse_path('meta["odd key"]') == ["meta", "odd key"]
    assert parse_path("a[-1]") == ["a", -1]


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        parse_path("a..b")


def test_get_nested():
    assert get(DOC, "users[1].name") == "bo"
    assert get(DOC, "users[-1].name") == "bo"
    assert get(DOC, 'meta["odd key"]') == 1


def test_missing_key():
    with pytest.raises(PathError):
        get(DOC, "meta.nope")
    assert get(DOC, "meta.nope", default=0) == 0


def test_has():
    assert has(DOC, "users[0].tags[1]")
    assert not has(DOC, "users[1].tags[5]")
    assert not has(DOC, "meta.count.x")

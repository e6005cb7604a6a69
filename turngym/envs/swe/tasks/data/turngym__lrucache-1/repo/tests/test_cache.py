import pytest

from lrucache import LRUCache, memoize


def test_get_missing_returns_default():
    assert LRUCache(2).get("x", 0) == 0


def test_put_overwrites():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("a", 2)
    assert cache.get("a") == 2
    assert len(cache) == 1


def test_hit_and_miss_counts():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.get("a")
    cache.get("b")
    assert (cache.hits, cache.misses) == (1, 1)


def test_capacity_must_be_positive():
    with pytest.raises(ValueError):
        LRUCache(0)


def test_memoize_calls_once_per_argument():
    calls = []

    @memoize(4)
    def square(x):
        calls.append(x)
        return x * x

    assert [square(3), square(3), square(4)] == [9, 9, 16]
    assert calls == [3, 4]

import copy
import pickle

import pytest

from turngym.spaces import Chat, Message, Unicode


def test_unicode_accepts_any_characters_within_length():
    space = Unicode(10)
    assert space.contains("a b,c!")
    assert space.contains("日本語 🙂")
    assert space.contains("")
    assert not space.contains("x" * 11)
    assert not space.contains(5)
    assert not space.contains(b"bytes")


def test_unicode_min_length():
    space = Unicode(5, min_length=2)
    assert not space.contains("a")
    assert space.contains("ab")


def test_unicode_sample_is_seeded_and_in_space():
    a, b = Unicode(100_000, seed=3), Unicode(100_000, seed=3)
    samples = [a.sample() for _ in range(20)]
    assert samples == [b.sample() for _ in range(20)]
    assert all(a.contains(s) and len(s) <= 64 for s in samples)
    assert len(set(samples)) > 10


def test_unicode_equality_pickle_copy():
    space = Unicode(7)
    assert space == Unicode(7) and space != Unicode(8)
    assert pickle.loads(pickle.dumps(space)) == space
    assert copy.deepcopy(space) == space
    assert hash(space) == hash(Unicode(7))


def test_chat_contains():
    chat = Chat(max_messages=3, max_length=10)
    good: list[Message] = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert chat.contains(good)
    assert not chat.contains([{"role": "robot", "content": "hi"}])
    assert not chat.contains([{"role": "user", "content": 3}])
    assert not chat.contains([{"role": "user", "content": "x" * 11}])
    assert not chat.contains(good * 2)
    assert not chat.contains("hello")


def test_chat_sample_in_space_and_bad_args():
    chat = Chat(seed=0)
    for _ in range(10):
        assert chat.contains(chat.sample())
    with pytest.raises(ValueError, match="max_messages"):
        Chat(max_messages=-1)

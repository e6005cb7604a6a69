import pytest

from textkit import initials, truncate, word_count


def test_word_count():
    assert word_count("  one two\tthree\n") == 3
    assert word_count("") == 0


def test_truncate_short_text_unchanged():
    assert truncate("short", 10) == "short"


def test_truncate_long_text():
    assert truncate("the quick brown fox", 12) == "the quick..."


def test_truncate_negative_width():
    with pytest.raises(ValueError):
        truncate("abc", -1)


def test_initials():
    assert initials("ada  lovelace") == "A.L."
    assert initials("grace hopper", sep="") == "GH"

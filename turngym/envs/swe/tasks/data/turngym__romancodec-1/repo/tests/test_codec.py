import pytest

from romancodec import RomanError, from_roman, is_roman, to_roman


@pytest.mark.parametrize("n,s", [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"),
                                 (90, "XC"), (400, "CD"), (1994, "MCMXCIV"), (2024, "MMXXIV")])
def test_to_roman(n, s):
    assert to_roman(n) == s


@pytest.mark.parametrize("s,n", [("I", 1), ("iv", 4), ("XLII", 42), ("MCMXCIV", 1994)])
def test_from_roman(s, n):
    assert from_roman(s) == n


def test_is_roman():
    assert is_roman("XIV") and not is_roman("XIIII") and not is_roman(None)


def test_round_trip_small():
    for n in range(1, 500):
        assert from_roman(to_roman(n)) == n


@pytest.mark.parametrize("bad", [0, -3, 4000, 2.5, True])
def test_to_roman_rejects(bad):
    with pytest.raises(RomanError):
        to_roman(bad)


@pytest.mark.parametrize("bad", ["", "IIII", "VX", "IC", "ABC"])
def test_from_roman_rejects(bad):
    with pytest.raises(RomanError):
        from_roman(bad)

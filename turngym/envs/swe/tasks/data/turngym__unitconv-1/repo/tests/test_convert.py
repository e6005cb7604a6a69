import pytest

from unitconv import UnitError, convert, convert_delta, parse_quantity


def test_length_and_mass():
    assert convert(5, "km", "m") == 5000
    assert convert(1, "mi", "ft") == pytest.approx(5280)
    assert convert(2.2046226218, "lb", "kg") == pytest.approx(1.0)


def test_absolute_temperatures():
    assert convert(100, "degC", "degF") == pytest.approx(212)
    assert convert(32, "fahrenheit", "celsius") == pytest.approx(0)
    assert convert(0, "K", "degC") == pytest.approx(-273.15)


def test_delta_of_plain_units():
    assert convert_delta(3, "km", "m") == 3000


def test_dimension_mismatch():
    with pytest.raises(UnitError, match="cannot convert"):
        convert(1, "kg", "m")


def test_parse_quantity():
    assert parse_quantity(" 12.5 meters ") == (12.5, "m")
    with pytest.raises(UnitError):
        parse_quantity("twelve m")

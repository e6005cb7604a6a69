import pytest

from shoplist import Item, format_item, merge, parse_line


def test_parse_line():
    assert parse_line("2 kg Flour") == Item("flour", 2.0, "kg")
    assert parse_line("0,5 litres milk") == Item("milk", 0.5, "l")
    assert parse_line("3 eggs") == Item("eggs", 3.0, "pcs")
    assert parse_line("bread") == Item("bread", 1.0, "pcs")
    assert parse_line("2 g") == Item("g", 2.0, "pcs")


def test_parse_errors():
    with pytest.raises(ValueError):
        parse_line("   ")
    with pytest.raises(ValueError):
        parse_line("0 eggs")


def test_format_item():
    assert format_item(Item("flour", 2.0, "kg")) == "2 kg flour"
    assert format_item(Item("eggs", 3.0)) == "3 eggs"


def test_merge_same_units():
    mine = "3 eggs\n# for the cake\n1 l milk\n"
    yours = "2 Eggs\nbread\n1 l milk"
    assert merge(mine, yours) == ["5 eggs", "2 l milk", "1 bread"]


def test_merge_keeps_first_appearance_order():
    assert merge("tea\ncoffee", "coffee\nsugar") == ["1 tea", "2 coffee", "1 sugar"]

import pytest

from stockroom import Inventory


def test_add_accumulates():
    inv = Inventory()
    inv.add("A1", "apples", 3)
    inv.add("A1", "apples", 4)
    assert inv.quantity("A1") == 7


def test_remove_takes_units():
    inv = Inventory()
    inv.add("A1", "apples", 3)
    inv.remove("A1", 3)
    assert inv.quantity("A1") == 0


def test_remove_more_than_stock_raises():
    inv = Inventory()
    inv.add("A1", "apples", 2)
    with pytest.raises(ValueError, match="only 2"):
        inv.remove("A1", 5)


def test_unknown_sku_quantity_is_zero():
    assert Inventory().quantity("nope") == 0

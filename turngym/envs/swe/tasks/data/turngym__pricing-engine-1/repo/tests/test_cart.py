import pytest

from pricing import Cart
from pricing.money import format_cents, percent_of


def make_cart():
    cart = Cart()
    cart.add("novel", "books", 1999)
    cart.add("pen", "office", 250, qty=2)
    return cart


def test_money():
    assert percent_of(1999, 10) == 200
    assert format_cents(1234) == "$12.34"
    assert format_cents(-50) == "-$0.50"


def test_add_merges_and_remove():
    cart = make_cart()
    cart.add("pen", "office", 250)
    assert cart.lines["pen"].qty == 3
    cart.remove("pen", 2)
    assert cart.subtotal() == 1999 + 250
    cart.remove("novel")
    assert list(cart.lines) == ["pen"]


def test_percent_code():
    cart = make_cart()
    cart.apply_code(" save10 ")
    assert cart.discount() == 250
    assert cart.total() == 2249


def test_amount_code_needs_minimum():
    cart = make_cart()
    cart.apply_code("FIVER")
    assert cart.total() == 2499
    cart.add("mug", "kitchen", 100)
    assert cart.total() == 2099


def test_unknown_code():
    with pytest.raises(KeyError, match="valid codes"):
        make_cart().apply_code("FREE")


def test_receipt():
    cart = make_cart()
    cart.apply_code("SAVE10")
    assert cart.receipt().splitlines() == ["novel x1 $19.99", "pen x2 $5.00", "discount -$2.50", "total $22.49"]

import dataclasses

import pytest

from ledger import Account, Entry, InsufficientFunds


def test_balance_from_entries():
    account = Account("ann", [Entry(500, "a"), Entry(-200, "b")])
    assert account.balance == 300


def test_deposit_and_withdraw():
    account = Account("ann", [])
    account.deposit(1000)
    account.withdraw(250)
    assert account.balance == 750
    assert [e.memo for e in account.entries] == ["deposit", "withdrawal"]


def test_overdraft_raises():
    account = Account("ann", [Entry(500, "a")])
    with pytest.raises(InsufficientFunds):
        account.withdraw(501)
    assert account.balance == 500


def test_deposit_must_be_positive():
    with pytest.raises(ValueError):
        Account("ann", []).deposit(0)


def test_entries_are_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Entry(1, "x").cents = 2

"""A toy bank: accounts as lists of entries, amounts in cents."""

from ledger.account import Account, Entry, InsufficientFunds
from ledger.bank import Bank

__all__ = ["Account", "Bank", "Entry", "InsufficientFunds"]

"""An account is the list of its entries; the balance is their sum."""

from dataclasses import dataclass


class InsufficientFunds(Exception):
    """A withdrawal larger than the balance."""


@dataclass(frozen=True)
class Entry:
    """One movement of money, in cents (negative for withdrawals)."""

    cents: int
    memo: str


class Account:
    """An owner's entries, oldest first."""

    def __init__(self, owner: str, entries: list[Entry] = []) -> None:
        self.owner = owner
        self.entries = entries

    @property
    def balance(self) -> int:
        """Sum of all entries, in cents."""
        return sum(entry.cents for entry in self.entries)

    def deposit(self, cents: int, memo: str = "deposit") -> None:
        """Add money."""
        if cents <= 0:
            raise ValueError("deposits must be positive")
        self.entries.append(Entry(cents, memo))

    def withdraw(self, cents: int, memo: str = "withdrawal") -> None:
        """Take money out; never below zero."""
        if cents <= 0:
            raise ValueError("withdrawals must be positive")
        if cents > self.balance:
            raise InsufficientFunds(f"{self.owner} has {self.balance} cents")
        self.entries.append(Entry(-cents, memo))

"""Accounts by owner, transfers and statements."""

from ledger.account import Account


class Bank:
    """Open accounts and move money between them."""

    def __init__(self) -> None:
        self.accounts: dict[str, Account] = {}

    def open(self, owner: str, opening: int = 0) -> Account:
        """Open an account for ``owner`` with an optional opening deposit."""
        if owner in self.accounts:
            raise ValueError(f"{owner} already has an account")
        account = Account(owner)
        if opening:
            account.deposit(opening, "opening balance")
        self.accounts[owner] = account
        return account

    def transfer(self, source: str, target: str, cents: int) -> None:
        """Move ``cents`` from ``source`` to ``target``."""
        self.accounts[source].withdraw(cents, f"to {target}")
        self.accounts[target].deposit(cents, f"from {source}")

    def statement(self, owner: str) -> list[str]:
        """One line per entry and the balance, amounts in units."""
        account = self.accounts[owner]
        lines = [f"{e.memo}: {e.cents / 100:+.2f}" for e in account.entries]
        return [*lines, f"balance: {account.balance / 100:.2f}"]

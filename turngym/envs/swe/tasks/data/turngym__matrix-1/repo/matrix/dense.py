"""A dense row-major matrix."""

from collections.abc import Iterable


class Matrix:
    """Rows of numbers, all of the same length."""

    def __init__(self, rows: Iterable[Iterable[float]]) -> None:
        self.rows = [list(row) for row in rows]
        if not self.rows or any(len(row) != len(self.rows[0]) for row in self.rows):
            raise ValueError("a matrix needs at least one row, all of the same length")

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns)."""
        return len(self.rows), len(self.rows[0])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Matrix) and self.rows == other.rows

    def __repr__(self) -> str:
        return f"Matrix({self.rows!r})"

    def __add__(self, other: "Matrix") -> "Matrix":
        if self.shape != other.shape:
            raise ValueError(f"cannot add {self.shape} and {other.shape}")
        return Matrix([[a + b for a, b in zip(r, s)] for r, s in zip(self.rows, other.rows)])

    def __matmul__(self, other: "Matrix") -> "Matrix":
        n, m = self.shape
        p, q = other.shape
        if n != p:
            raise ValueError(f"cannot multiply {n}x{m} by {p}x{q}")
        return Matrix(
            [
                [sum(self.rows[i][k] * other.rows[k][j] for k in range(m)) for j in range(q)]
                for i in range(n)
            ]
        )

    def transpose(self) -> "Matrix":
        """Rows become columns."""
        return Matrix(zip(*self.rows))

"""Operations built on Matrix."""

from matrix.dense import Matrix


def identity(n: int) -> Matrix:
    """The n x n identity matrix."""
    return Matrix([[1 if i == j else 0 for j in range(n)] for i in range(n)])


def power(m: Matrix, k: int) -> Matrix:
    """``m`` multiplied by itself ``k`` times (``k`` >= 0)."""
    rows, cols = m.shape
    if rows != cols:
        raise ValueError("only square matrices have powers")
    result = identity(rows)
    for _ in range(k):
        result = result @ m
    return result

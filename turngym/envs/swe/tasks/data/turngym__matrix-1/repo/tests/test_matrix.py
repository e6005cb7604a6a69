import pytest

from matrix import Matrix, identity, power


def test_ragged_rows_raise():
    with pytest.raises(ValueError):
        Matrix([[1, 2], [3]])


def test_add_and_transpose():
    a = Matrix([[1, 2, 3], [4, 5, 6]])
    assert a + a == Matrix([[2, 4, 6], [8, 10, 12]])
    assert a.transpose() == Matrix([[1, 4], [2, 5], [3, 6]])


def test_square_product():
    a = Matrix([[1, 2], [3, 4]])
    assert a @ identity(2) == a
    assert a @ a == Matrix([[7, 10], [15, 22]])


def test_power():
    fib = Matrix([[1, 1], [1, 0]])
    assert power(fib, 10) == Matrix([[89, 55], [55, 34]])
    assert power(fib, 0) == identity(2)

"""Small dense matrices of numbers."""

from matrix.dense import Matrix
from matrix.ops import identity, power

__all__ = ["Matrix", "identity", "power"]

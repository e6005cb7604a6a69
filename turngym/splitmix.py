"""``SplitMix64``: a tiny seeded random number generator for per-step hot paths.

Seeding a NumPy ``Generator`` costs ~20 us and each scalar draw ~2 us, more than a
whole Kuhn poker hand; SplitMix64 (Steele, Lea and Flood 2014, the seeder of Java's
``SplittableRandom`` and of xoshiro) seeds for free and draws in well under 1 us in
pure Python. Games keep NumPy's ``np_random`` for everything else.
"""

from __future__ import annotations

import os
from collections.abc import MutableSequence
from typing import TypeVar

__all__ = ["SplitMix64"]

T = TypeVar("T")
_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


class SplitMix64:
    """A 64-bit SplitMix generator with its own state (never the global ``random``).

    Example:
        >>> a, b = SplitMix64(7), SplitMix64(7)
        >>> [a.below(100) for _ in range(3)] == [b.below(100) for _ in range(3)]
        True
        >>> 0.0 <= SplitMix64(1).random() < 1.0
        True

    """

    __slots__ = ("state",)

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        # The seed goes through the output mix once, so seeds 0, 1, 2 start far apart.
        self.state = _mix(seed & _MASK)

    def next64(self) -> int:
        """The next 64-bit output."""
        self.state = z = (self.state + _GAMMA) & _MASK
        return _mix(z)

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (bias below ``n / 2**64``)."""
        return self.next64() % n

    def random(self) -> float:
        """A uniform float in [0, 1) with 53 random bits."""
        # next64 and _mix written out: games draw chance outcomes with it every step.
        self.state = z = (self.state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return ((z ^ (z >> 31)) >> 11) * (1.0 / (1 << 53))

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle ``items`` in place (Fisher-Yates)."""
        for k in range(len(items) - 1, 0, -1):
            j = self.next64() % (k + 1)
            items[k], items[j] = items[j], items[k]


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)

"""Seeded samples (of registered ids, of seeds) for checks too big to run whole every time.

The seed is chosen once per test run (``tests/conftest.py`` sets ``TURNGYM_SAMPLE_SEED``
before xdist starts its workers, so every worker collects the same ids) and printed at
the end of the run; set the variable yourself to repeat a run's sample.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence

SEED_VARIABLE = "TURNGYM_SAMPLE_SEED"


def sample_seed() -> int:
    """This run's sampling seed (0 when no conftest set one, e.g. a bare import)."""
    return int(os.environ.get(SEED_VARIABLE, "0"))


def sample_ids(ids: Sequence[str], k: int, *, always: Sequence[str] = ()) -> list[str]:
    """``always`` plus ``k`` more of ``ids`` drawn with this run's seed, in ``ids`` order."""
    rest = [i for i in ids if i not in always]
    chosen = set(random.Random(f"{sample_seed()}:{len(ids)}").sample(rest, min(k, len(rest))))
    return [i for i in ids if i in chosen or i in always]


def sample_block(first: int, stop: int, size: int, key: str) -> int:
    """The first seed of a run of ``size`` consecutive seeds in ``[first, stop)``, drawn
    with this run's seed (``key`` tells checks apart), so that over many runs a sweep
    measured whole once keeps being checked piece by piece."""
    return random.Random(f"{sample_seed()}:{key}").randrange(first, stop - size + 1)


def sample_values(values: Sequence[int], k: int, key: str) -> list[int]:
    """``k`` of ``values`` drawn with this run's seed, in ``values`` order."""
    chosen = set(random.Random(f"{sample_seed()}:{key}").sample(list(values), k))
    return [v for v in values if v in chosen]

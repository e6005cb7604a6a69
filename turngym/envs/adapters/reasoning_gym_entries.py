"""One Reasoning Gym entry from a seed: the same question in every process (issue 42).

Reasoning Gym's datasets draw from a ``random.Random(seed)`` of their own, but not all
of them only from it:

- some draw from the global ``random`` module too (``list_functions``' input lists,
  some of ``codeio``'s code samples), and some reseed ``np.random`` (``pool_matrix``).
  ``make_dataset`` and ``make_entry`` seed both global generators from the entry's seed
  while Reasoning Gym works, then put back the states they had (``make_entry`` skips
  that for the datasets that provably touch neither, ``GLOBAL_FREE``), so the caller's own
  draws go on as if nothing had happened. A lock keeps envs in threads
  (``ThreadedVectorEnv``) from interleaving there; a thread of the caller's that draws
  from the global generators meanwhile still sees them seeded.
- some pick from sets of strings (``rng.choice(list(letters))``), whose order follows
  the process's hash seed (``PYTHONHASHSEED``), which nothing can change once Python
  runs (and sympy's ``integrate`` may answer in another form). Those datasets' entries
  (``HASH_ORDERED``) are made in a process forked from the scorer's zygote
  (``entry_elsewhere``, through ``bounded_score.run_in_zygote``), which runs under
  ``PYTHONHASHSEED=0``; a process that runs under that seed itself makes them here.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from turngym.envs.adapters.reasoning_gym_tasks import GLOBAL_FREE, HASH_ORDERED

__all__ = [
    "entry_elsewhere",
    "entry_here",
    "make_dataset",
    "make_entry",
    "seeded_global_generators",
]

_LOCK = threading.RLock()


def _seed_both(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002


@contextmanager
def seeded_global_generators(seed: int) -> Iterator[None]:
    """Seed ``random`` and ``np.random`` from ``seed`` inside, restore their states after.

    >>> import random
    >>> random.seed(1); before = random.random(); random.seed(1)
    >>> with seeded_global_generators(7):
    ...     inside = random.random()
    >>> random.random() == before
    True
    """
    # NPY002: numpy's legacy global generator is the one datasets draw from
    with _LOCK:
        python_state, numpy_state = random.getstate(), np.random.get_state()  # noqa: NPY002
        _seed_both(seed)
        try:
            yield
        finally:
            random.setstate(python_state)
            np.random.set_state(numpy_state)  # noqa: NPY002


def make_dataset(task: str, seed: int, config: Mapping[str, Any]) -> Any:
    """``reasoning_gym.create_dataset(task, seed=seed, size=1, **config)``, made replayably."""
    import reasoning_gym

    with seeded_global_generators(seed):
        return reasoning_gym.create_dataset(task, seed=seed, size=1, **config)


def make_entry(task: str, seed: int, config: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The dataset of ``task`` made with ``seed`` and its one entry, the same in any process.

    The entry is made in a process under ``PYTHONHASHSEED=0`` when the dataset is one of
    ``HASH_ORDERED`` and this process runs under another hash seed.
    """
    if task in HASH_ORDERED and sys.flags.hash_randomization:
        return make_dataset(task, seed, config), entry_elsewhere(task, seed, config)
    return entry_here(task, seed, config)


def entry_here(task: str, seed: int, config: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``make_entry`` in this process, whatever its hash seed (the zygote's forks call it)."""
    import reasoning_gym

    if task in GLOBAL_FREE:  # nothing global to seed or to put back
        dataset = reasoning_gym.create_dataset(task, seed=seed, size=1, **config)
        return dataset, dataset[0]
    # What make_dataset and then seeded_global_generators would do, with the caller's
    # states saved and put back once, not twice: numpy's get_state and set_state take
    # far longer than most datasets take to make an entry.
    with seeded_global_generators(seed):
        dataset = reasoning_gym.create_dataset(task, seed=seed, size=1, **config)
        _seed_both(seed)  # the entry sees freshly seeded generators, as it did alone
        return dataset, dataset[0]


def _entry_of(task: str, seed: int, config: dict[str, Any]) -> dict[str, Any]:
    return dict(entry_here(task, seed, config)[1])


def entry_elsewhere(task: str, seed: int, config: Mapping[str, Any]) -> dict[str, Any]:
    """The entry of ``task`` for ``seed``, made where the hash seed is 0.

    The process is forked from the scorer's zygote (``bounded_score.run_in_zygote``).

    Raises:
        RuntimeError: the process failed to make it (the reason), or did not answer.

    """
    from turngym.envs.adapters.bounded_score import run_in_zygote

    try:
        return dict(run_in_zygote(_entry_of, task, seed, dict(config)))
    except RuntimeError as error:
        raise RuntimeError(
            f"Reasoning Gym could not make the {task} entry of seed {seed}: {error}"
        ) from None

"""Seeds that replay everywhere (issue 42): a Reasoning Gym entry depends on its seed only.

Not on the global ``random`` / ``np.random`` state (``list_functions`` draws from the
global ``random`` module), and making one leaves that state as it was (``pool_matrix``
reseeds ``np.random``).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("reasoning_gym")

from turngym.envs.adapters.reasoning_gym import ReasoningGymEnv


# NPY002: the global generators are what these tests are about
def _seed_the_globals(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002


def _draw_from_the_globals() -> tuple[float, float]:
    return random.random(), np.random.random()  # noqa: NPY002


def test_a_seed_asks_one_question_whatever_the_global_random_state() -> None:
    env = ReasoningGymEnv("list_functions")
    questions = set()
    for k in range(5):
        _seed_the_globals(k)
        questions.add(env.reset(seed=6)[0])
    assert len(questions) == 1


@pytest.mark.parametrize("task", ["list_functions", "pool_matrix", "basic_arithmetic"])
def test_making_an_entry_leaves_the_global_random_state_alone(task: str) -> None:
    _seed_the_globals(3)
    expected = _draw_from_the_globals()
    _seed_the_globals(3)
    ReasoningGymEnv(task).reset(seed=1)
    assert _draw_from_the_globals() == expected

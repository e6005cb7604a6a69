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

from turngym.envs.adapters.reasoning_gym import ReasoningGymEnv  # noqa: E402


def test_a_seed_asks_one_question_whatever_the_global_random_state() -> None:
    env = ReasoningGymEnv("list_functions")
    questions = set()
    for k in range(5):
        random.seed(k)
        np.random.seed(k)
        questions.add(env.reset(seed=6)[0])
    assert len(questions) == 1


@pytest.mark.parametrize("task", ["list_functions", "pool_matrix", "basic_arithmetic"])
def test_making_an_entry_leaves_the_global_random_state_alone(task: str) -> None:
    random.seed(3)
    np.random.seed(3)
    expected = (random.random(), np.random.random())
    random.seed(3)
    np.random.seed(3)
    ReasoningGymEnv(task).reset(seed=1)
    assert (random.random(), np.random.random()) == expected

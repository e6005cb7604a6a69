"""Seeds that replay everywhere (issue 42): a Reasoning Gym entry depends on its seed only.

Not on the global ``random`` / ``np.random`` state (``list_functions`` draws from the
global ``random`` module), and making one leaves that state as it was (``pool_matrix``
reseeds ``np.random``).
"""

from __future__ import annotations

import ast
import inspect
import random
import sys

import numpy as np
import pytest

pytest.importorskip("reasoning_gym")

from turngym.envs.adapters.reasoning_gym import ReasoningGymEnv
from turngym.envs.adapters.reasoning_gym_entries import (
    make_dataset,
    make_entry,
    seeded_global_generators,
)
from turngym.envs.adapters.reasoning_gym_tasks import GLOBAL_FREE, HASH_ORDERED


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


def test_hash_ordered_entries_made_here_under_hash_seed_0_equal_the_zygotes() -> None:
    """A process under PYTHONHASHSEED=0 makes them itself; any other asks the zygote."""
    import json
    import os
    import subprocess
    import sys

    from turngym.envs.adapters.reasoning_gym_entries import make_entry
    from turngym.envs.adapters.reasoning_gym_tasks import HASH_ORDERED

    tasks = sorted(HASH_ORDERED)
    code = (
        "import json, sys\n"
        "from turngym.envs.adapters.reasoning_gym_entries import make_entry\n"
        "assert not sys.flags.hash_randomization\n"
        f"print(json.dumps([repr(make_entry(t, 5, {{}})[1]) for t in {tasks!r}]))\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    there = json.loads(done.stdout.strip().splitlines()[-1])
    # here (unless pytest itself runs under hash seed 0) the zygote's fork makes them
    assert [repr(make_entry(t, 5, {})[1]) for t in tasks] == there


def test_an_entry_the_zygote_cannot_make_says_why() -> None:
    from turngym.envs.adapters.reasoning_gym_entries import entry_elsewhere

    with pytest.raises(RuntimeError, match="could not make the no_such_task entry of seed 0"):
        entry_elsewhere("no_such_task", 0, {})


@pytest.mark.parametrize("task", ["list_functions", "pool_matrix", "basic_arithmetic"])
def test_make_entry_equals_making_the_dataset_then_its_entry_each_seeded(task: str) -> None:
    """``make_entry`` saves the caller's states once; its entries are those of two steps."""
    for seed in range(4):
        dataset = make_dataset(task, seed, {})
        with seeded_global_generators(seed):
            expected = dataset[0]
        assert make_entry(task, seed, {})[1] == expected


_STDLIB_WITHOUT_DRAWS = frozenset(
    {"abc", "collections", "collections.abc", "copy", "dataclasses", "decimal", "enum"}
    | {"fractions", "functools", "itertools", "math", "operator", "re", "string", "typing"}
)
_REACH_ANYTHING = frozenset({"__import__", "importlib", "exec", "compile", "globals", "vars"})


def _draws_only_from_its_own_random(task: str) -> str | None:
    """None when ``task``'s module can reach no global generator, else what could reach one.

    Its classes (but ``ProceduralDataset``) live in one module, which imports only the
    standard library's modules without a generator, ``Random`` from ``random`` and
    Reasoning Gym's ``factory`` and ``coaching``, and names nothing that imports at run
    time. (Its ``eval`` calls see the module's globals, which hold no generator.)
    """
    from reasoning_gym.dataset import ProceduralDataset
    from reasoning_gym.factory import DATASETS

    cls = DATASETS[task][0]
    modules = {c.__module__ for c in cls.__mro__ if c not in (ProceduralDataset, object)}
    modules -= {"typing", "abc", "collections.abc"}  # ProceduralDataset's own bases
    if len(modules) != 1:
        return f"its classes come from {sorted(modules)}"
    tree = ast.parse(inspect.getsource(sys.modules[modules.pop()]))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
            if any(name not in _STDLIB_WITHOUT_DRAWS for name in names):
                return f"import {', '.join(names)}"
        elif isinstance(node, ast.ImportFrom):
            source = "." * node.level + (node.module or "")
            if node.level:
                if node.level != 2 or (node.module or "").split(".")[0] not in (
                    "factory",
                    "coaching",
                ):
                    return f"from {source} import"
            elif node.module == "random":
                if [alias.name for alias in node.names] != ["Random"]:
                    return "from random import something else than Random"
            elif node.module not in _STDLIB_WITHOUT_DRAWS:
                return f"from {source} import"
        elif isinstance(node, ast.Name) and node.id in _REACH_ANYTHING:
            return node.id
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and "import" in node.value
        ):
            return "a string that says import"
    return None


@pytest.mark.parametrize("task", sorted(GLOBAL_FREE))
def test_a_global_free_dataset_draws_from_its_own_random_only(task: str) -> None:
    assert _draws_only_from_its_own_random(task) is None
    assert task not in HASH_ORDERED


def test_the_source_check_catches_datasets_that_draw_from_the_globals() -> None:
    assert _draws_only_from_its_own_random("list_functions") is not None  # draws from random
    assert _draws_only_from_its_own_random("pool_matrix") is not None  # reseeds np.random


@pytest.mark.parametrize("task", ["basic_arithmetic", "spiral_matrix", "gcd", "n_queens"])
def test_a_global_free_entry_ignores_and_keeps_the_global_states(task: str) -> None:
    for seed in range(3):
        entries = []
        for k in range(2):
            _seed_the_globals(k)
            expected = _draw_from_the_globals()
            _seed_the_globals(k)
            entries.append(make_entry(task, seed, {})[1])
            assert _draw_from_the_globals() == expected
        assert entries[0] == entries[1]

"""Reasoning Gym's datasets as multi-turn question envs (``turngym[reasoning]``).

The tasks are static data (``turngym/envs/adapters/reasoning_gym_tasks.py``): building
these rows imports no Reasoning Gym.
"""

from __future__ import annotations

from types import MappingProxyType

from turngym.envs.adapters.reasoning_gym_tasks import NO_ORACLE as RG_NO_ORACLE
from turngym.envs.adapters.reasoning_gym_tasks import TASKS as RG_TASKS
from turngym.registry.base import EnvEntry, env_row

REASONING_GYM: tuple[EnvEntry, ...] = tuple(
    env_row(
        f"reasoning_gym.{task}-v0",
        "turngym.envs.adapters.reasoning_gym:ReasoningGymEnv",
        "text",
        20,
        finite_actions=False,
        stochastic=False,
        expert=(
            None
            if task in RG_NO_ORACLE
            else "turngym.agents.experts.reasoning_gym:ReasoningGymOracle"
        ),
        kwargs=MappingProxyType({"task": task}),
        description=f"Reasoning Gym {task}: a question per seed, its own scorer, 3 attempts",
        extra="reasoning",
        suite="reasoning_gym",
        answer_action="{}",
    )
    for task in RG_TASKS
)

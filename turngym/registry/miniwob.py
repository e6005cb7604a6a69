"""The MiniWoB++ rows: the miniwob package's HTML tasks on turngym's browser layer."""

from __future__ import annotations

from types import MappingProxyType

from turngym.envs.web.miniwob_tasks import (
    MINIWOB_ORACLES,
    MINIWOB_STOCHASTIC,
    MINIWOB_TASKS,
    MINIWOB_TURNS,
)
from turngym.registry.base import EnvEntry, env_row

MINIWOB: tuple[EnvEntry, ...] = tuple(
    env_row(
        f"miniwob.{task}-v0",
        "turngym.envs.web.miniwob:MiniWoBEnv",
        "web",
        MINIWOB_TURNS.get(task, 20),
        finite_actions=False,
        stochastic=task in MINIWOB_STOCHASTIC,
        expert=(
            "turngym.agents.experts.miniwob:MiniWoBOracle" if task in MINIWOB_ORACLES else None
        ),
        kwargs=MappingProxyType({"task": task, "max_turns": MINIWOB_TURNS.get(task, 20)}),
        description=f"MiniWoB++ {task}: the task's page and reward, turngym's actions",
    )
    for task in MINIWOB_TASKS
)

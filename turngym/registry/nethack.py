"""NetHack (NLE) and MiniHack, rendered as text (``turngym[nethack]``).

MiniHack's tasks are static data (``turngym/envs/adapters/nethack_tasks.py``): building
these rows imports no NLE.
"""

from __future__ import annotations

from types import MappingProxyType

from turngym.envs.adapters.nethack_tasks import MINIHACK_TASKS, minihack_task
from turngym.registry.base import EnvEntry, env_row

NETHACK: tuple[EnvEntry, ...] = (
    env_row(
        "nethack-v0",
        "turngym.envs.adapters.nethack:NetHackEnv",
        "text",
        10_000,  # NLE's own limit (5,000 game steps) ends it first; this counts invalid turns
        finite_actions=True,
        stochastic=True,
        description="NetHack 3.6 (NLE, NetHackScore as the Challenge plays it) as text",
        extra="nethack",
        suite="nethack",
    ),
    *(
        env_row(
            f"minihack.{minihack_task(task)}-v0",
            "turngym.envs.adapters.nethack:MiniHackEnv",
            "text",
            10_000,  # MiniHack's own limit per task (50 to 5,000 steps) ends it first
            finite_actions=True,
            stochastic=True,
            kwargs=MappingProxyType({"task": minihack_task(task)}),
            description=f"MiniHack's {task} as text: message, map, status, inventory",
            extra="nethack",
            suite="nethack",
        )
        for task in MINIHACK_TASKS
    ),
)

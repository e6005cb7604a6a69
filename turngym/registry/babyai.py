"""minigrid's BabyAI levels, rendered as text (``turngym[babyai]``).

The levels are static data (``turngym/envs/adapters/babyai_levels.py``): building these
rows imports no minigrid.
"""

from __future__ import annotations

from types import MappingProxyType

from turngym.envs.adapters.babyai_levels import LEVELS as BABYAI_LEVELS
from turngym.registry.base import EnvEntry, env_row

# the expert solves >= 95 of seeds 0-99 on every registered level (babyai_bot.py)
_BABYAI_BOT = "turngym.agents.experts.babyai_bot:BabyAIBotExpert"
BABYAI: tuple[EnvEntry, ...] = tuple(
    env_row(
        f"babyai.{level}-v0",
        "turngym.envs.adapters.babyai:BabyAIEnv",
        "text",
        2 * native_steps,
        finite_actions=True,
        stochastic=False,
        expert=_BABYAI_BOT,
        kwargs=MappingProxyType({"level": level}),
        description=f"minigrid's BabyAI-{level}-v{version} as text (BALROG style)",
        extra="babyai",
        suite="babyai",
    )
    for level, version, native_steps in BABYAI_LEVELS
)

"""Crafter, rendered as text (``turngym[crafter]``)."""

from __future__ import annotations

from turngym.registry.base import EnvEntry, env_row

CRAFTER: tuple[EnvEntry, ...] = (
    env_row(
        "crafter-v0",
        "turngym.envs.adapters.crafter:CrafterEnv",
        "text",
        10_000,
        finite_actions=True,
        stochastic=True,
        description="Crafter as text (BALROG style): survive, craft, 22 achievements",
        extra="crafter",
        suite="crafter",
    ),
)

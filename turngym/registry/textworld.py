"""TextWorld games generated from the seed (``turngym[textworld]``)."""

from __future__ import annotations

from types import MappingProxyType

from turngym.registry.base import EnvEntry, env_row

_KINDS = {
    "treasure_hunter": "find the named object in a few rooms (level 1-30)",
    "coin_collector": "walk a chain of rooms to the coin (level 1-300)",
    "cooking": "read the recipe, gather, cut and cook, eat the meal (FTWP skills)",
}
TEXTWORLD: tuple[EnvEntry, ...] = tuple(
    env_row(
        f"textworld.{kind}-v0",
        "turngym.envs.adapters.textworld_env:TextWorldEnv",
        "text",
        100,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.textworld:TextWorldWalkthrough",
        kwargs=MappingProxyType({"kind": kind}),
        description=f"TextWorld {kind}, a game generated per seed: {what}",
        extra="textworld",
        suite="textworld",
    )
    for kind, what in _KINDS.items()
)

"""The classic rows: Gymnasium's toy-text envs behind ``TextAdapter``."""

from __future__ import annotations

from turngym.registry.base import EnvEntry, env_row

CLASSIC: tuple[EnvEntry, ...] = (
    env_row(
        "Taxi-v0",
        "turngym.envs.classic:TaxiTextEnv",
        "classic",
        200,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.classic:TaxiExpert",
        description="Gymnasium Taxi in text: pick up the passenger, drop them at the stand",
    ),
    env_row(
        "CliffWalking-v0",
        "turngym.envs.classic:CliffWalkingTextEnv",
        "classic",
        100,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.classic:CliffWalkingExpert",
        description="Gymnasium CliffWalking in text: reach the goal without falling off",
    ),
    env_row(
        "Blackjack-v0",
        "turngym.envs.classic:BlackjackTextEnv",
        "classic",
        30,
        finite_actions=True,
        stochastic=True,
        expert="turngym.agents.experts.classic:BlackjackExpert",
        description="Gymnasium Blackjack in text: one hand against the dealer (hit/stick)",
    ),
)

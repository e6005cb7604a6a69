"""The SWE rows: small repositories in a bubblewrap sandbox, SWE-bench format and grading."""

from __future__ import annotations

from turngym.registry.base import EnvEntry, env_row

SWE: tuple[EnvEntry, ...] = (
    env_row(
        "SWE-v0",
        "turngym.envs.swe.env:SWEEnv",
        "swe",
        40,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.swe:SWEOracle",
        answer_action="submit()",
        description="fix a reported bug in a small Python repo with bash/edit/test tools; "
        "graded by hidden tests (SWE-bench style); task=... picks one",
    ),
    env_row(
        "SWE-Lite-v0",
        "turngym.envs.swe.env:SWELiteEnv",
        "swe",
        40,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.swe:SWEOracle",
        answer_action="submit()",
        description="SWE-v0 on its five easiest bundled tasks",
    ),
)

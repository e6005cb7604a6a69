"""The web sites' rows: local sites in Chromium via Playwright, served on 127.0.0.1."""

from __future__ import annotations

from turngym.registry.base import EnvEntry, env_row

SITES: tuple[EnvEntry, ...] = (
    env_row(
        "WebShop-v0",
        "turngym.envs.web.shop:WebShopEnv",
        "web",
        30,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.web:SiteOracle",
        description="WebShop: search a local store and buy what the instruction asks for; "
        "difficulty='hard' (default: near-miss distractors, paraphrased instructions) or "
        "'easy'; WebShop's attribute/option/price reward",
    ),
    env_row(
        "WebForum-v0",
        "turngym.envs.web.forum:WebForumEnv",
        "web",
        30,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.web:SiteOracle",
        answer_action="answer({!r})",
        description="WebArena-like forum: post, reply, vote, edit your profile or find a fact; "
        "10 templates checked against the database or the answer",
    ),
    env_row(
        "WebAdmin-v0",
        "turngym.envs.web.forum:WebAdminEnv",
        "web",
        30,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.web:SiteOracle",
        answer_action="answer({!r})",
        description="WebArena-like shop admin: change an order's address or status, update a "
        "product, or look up a fact; 10 templates",
    ),
)

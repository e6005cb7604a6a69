"""``WebShop-v0``: buy what an instruction asks for in a local WebShop-like store.

The site (``sites/shop``) serves a generated catalog with search, product pages with
option drop-downs, a cart and checkout, from SQLite on 127.0.0.1. Each episode draws one
of 600 WebShop-style instructions; it ends when an order is placed (or on
``answer(...)``) and pays WebShop's reward: the share of the goal's attributes, options
and price limit that the bought product meets, scaled down for a wrong type.

``difficulty="hard"`` (the default) draws from a 3,440-product catalog where every
target has four near-miss distractors of its type (one goal attribute, one option value
or the price limit off), titles carry no features (descriptions state them), the price
limit binds, and instructions are paraphrased ("with a fully watertight build ... in
jet black ... at most $60.00"). ``difficulty="easy"`` is the shop before difficulties:
1,100 products and instructions that name the goal verbatim ("waterproof running shoes
with color: black, ... price lower than 60.00 dollars"), seed for seed as before. The
rule "search the instruction, pick the options it names, buy the first result" succeeds
on 0.5% of hard tasks (mean reward 0.32) and 55% of easy ones (0.84); the oracle on all
(600 seeds each, ``benchmarks/webshop_difficulty.py``).
"""

from __future__ import annotations

from typing import Any

from turngym.envs.web.env import SiteEnv
from turngym.envs.web.sites.shop import ShopSite
from turngym.envs.web.sites.shop.site import DIFFICULTIES
from turngym.envs.web.tasks import Site

__all__ = ["DIFFICULTIES", "WebShopEnv"]


class WebShopEnv(SiteEnv):
    """Shop for the instructed product in Chromium; reward in [0, 1], success at 1.

    Args:
        difficulty: ``"hard"`` (default) or ``"easy"`` (see the module docstring).
        **kwargs: ``SiteEnv``'s (``template``, ``max_turns``, ``screenshot``...).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/WebShop-v0", difficulty="easy")  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)  # doctest: +SKIP
        >>> obs.splitlines()[0][:22]  # doctest: +SKIP
        'Task: i am looking for'

    """

    site: Site = ShopSite()  # the default (hard) shop, for readers of the class

    def __init__(self, *, difficulty: str = "hard", **kwargs: Any) -> None:
        if difficulty not in DIFFICULTIES:
            raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")
        self.difficulty = difficulty
        # The difficulty picks the catalog per instance; SiteEnv's __init__ reads it.
        self.site = ShopSite(difficulty)
        super().__init__(**kwargs)

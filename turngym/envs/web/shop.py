"""``WebShop-v0``: buy what an instruction asks for in a local WebShop-like store.

The site (``sites/shop``) serves 1,100 generated products over 22 types with search,
product pages with option drop-downs, a cart and checkout, from SQLite on 127.0.0.1.
Each episode draws one of 600 WebShop-style instructions ("i am looking for ... with
color: white, and price lower than 30.00 dollars"); it ends when an order is placed
(or on ``answer(...)``) and pays WebShop's reward: the share of the goal's attributes,
options and price limit that the bought product meets, scaled down for a wrong type.
"""

from __future__ import annotations

from typing import ClassVar

from turngym.envs.web.env import SiteEnv
from turngym.envs.web.sites.shop import ShopSite
from turngym.envs.web.tasks import Site

__all__ = ["WebShopEnv"]


class WebShopEnv(SiteEnv):
    """Shop for the instructed product in Chromium; reward in [0, 1], success at 1.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/WebShop-v0")  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)  # doctest: +SKIP
        >>> obs.splitlines()[0][:22]  # doctest: +SKIP
        'Task: i am looking for'

    """

    site: ClassVar[Site] = ShopSite()

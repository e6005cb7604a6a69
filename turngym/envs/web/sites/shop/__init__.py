"""The WebShop-like shop site (Yao et al. 2022, rebuilt): a seeded catalog, search, buying.

``ShopSite`` is the ``Site`` the shop env wraps; ``catalog`` generates the products and
instructions, ``search`` ranks products with BM25, ``app`` serves the pages and ``site``
draws tasks, writes their oracle plans and scores orders.
"""

from turngym.envs.web.sites.shop.site import ShopSite, reward

__all__ = ["ShopSite", "reward"]

"""``WebForum-v0`` and ``WebAdmin-v0``: WebArena-like tasks on local sites, no Docker.

``WebForum-v0`` is a Reddit-like forum (10 forums, 300 posts, 1,500 comments, 80 users;
the agent is logged in as ``jordan_lee``); ``WebAdmin-v0`` is a shop back-office
(600 orders, 200 customers, 150 products). Each has ten task templates, half that change
the site (post, reply, edit a profile, change an order's address or status, update a
product) and half that ask for a fact. The episode ends with ``answer(...)``; a change is
checked against the database, where nothing but the asked-for rows may have changed (in
any table: an upvote on the side spoils a new post), a fact against the answer.
"""

from __future__ import annotations

from turngym.envs.web.env import SiteEnv
from turngym.envs.web.sites.admin import AdminSite
from turngym.envs.web.sites.forum import ForumSite
from turngym.envs.web.tasks import Site

__all__ = ["WebAdminEnv", "WebForumEnv"]


class WebForumEnv(SiteEnv):
    """A task on the local forum; reward 1 when the database (or the answer) is right.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/WebForum-v0", template="upvote_post")  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)  # doctest: +SKIP

    """

    site: Site = ForumSite()


class WebAdminEnv(SiteEnv):
    """A task in the local shop back-office; reward 1 when the database or answer is right.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/WebAdmin-v0", template="cancel_order")  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)  # doctest: +SKIP

    """

    site: Site = AdminSite()

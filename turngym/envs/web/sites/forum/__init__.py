"""The forum site: a Reddit-like app (``app``), its database (``data``) and tasks (``site``)."""

from turngym.envs.web.sites.forum.site import ForumSite

__all__ = ["ForumSite"]

"""The admin site: a shop back-office (``app``), its database (``data``), its tasks (``site``)."""

from turngym.envs.web.sites.admin.site import AdminSite

__all__ = ["AdminSite"]

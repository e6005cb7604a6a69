"""Deprecated: moved to ``turngym.host.sandbox.local``; a name read here warns (one release)."""

from turngym.aliases import moved_to

__getattr__ = moved_to(__name__, "turngym.host.sandbox.local")

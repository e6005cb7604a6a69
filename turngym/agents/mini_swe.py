"""Deprecated: the bash-only SWE agent moved to ``turngym.sdk.agents.mini_swe``.

Its names still import from here for one release, each with a ``DeprecationWarning``.
"""

from turngym.aliases import moved_to

__getattr__ = moved_to(__name__, "turngym.sdk.agents.mini_swe")

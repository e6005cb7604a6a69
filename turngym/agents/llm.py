"""Deprecated: the LLM agents moved to ``turngym.sdk.agents.llm`` (the sdk layer).

Its names still import from here for one release, each with a ``DeprecationWarning``.
"""

from turngym.aliases import moved_to

__getattr__ = moved_to(__name__, "turngym.sdk.agents.llm")

"""Wrappers, one concern per file (chat history, summarization, memory, ...)."""

from turngym.wrappers.discrete_actions import DiscreteActions

__all__ = ["DiscreteActions"]

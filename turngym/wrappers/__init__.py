"""Wrappers, one concern per file (chat history, summarization, memory, ...)."""

from turngym.wrappers.internal_state import InternalState
from turngym.wrappers.memory import MemoryStore, MemoryTools

__all__ = ["InternalState", "MemoryStore", "MemoryTools"]

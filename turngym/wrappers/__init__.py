"""Wrappers, one concern per file (chat history, summarization, memory, ...)."""

from turngym.wrappers.memory import MemoryStore, MemoryTools

__all__ = ["MemoryStore", "MemoryTools"]

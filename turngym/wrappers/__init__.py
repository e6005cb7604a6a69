"""Wrappers, one concern per file (chat history, summarization, memory, ...)."""

"""Wrappers, one concern per file (chat history, summarization, memory, ...)."""

from turngym.wrappers.discrete_actions import DiscreteActions
from turngym.wrappers.text_features import TextFeatures

__all__ = ["DiscreteActions", "TextFeatures"]

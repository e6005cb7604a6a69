"""Wrappers, one concern per file (chat history, summarization, memory, ...).

Context wrappers stack outermost first as: one context builder (``ChatHistory``,
optionally under ``SlidingWindow``, or ``SummarizeContext``, ``InternalState`` or
``MarkovianChunks``), then ``MemoryTools``, ``ParseAction``, ``UnaryFeedback``, then the
env; a wrong order is a one-line ``ValueError`` at construction (``stack_order``).
"""

from turngym.wrappers.chat_history import ChatHistory, ChatHistoryGame
from turngym.wrappers.discrete_actions import DiscreteActions
from turngym.wrappers.gated_reward import GatedReward
from turngym.wrappers.horizon_curriculum import HorizonCurriculum, HorizonSchedule
from turngym.wrappers.internal_state import InternalState, InternalStateGame
from turngym.wrappers.markovian_chunks import MarkovianChunks, MarkovianChunksGame
from turngym.wrappers.memory import MemoryStore, MemoryTools, MemoryToolsGame
from turngym.wrappers.parse_action import ParseAction, ParseActionGame
from turngym.wrappers.record_episodes import RecordEpisodes, load_transcripts
from turngym.wrappers.sliding_window import SlidingWindow, SlidingWindowGame
from turngym.wrappers.state_key import StateKey
from turngym.wrappers.summarize import SummarizeContext, SummarizeContextGame
from turngym.wrappers.text_features import TextFeatures
from turngym.wrappers.training_step import TrainingStepAware, set_training_step
from turngym.wrappers.unary_feedback import UnaryFeedback

__all__ = [
    "ChatHistory",
    "ChatHistoryGame",
    "DiscreteActions",
    "GatedReward",
    "HorizonCurriculum",
    "HorizonSchedule",
    "InternalState",
    "InternalStateGame",
    "MarkovianChunks",
    "MarkovianChunksGame",
    "MemoryStore",
    "MemoryTools",
    "MemoryToolsGame",
    "ParseAction",
    "ParseActionGame",
    "RecordEpisodes",
    "SlidingWindow",
    "SlidingWindowGame",
    "StateKey",
    "SummarizeContext",
    "SummarizeContextGame",
    "TextFeatures",
    "TrainingStepAware",
    "UnaryFeedback",
    "load_transcripts",
    "set_training_step",
]

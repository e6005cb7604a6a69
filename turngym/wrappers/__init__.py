"""Wrappers, one concern per file (chat history, summarization, memory, ...)."""

from turngym.wrappers.gated_reward import GatedReward
from turngym.wrappers.horizon_curriculum import HorizonCurriculum, HorizonSchedule
from turngym.wrappers.record_episodes import RecordEpisodes, load_transcripts
from turngym.wrappers.unary_feedback import UnaryFeedback

__all__ = [
    "GatedReward",
    "HorizonCurriculum",
    "HorizonSchedule",
    "RecordEpisodes",
    "UnaryFeedback",
    "load_transcripts",
]

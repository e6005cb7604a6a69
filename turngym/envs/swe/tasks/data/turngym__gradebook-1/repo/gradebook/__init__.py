"""A course grade book: scores, percentages and letter grades."""
from gradebook.book import GradeBook
from gradebook.letters import letter_for, whole_percent

__all__ = ["GradeBook", "letter_for", "whole_percent"]

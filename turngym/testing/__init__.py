"""Public checks for turngym envs: conformance, cross-process replay, degenerate answers.

Run them on your own envs as on ours::

    from turngym.testing import check_degenerate_answers, check_game, check_replay, check_text_env
    check_text_env("turngym/Wordle-v0")       # raises ConformanceError on failure
    check_game("turngym/TicTacToe-v0")         # a PettingZoo game
    check_degenerate_answers("turngym/TryAgainQA-v0")   # no answer wins without the task
    report = check_text_env(MyEnv, raise_on_failure=False)
    print(report.table())
    check_replay("turngym/Wordle-v0")          # seeds replay in fresh interpreters
"""

from turngym.testing.degenerate import (
    DegenerateAnswerError,
    DegenerateReport,
    DegenerateResult,
    answer_graded_ids,
    check_degenerate_answers,
)
from turngym.testing.games import check_game
from turngym.testing.replay import check_replay
from turngym.testing.text import CheckReport, CheckResult, ConformanceError, check_text_env

__all__ = [
    "CheckReport",
    "CheckResult",
    "ConformanceError",
    "DegenerateAnswerError",
    "DegenerateReport",
    "DegenerateResult",
    "answer_graded_ids",
    "check_degenerate_answers",
    "check_game",
    "check_replay",
    "check_text_env",
]

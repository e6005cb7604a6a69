"""Public conformance checks for turngym envs: ``check_text_env``, ``check_game``, ``check_replay``.

Run them on your own envs as on ours::

    from turngym.testing import check_game, check_replay, check_text_env
    check_text_env("turngym/Wordle-v0")       # raises ConformanceError on failure
    check_game("turngym/TicTacToe-v0")         # a PettingZoo game
    report = check_text_env(MyEnv, raise_on_failure=False)
    print(report.table())
    check_replay("turngym/Wordle-v0")          # seeds replay in fresh interpreters
"""

from turngym.testing.games import check_game
from turngym.testing.replay import check_replay
from turngym.testing.text import CheckReport, CheckResult, ConformanceError, check_text_env

__all__ = [
    "CheckReport",
    "CheckResult",
    "ConformanceError",
    "check_game",
    "check_replay",
    "check_text_env",
]

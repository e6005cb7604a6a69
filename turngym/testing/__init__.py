"""Public conformance checks for turngym envs: ``check_text_env`` and ``check_game``.

Run them on your own envs as on ours::

    from turngym.testing import check_game, check_text_env
    check_text_env("turngym/Wordle-v0")       # raises ConformanceError on failure
    check_game("turngym/TicTacToe-v0")         # a PettingZoo game
    report = check_text_env(MyEnv, raise_on_failure=False)
    print(report.table())
"""

from turngym.testing.games import check_game
from turngym.testing.text import CheckReport, CheckResult, ConformanceError, check_text_env

__all__ = ["CheckReport", "CheckResult", "ConformanceError", "check_game", "check_text_env"]

"""check_game must fail on broken games, and say why."""

from __future__ import annotations

import pytest

from turngym.core import Invalid
from turngym.envs.games.tictactoe import CELLS, TicTacToe
from turngym.testing import ConformanceError, check_game


def failed(report) -> dict[str, str]:
    return {r.name: r.detail for r in report.results if not r.passed}


class NotZeroSum(TicTacToe):
    def _apply(self, k):
        super()._apply(k)
        if self.over:
            self.pay(0, 0.5)


class Leaky(TicTacToe):
    """Keeps the last game's board across resets."""

    def _start(self, options):
        rules = super()._start(options)
        if getattr(self, "_kept", None):
            self.board = self._kept
        return rules

    def _apply(self, k):
        super()._apply(k)
        self._kept = list(self.board)


class CrashesOnUnicode(TicTacToe):
    def _parse(self, action):
        action.encode("ascii")
        return super()._parse(action)


class ConvertsAnyNumber(TicTacToe):
    """Reads a cell number with a bare int(): 5,000 digits or a superscript raise."""

    def _parse(self, action: str) -> int | Invalid:
        if action.strip().isdigit():
            k = int(action) - 1
            return k if 0 <= k < 9 else Invalid(f"no cell {k + 1}")
        return super()._parse(action)


class NeverEnds(TicTacToe):
    def _apply(self, k):
        self.current = 1 - self.current  # never marks a cell


class UnknownLegalAction(TicTacToe):
    def _legal(self):
        return [*super()._legal(), "zz"]


class CaseBlind(TicTacToe):
    """Takes only the spelling as listed, though no two of its actions differ by case."""

    def _parse(self, action):
        if action not in self.action_names:
            return Invalid("unknown action")
        return super()._parse(action)


class AcceptsGarbage(TicTacToe):
    def _parse(self, action):
        parsed = super()._parse(action)
        return parsed if isinstance(parsed, int) else CELLS.index(self._legal()[0])


def test_a_good_game_passes():
    report = check_game(TicTacToe, n_fuzz=200, n_games=100, reset_games=5)
    assert report.passed, report.table()
    assert "1000" not in report.table()  # the sizes asked for are the sizes run
    assert "100 random games (hypothesis)" in report.table()


@pytest.mark.parametrize(
    ("game", "check", "words"),
    [
        (NotZeroSum, "random-game properties", "sum to"),
        (Leaky, "reset safety", "reused differs from fresh"),
        (CrashesOnUnicode, "fuzzed actions", "raised UnicodeEncodeError"),
        (NeverEnds, "random-game properties", "no end after"),
        (UnknownLegalAction, "fuzzed actions", "not in action_names"),
        (AcceptsGarbage, "fuzzed actions", "garbage was accepted"),
        (CaseBlind, "fuzzed actions", "a legal action was marked invalid"),
        (ConvertsAnyNumber, "fuzzed actions", "raised ValueError"),
    ],
)
def test_broken_games_fail_the_right_check(game, check, words):
    report = check_game(game, n_fuzz=300, n_games=100, reset_games=10, raise_on_failure=False)
    problems = failed(report)
    assert check in problems, report.table()
    assert words in problems[check]


def test_failure_raises_with_the_table():
    with pytest.raises(ConformanceError, match="random-game properties"):
        check_game(NotZeroSum, n_fuzz=50, n_games=50, reset_games=2)


def test_expert_playing_illegal_moves_fails():
    class Blunderer:
        def __init__(self, game):
            pass

        def reset(self, seed=None):
            pass

        def act(self, obs, info):
            return "zz"

    report = check_game(
        TicTacToe, n_fuzz=10, n_games=10, reset_games=1, expert=Blunderer, raise_on_failure=False
    )
    assert "invalid action 'zz'" in failed(report)["expert"]

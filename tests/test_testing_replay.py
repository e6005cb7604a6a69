"""The cross-process replay check (turngym/testing/replay.py), on toys and on the registry.

The toys (single-agent envs and AEC games) prove the check fails where it must: content
from a set's iteration order (the hash seed) or from the global ``random`` module. The
registry runs prove the ids that make content from a seed replay it in fresh
interpreters with other hash seeds and empty caches: a sample every run, every
single-agent id and every game (all seats, through ``make_game``) in the slow runs, and
a sample of the web, GUI and SWE ids (a browser, an X server or a sandbox in each
interpreter) in slow runs of their own (every one with ``TURNGYM_REPLAY_ALL=1``).
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

import numpy as np
import pytest

from tests import system_deps
from tests.sampling import sample_ids
from tests.toy_envs import Count
from turngym.envs.adapters.reasoning_gym_tasks import HASH_ORDERED
from turngym.envs.games.base import TextGame
from turngym.registry import ENVS
from turngym.testing import ConformanceError, check_game, check_text_env
from turngym.testing.replay import check_replay, replay_differences

_NUMBERS = {"three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


class SetOrder(Count):
    """Takes its target from the first of a set of strings: the hash seed's choice."""

    def _reset(self, options: dict[str, Any]) -> str:
        super()._reset(options)
        self.target = _NUMBERS[next(iter(set(_NUMBERS)))]
        self.instruction = f"Reach exactly {self.target} by adding 1 or 2."
        return self.instruction


class GlobalDraw(Count):
    """Shows a draw from the global ``random`` module, which no seed of the env's fixes."""

    def _reset(self, options: dict[str, Any]) -> str:
        return f"{super()._reset(options)} (lucky number {random.random():.6f})"


class HighCard(TextGame[str]):
    """Each player is dealt a card of 1..9 from the game's RNG; both show, the higher wins."""

    action_names = ("show",)

    def _start(self, options: dict[str, Any]) -> str:
        self.cards = self._deal()
        self.current = 0
        for i, card in enumerate(self.cards):
            self.tell(i, f"You are dealt a {card}.")
        return "High card: both players show; the higher card wins."

    def _deal(self) -> list[int]:
        return [1 + self.random.below(9), 1 + self.random.below(9)]

    def _legal(self) -> list[str]:
        return ["show"]

    def _apply(self, action: str) -> None:
        self.announce(f"player_{self.current} shows {self.cards[self.current]}.")
        if self.current == 0:
            self.current = 1
            return
        a, b = self.cards
        if a != b:
            self.pay(0 if a > b else 1, 1.0)
            self.pay(1 if a > b else 0, -1.0)
        self.finish("The higher card wins." if a != b else "A tie.")

    def _view(self, i: int) -> str:
        return f"You are player_{i}."

    def _render(self) -> str:
        return f"cards {self.cards}"


class SetDealt(HighCard):
    """Deals the first two of a set of strings: the hash seed deals, not the seed."""

    def _deal(self) -> list[int]:
        first, second, *_ = set(_NUMBERS)
        return [_NUMBERS[first], _NUMBERS[second]]


class GlobalDealt(HighCard):
    """Deals from the global ``random`` module, which no seed of the game's fixes."""

    def _deal(self) -> list[int]:
        return [random.randint(1, 9), random.randint(1, 9)]


class SetPixel(Count):
    """Shows a frame (a screenshot) one pixel of which the hash seed's set order sets."""

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = super().reset(seed=seed, options=options)
        frame = np.zeros((48, 64, 3), np.uint8)
        frame[20, 30, 1] = _NUMBERS[next(iter(set(_NUMBERS)))]
        return obs, {**info, "frame": frame}


def test_a_screenshot_is_compared_pixel_for_pixel() -> None:
    # repr() of a 48x64x3 frame shows its corners only: the pixel was missed before
    assert set(replay_differences([SetPixel, Count], steps=1)) == {"SetPixel"}


class Timed(Count):
    """Reports how long its reset took, as the SWE envs report their grading's time."""

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        start = time.perf_counter()
        obs, info = super().reset(seed=seed, options=options)
        return obs, {**info, "reset_seconds": time.perf_counter() - start}


def test_a_duration_the_clock_measured_is_left_out() -> None:
    assert replay_differences([Timed], steps=1) == {}


def test_a_hash_ordered_env_fails_and_says_where() -> None:
    differences = replay_differences([SetOrder, Count, GlobalDraw], steps=2)
    assert set(differences) == {"SetOrder", "GlobalDraw"}
    assert "reset(0)" in differences["SetOrder"] and "PYTHONHASHSEED=" in differences["SetOrder"]


def test_check_text_env_replays_across_processes_only_when_asked() -> None:
    names = [r.name for r in check_text_env(Count, n_fuzz=50, reset_episodes=2).results]
    assert "cross-process replay" not in names
    report = check_text_env(
        SetOrder, n_fuzz=50, reset_episodes=2, cross_process=True, raise_on_failure=False
    )
    verdicts = {r.name: r.passed for r in report.results}
    # one process replays it: only the new check sees the hash seed's choice
    assert verdicts.pop("cross-process replay") is False and all(verdicts.values())


def test_a_factory_that_cannot_travel_is_skipped_with_the_reason() -> None:
    [result] = check_replay(lambda **kwargs: Count(**kwargs)).results
    assert result.skipped and "cannot be rebuilt in another process" in result.detail


def test_check_replay_raises_with_the_table() -> None:
    with pytest.raises(ConformanceError, match="cross-process replay  FAIL"):
        check_replay(SetOrder)
    assert check_replay(Count).passed


def test_games_that_deal_from_a_set_or_the_global_random_fail() -> None:
    differences = replay_differences([SetDealt, HighCard, GlobalDealt], games=True)
    assert set(differences) == {"SetDealt", "GlobalDealt"}
    # the deal shows at the reset, in each player's first observation
    assert "reset(0)" in differences["SetDealt"] and "PYTHONHASHSEED=" in differences["SetDealt"]


def test_check_game_replays_across_processes_only_when_asked() -> None:
    small = {"n_fuzz": 50, "n_games": 20, "reset_games": 2, "expert_games": 1}
    assert "cross-process replay" not in [r.name for r in check_game(HighCard, **small).results]
    report = check_game(SetDealt, **small, cross_process=True, raise_on_failure=False)
    verdicts = {r.name: r.passed or r.skipped for r in report.results}
    # one process deals the same every time: only the new check sees the hash seed's deal
    assert verdicts.pop("cross-process replay") is False and all(verdicts.values())
    assert check_game(HighCard, **small, cross_process=True).passed


# -- the registry -------------------------------------------------------------------

# Single-agent ids, games as their single-agent views; web, gui and swe ids need a
# browser, a display or a sandbox per interpreter and have tests of their own below.
CANDIDATES = [
    e.id
    for e in ENVS
    if e.family in ("text", "classic", "games") and e.unavailable() is None
    and e.group != "textworld"  # a game takes seconds to make: cooking has a test of its own
]  # fmt: skip
RG = "turngym/reasoning_gym.{}-v0"
# the ids that failed before issue 42: the global random module, then hash-ordered sets
FAILED_BEFORE = [RG.format("list_functions"), *(RG.format(t) for t in sorted(HASH_ORDERED))]


def _replays(ids: list[str]) -> None:
    # eight seeds: a dataset picks from a set on some seeds only; three steps: three
    # answers end an episode, whose last info shows the dataset's answer
    differences = replay_differences(ids, episodes=8, steps=3)
    assert not differences, "\n".join(f"{k}: {v}" for k, v in differences.items())


def test_ids_replay_in_fresh_processes_on_a_sample() -> None:
    ids = sample_ids(CANDIDATES, 6, always=[i for i in FAILED_BEFORE if i in CANDIDATES])
    _replays(ids)


@pytest.mark.slow
def test_every_single_agent_id_replays_in_fresh_processes() -> None:
    _replays(CANDIDATES)


GAMES = [e.id for e in ENVS if e.game is not None and e.unavailable() is None]
# native games, and OpenSpiel's with chance: cards (poker), dice (pig, liar's dice)
ALWAYS_GAMES = [
    i
    for i in (
        "turngym/KuhnPoker-v0",
        "turngym/LiarsDice-v0",
        "turngym/openspiel.leduc_poker-v0",
        "turngym/openspiel.pig-v0",
        "turngym/openspiel.liars_dice-v0",
    )
    if i in GAMES
]


def _games_replay(ids: list[str], episodes: int) -> None:
    # 40 moves of all seats: chance during play (pig's dice, a new hand) shows too
    differences = replay_differences(ids, games=True, episodes=episodes)
    assert not differences, "\n".join(f"{k}: {v}" for k, v in differences.items())


def test_games_replay_in_fresh_processes_on_a_sample() -> None:
    _games_replay(sample_ids(GAMES, 4, always=ALWAYS_GAMES), episodes=2)


@pytest.mark.slow
def test_every_game_replays_in_fresh_processes() -> None:
    _games_replay(GAMES, episodes=4)


# -- the families with a browser, a desktop or a sandbox per interpreter -----------------

# Every id of these takes seconds to replay (all 103 MiniWoB tasks about 5 minutes on two
# cores), too long for the suite: a slow test replays a sample that changes every run,
# and TURNGYM_REPLAY_ALL=1 replays every id.
EVERY = bool(os.environ.get("TURNGYM_REPLAY_ALL"))
TIMED = {
    f"turngym/gui.{task}-v0": "a screenshot shows as much of a command's echo and "
    "output as the shell and xterm got to (the env reads the screen without waiting)"
    for task in ("terminal-file", "terminal-count", "terminal-notes")
}
"""Ids whose observations depend on wall-clock time, not on the seed or the process."""


def _family(*groups: str) -> list[str]:
    return [e.id for e in ENVS if e.group in groups and e.id not in TIMED]


def _replays_some(ids: list[str], k: int) -> None:
    differences = replay_differences(ids if EVERY else sample_ids(ids, k), episodes=2, steps=5)
    assert not differences, "\n".join(f"{k}: {v}" for k, v in differences.items())


@pytest.mark.slow
@pytest.mark.browser
@system_deps.chromium()
def test_web_ids_replay_in_fresh_processes() -> None:
    # a browser per interpreter; task, page content and the oracle's play from the seed
    _replays_some(_family("miniwob", "web"), 3)


@pytest.mark.slow
@pytest.mark.browser
@system_deps.chromium()
def test_autocomplete_suggestions_replay_in_fresh_processes() -> None:
    # jQuery UI searches 300 ms after the last key: the observation waits for the search
    # (miniwob.py's _SETTLE), so whether the suggestions show is no longer up to the clock
    ids = [f"turngym/miniwob.{task}-v0" for task in ("book-flight", "use-autocomplete")]
    differences = replay_differences(ids, episodes=2, steps=5)
    assert not differences, "\n".join(f"{k}: {v}" for k, v in differences.items())


@pytest.mark.slow
@pytest.mark.x11
@pytest.mark.sandbox
@system_deps.x11()
@system_deps.bubblewrap()
def test_gui_ids_replay_in_fresh_processes() -> None:
    # an X server per interpreter; screenshots are compared pixel for pixel
    _replays_some(_family("gui"), 3)


@pytest.mark.slow
@pytest.mark.sandbox
@system_deps.bubblewrap()
def test_swe_ids_replay_in_fresh_processes() -> None:
    _replays_some(_family("swe"), 1)


@pytest.mark.slow
@pytest.mark.skipif(
    not EVERY,
    reason="TURNGYM_REPLAY_ALL=1 replays the other TextWorld games (a minute); the cooking "
    "test above covers the adapter every run",
)
def test_textworld_ids_replay_in_fresh_processes() -> None:
    pytest.importorskip("textworld")
    # a game takes seconds to make in each empty cache
    _replays_some([i for i in _family("textworld") if "cooking" not in i], 2)


def test_textworld_cooking_replays_with_empty_caches() -> None:
    """Episodes and the walkthrough's (the expert's) of a game made in each empty cache.

    (The game files once differed between hash seeds where play did not:
    ``test_textworld.py`` compares the files themselves.)
    """
    pytest.importorskip("textworld")
    # one game (num_games=1) made in each fresh interpreter's empty cache
    check_replay("turngym/textworld.cooking-v0", make_kwargs={"num_games": 1}, steps=8)

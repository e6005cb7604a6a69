"""The cross-process replay check (turngym/testing/replay.py), on toys and on the registry.

The toys prove the check fails where it must: content from a set's iteration order
(the hash seed) or from the global ``random`` module. The registry runs prove the ids
that make content from a seed replay it in fresh interpreters with other hash seeds and
empty caches: a sample every run, every single-agent id in the slow run.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.sampling import sample_ids
from tests.toy_envs import Count
from turngym.envs.adapters.reasoning_gym_tasks import HASH_ORDERED
from turngym.registry import ENVS
from turngym.testing import ConformanceError, check_text_env
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


# -- the registry -------------------------------------------------------------------

# Single-agent ids, games as their single-agent views; web, gui and swe ids need a
# browser, a display or a sandbox per interpreter and are left to their own tests.
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


def test_textworld_cooking_replays_with_empty_caches() -> None:
    """Episodes and the walkthrough's (the expert's) of a game made in each empty cache.

    (The game files once differed between hash seeds where play did not:
    ``test_textworld.py`` compares the files themselves.)
    """
    pytest.importorskip("textworld")
    # one game (num_games=1) made in each fresh interpreter's empty cache
    check_replay("turngym/textworld.cooking-v0", make_kwargs={"num_games": 1}, steps=8)

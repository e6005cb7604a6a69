"""The conformance checker must fail on broken envs, not only pass on good ones."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.toy_envs import Count
from turngym.agents.base import BaseAgent
from turngym.core import Invalid, Outcome
from turngym.testing import ConformanceError, check_text_env


def _verdicts(factory: Any, **kwargs: Any) -> dict[str, bool]:
    report = check_text_env(
        factory, n_fuzz=300, reset_episodes=10, raise_on_failure=False, **kwargs
    )
    return {r.name: r.passed or r.skipped for r in report.results}


class Leaky(Count):
    """Forgets to reset the total between episodes."""

    total = 0

    def _reset(self, options: dict[str, Any]) -> str:
        total = getattr(self, "total", 0)
        obs = super()._reset(options)
        self.total = total % 3
        return obs


class GlobalRandom(Count):
    """Draws its target from the global RNG."""

    def _reset(self, options: dict[str, Any]) -> str:
        obs = super()._reset(options)
        self.target = random.randint(3, 7)
        return obs


class Raises(Count):
    """Crashes on non-ASCII input."""

    def _parse(self, action: str) -> int | Invalid:
        action.encode("ascii")
        return super()._parse(action)


class ConvertsAnyNumber(Count):
    """Reads a number with a bare int(): 5,000 digits or a superscript raise."""

    def _parse(self, action: str) -> int | Invalid:
        if action.strip().isdigit() and int(action) in (1, 2):
            return int(action)
        return super()._parse(action)


class CaseStrict(Count):
    """Rejects 'ONE'-style variants: the contract says case must not matter."""

    def _parse(self, action: str) -> int | Invalid:
        return {"1": 1, "2": 2}.get(action, Invalid("exactly 1 or 2"))

    def _legal_actions(self) -> list[str]:
        return ["1", "2", "one"]


class Lenient(Count):
    """Accepts anything although its action set is finite."""

    def _parse(self, action: str) -> int | Invalid:
        return 1


class Duplicates(Count):
    def _legal_actions(self) -> list[str]:
        return ["1", "2", "1"]


class Winner(BaseAgent):
    def __init__(self, env: Any) -> None:
        self.env = env.unwrapped if hasattr(env, "unwrapped") else env

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        return "1"


def test_good_env_passes_with_an_expert():
    verdicts = _verdicts(Count, expert=Winner)
    assert all(verdicts.values()), verdicts


def test_state_leak_across_resets_fails_reset_safety():
    verdicts = _verdicts(Leaky)
    assert not verdicts["reset safety"]


def test_global_rng_fails_determinism():
    verdicts = _verdicts(GlobalRandom)
    assert not verdicts["seed determinism"] or not verdicts["reset safety"]


def test_exception_on_weird_input_fails_fuzzing():
    verdicts = _verdicts(Raises)
    assert not verdicts["fuzzed actions"]


def test_unbounded_number_parsing_fails_fuzzing() -> None:
    report = check_text_env(ConvertsAnyNumber, n_fuzz=50, reset_episodes=2, raise_on_failure=False)
    fuzz = next(r for r in report.results if r.name == "fuzzed actions")
    assert not fuzz.passed and "raised ValueError" in fuzz.detail, fuzz.detail


def test_case_sensitive_env_fails_fuzzing():
    assert not _verdicts(CaseStrict)["fuzzed actions"]


def test_accepting_garbage_fails_fuzzing():
    assert not _verdicts(Lenient)["fuzzed actions"]


def test_duplicate_legal_actions_fail():
    assert not _verdicts(Duplicates)["fuzzed actions"]


def test_expert_that_never_wins_fails():
    class NeverWins(BaseAgent):
        def __init__(self, env: Any) -> None:
            pass

        def act(self, obs: Any, info: dict[str, Any]) -> str:
            return "1" if info.get("turn", 0) == 0 else "2"

    class Hard(Count):
        def _reset(self, options: dict[str, Any]) -> str:
            obs = super()._reset(options)
            self.target = 2  # "1" then "2" always overshoots
            return obs

    assert not _verdicts(Hard, expert=NeverWins)["expert"]


def test_raises_conformance_error_with_table():
    with pytest.raises(ConformanceError, match="reset safety"):
        check_text_env(Leaky, n_fuzz=50, reset_episodes=5)


def test_env_instance_without_spec_is_rejected_clearly():
    with pytest.raises(TypeError, match="factory"):
        check_text_env(Count(), n_fuzz=10)


def test_apply_crash_in_outcome_is_reported():
    class Broken(Count):
        def _apply(self, action: int) -> Outcome:
            raise RuntimeError("boom")

    assert not _verdicts(Broken)["fuzzed actions"]


def test_blank_ansi_render_fails():
    class Blank(Count):
        def _render(self) -> str:
            return ""

    assert not _verdicts(Blank)["render ansi"]

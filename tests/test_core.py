"""TextEnv base behaviour, tested through a tiny counting game."""

from __future__ import annotations

from typing import Any

import pytest
from gymnasium.error import ResetNeeded

from tests.toy_envs import Count
from turngym.core import match_action, normalize_action, preview
from turngym.testing import check_text_env


def test_normalize_and_match():
    assert normalize_action("  Move \t LEFT \n") == "move left"
    assert match_action(" TWO ", {"two": 2}) == 2
    assert match_action("three", {"two": 2}) is None
    assert preview("x" * 500).endswith("(502 chars)")


def test_info_keys_on_reset_and_step():
    env = Count()
    obs, info = env.reset(seed=1)
    assert obs.startswith("Reach exactly")
    assert info["turn"] == 0 and info["invalid_action"] is False and info["success"] is False
    assert info["legal_actions"] == ["1", "2"]
    assert info["instruction"] == obs
    assert info["state_key"] == f"0/{env.target}"
    obs, reward, terminated, truncated, info = env.step(" 1 ")
    assert obs == "Total 1." and reward == 0.0 and not terminated and not truncated
    assert info["turn"] == 1 and info["invalid_action"] is False


def test_invalid_action_penalty_and_truncation_after_streak():
    env = Count(invalid_action_penalty=-0.5, max_invalid_actions=3)
    env.reset(seed=0)
    for _ in range(2):
        obs, reward, terminated, truncated, info = env.step("seven")
        assert info["invalid_action"] and reward == -0.5 and not truncated
        assert "say 1 or 2" in obs and "Legal actions: 1, 2" in obs
    env.step("1")  # a valid action resets the streak
    for _ in range(2):
        *_, truncated, info = env.step(None)  # type: ignore[arg-type]
        assert not truncated and info["invalid_reason"] == "actions are strings, got NoneType"
    obs, reward, terminated, truncated, info = env.step("")
    assert truncated and not terminated and info["legal_actions"] == []
    assert "Too many invalid actions" in obs


def test_unlimited_invalid_actions():
    env = Count(max_invalid_actions=None)
    env.reset(seed=0)
    for _ in range(50):
        assert not env.step("?")[3]


def test_success_and_step_after_end():
    env = Count()
    env.reset(seed=0)
    target = env.target
    info: dict[str, Any] = {}
    for _ in range(target):
        *_, terminated, _, info = env.step("1")
        if terminated:
            break
    assert info["success"] is True
    obs, reward, terminated, _, info = env.step("1")
    assert terminated and reward == 0.0 and info["invalid_action"] and "reset()" in obs


def test_step_before_reset_raises_reset_needed():
    with pytest.raises(ResetNeeded):
        Count().step("1")


def test_too_long_action_is_invalid_not_an_error():
    env = Count()
    env.reset(seed=0)
    obs, *_, info = env.step("1" * 100_001)
    assert info["invalid_action"] and "longer than" in obs and len(obs) < 300


def test_bad_constructor_args():
    with pytest.raises(ValueError, match="max_invalid_actions"):
        Count(max_invalid_actions=0)
    with pytest.raises(ValueError, match="render_mode"):
        Count(render_mode="rgb_array")


def test_render_modes(capsys):
    env = Count(render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == f"0/{env.target}"
    human = Count(render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert f"0/{human.target}" in capsys.readouterr().out


def test_seeding_reproduces_and_varies():
    targets = set()
    for seed in range(20):
        a, b = Count(), Count()
        assert a.reset(seed=seed) == b.reset(seed=seed)
        targets.add(a.target)
    assert len(targets) > 1


def test_base_env_passes_the_conformance_checker():
    report = check_text_env(
        Count, n_fuzz=1000, reset_episodes=20, expert=None, raise_on_failure=False
    )
    names = {r.name: r for r in report.results}
    assert names["expert"].skipped
    assert report.passed, report.table()


def test_step_after_truncation_repeats_truncation():
    env = Count(max_invalid_actions=1)
    env.reset(seed=0)
    assert env.step("nope")[3] is True
    _, _, terminated, truncated, info = env.step("1")
    assert (terminated, truncated) == (False, True) and info["invalid_action"]


def test_max_turns_counts_invalid_turns_and_truncates():
    class Limited(Count):
        max_turns = 3

        def _turn_limit_reached(self) -> tuple[str, dict[str, Any]]:
            return "Time is up.", {"answer": self.target}

    env = Limited(max_invalid_actions=None)
    env.reset(seed=0)
    env.target = 100  # unreachable in 3 turns
    assert not env.step("1")[3]
    assert not env.step("nope")[3]
    obs, _, terminated, truncated, info = env.step("2")
    assert (terminated, truncated) == (False, True)
    assert obs.endswith("Time is up.") and info["answer"] == 100 and info["legal_actions"] == []
    assert env.step("1")[3] is True  # stays over


@pytest.mark.parametrize("penalty", [0.5, 1, float("nan"), "-1", True])
def test_a_positive_or_non_numeric_invalid_action_penalty_is_refused(penalty):
    # 0.5 used to be accepted and paid +0.5 for every invalid action.
    with pytest.raises(ValueError, match="invalid_action_penalty is the reward of an invalid"):
        Count(invalid_action_penalty=penalty)

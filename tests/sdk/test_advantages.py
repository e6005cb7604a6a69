"""Advantage estimators against hand-computed values."""

from __future__ import annotations

import math

import pytest

from turngym.sdk.advantages import (
    EPS,
    RAEBaseline,
    episode_return,
    gigpo,
    grpo,
    per_agent_norm,
    reinforce,
    turn_level,
)
from turngym.sdk.records import Episode, Turn


def ep(rewards, group=0, obs=None, agents=None, env_id="env"):
    """An episode with these per-turn rewards (observations and agents optional)."""
    turns = [
        Turn(
            obs=(obs[t] if obs else f"s{t}"),
            reward=r,
            agent=(agents[t] if agents else "agent"),
        )
        for t, r in enumerate(rewards)
    ]
    return Episode(env_id, group=group, turns=turns)


def approx(rows):
    return [pytest.approx(row, abs=1e-5) for row in rows]


def test_grpo_group_batch_and_dr_grpo_scales():
    # Group 0 returns 3, 1 (mean 2, std 1); group 1 returns 0, 0, 3 (mean 1, std sqrt(2)).
    episodes = [ep([1, 2]), ep([1]), ep([0], 1), ep([0], 1), ep([3], 1)]
    assert [episode_return(e) for e in episodes] == [3, 1, 0, 0, 3]
    s = math.sqrt(2)
    assert grpo(episodes, "group") == approx([[1, 1], [-1], [-1 / s], [-1 / s], [2 / s]])
    assert grpo(episodes, "none") == approx([[1, 1], [-1], [-1], [-1], [2]])
    # batch: the centred returns 1, -1, -1, -1, 2 have std sqrt(8/5) (their mean is 0).
    b = math.sqrt(8 / 5)
    assert grpo(episodes, "batch") == approx([[1 / b] * 2, [-1 / b], [-1 / b], [-1 / b], [2 / b]])


def test_grpo_equal_returns_give_zero_and_bad_scale_is_an_error():
    assert grpo([ep([1]), ep([1])]) == [[0.0], [0.0]]
    with pytest.raises(ValueError, match="scale must be"):
        grpo([ep([1])], scale="std")


def test_reinforce_centres_on_the_batch_mean_across_groups():
    # Returns 3, 1, 0, 0, 3 over two groups: one baseline, the batch mean 7/5.
    episodes = [ep([1, 2]), ep([1]), ep([0], 1), ep([0], 1), ep([3], 1)]
    m = 7 / 5
    assert reinforce(episodes) == approx([[3 - m] * 2, [1 - m], [-m], [-m], [3 - m]])
    assert reinforce([]) == []


def test_gigpo_adds_step_advantages_over_shared_anchor_states():
    # Two episodes of one group; both act from "start" first, then from different states.
    # Rewards: A: start -> 0, mid -> 1 ; B: start -> 0, far -> 0.
    a = ep([0, 1], obs=["start", "mid"])
    b = ep([0, 0], obs=["start", "far"])
    gamma = 0.5
    # Episode level: returns 1 and 0 -> +1, -1.
    # Step level at "start": to-go A = 0 + 0.5 * 1 = 0.5, B = 0 -> normalised +1, -1.
    # "mid" and "far" are seen once: no step advantage.
    got = gigpo([a, b], gamma=gamma, weight=0.5)
    want = [[1 + 0.5 * 1, 1], [-1 + 0.5 * -1, -1]]
    assert got == approx(want)


def test_gigpo_anchors_stay_within_their_group():
    a = ep([1], obs=["start"], group=0)
    b = ep([0], obs=["start"], group=1)
    assert gigpo([a, b]) == [[0.0], [0.0]]  # each group has one episode


def test_turn_level_normalises_per_turn_index_and_adds_the_outcome():
    # Group: rewards [1, 0] and [0, 0, 1] -> returns 1 and 1 (outcome advantage 0).
    # Turn 0: 1 vs 0 -> +1, -1; turn 1: 0 vs 0 -> 0, 0; turn 2: only one episode -> 0.
    got = turn_level([ep([1, 0]), ep([0, 0, 1])], outcome_weight=2.0)
    assert got == approx([[1, 0], [-1, 0, 0]])
    # With different outcomes the outcome term is added to every turn.
    got = turn_level([ep([1]), ep([0])], outcome_weight=2.0)
    assert got == approx([[1 + 2], [-1 - 2]])


def test_rae_uses_the_baseline_before_each_update():
    rae = RAEBaseline(decay=0.95)
    seats = ["player_0", "player_1"]
    win = ep([1, -1], agents=seats, env_id="ttt")
    loss = ep([-1, 1], agents=seats, env_id="ttt")
    other_game = ep([1, -1], agents=seats, env_id="kuhn")
    got = rae.advantages([win, loss, other_game])
    # b(ttt, p0): 0 -> A = 1, then b = 0.05; next R = -1: A = -1.05, b = 0.0475 - 0.05.
    # b(ttt, p1): 0 -> A = -1, then b = -0.05; next R = 1: A = 1.05.
    # kuhn has its own baselines: A = R.
    assert got == approx([[1, -1], [-1.05, 1.05], [1, -1]])
    assert rae.baselines["ttt", "player_0"] == pytest.approx(0.95 * 0.05 - 0.05)
    copy = RAEBaseline()
    copy.load_state_dict(rae.state_dict())
    assert copy.baselines == rae.baselines and copy.decay == rae.decay


def test_per_agent_norm_normalises_each_agent_separately():
    seats = ["player_0", "player_1"]
    e1 = ep([2, 0], agents=seats)  # p0 2, p1 0
    e2 = ep([0, 4], agents=seats)  # p0 0, p1 4
    # p0 returns 2, 0 (mean 1, std 1); p1 returns 0, 4 (mean 2, std 2).
    assert per_agent_norm([e1, e2]) == approx([[1, -1], [-1, 1]])


def test_std_zero_groups_stay_finite():
    got = grpo([ep([5]), ep([5]), ep([5])])
    assert all(math.isfinite(a) and a == 0 for row in got for a in row)
    assert EPS > 0

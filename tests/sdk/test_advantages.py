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
    seat_returns,
    turn_level,
)
from turngym.sdk.batches import select_groups
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


SEATS = ["player_0", "player_1", "player_0", "player_1"]


def game(p0_result, group=0, trainable=(True, True)):
    """A four-turn zero-sum game whose last two turns carry each seat's result."""
    turns = [
        Turn(obs=f"s{t}", agent=seat, trainable=trainable[t % 2], reward=0.0)
        for t, seat in enumerate(SEATS)
    ]
    turns[2].reward, turns[3].reward = p0_result, -p0_result
    return Episode("ttt", group=group, turns=turns)


def test_every_estimator_scores_a_game_turn_by_its_own_seats_result():
    # p0 wins, loses, wins, draws: the sum over seats is 0 in every episode.
    episodes = [game(1.0), game(-1.0), game(1.0), game(0.0)]
    assert {episode_return(e) for e in episodes} == {0.0}
    assert seat_returns(episodes[0]) == {"player_0": 1.0, "player_1": -1.0}
    estimators = {
        "grpo": grpo(episodes),
        "dr_grpo": grpo(episodes, "none"),
        "reinforce": reinforce(episodes),
        "gigpo": gigpo(episodes),
        "turn_level": turn_level(episodes),
        "rae": RAEBaseline().advantages(episodes),
        "per_agent_norm": per_agent_norm(episodes),
    }
    for name, rows in estimators.items():
        for e, row in zip(episodes[:3], rows[:3], strict=True):
            for seat, result in seat_returns(e).items():
                total = sum(a for t, a in zip(e.turns, row, strict=True) if t.agent == seat)
                assert (total > 0) == (result > 0), (name, seat, row)
    # grpo by hand: p0 returns 1, -1, 1, 0 (mean 0.25, std sqrt(0.6875)), p1 the negatives.
    s = math.sqrt(0.6875)
    assert estimators["grpo"][1] == approx([[-1.25 / s, 1.25 / s] * 2])[0]


def test_rae_baselines_move_only_for_trained_seats():
    rae = RAEBaseline(decay=0.5)
    frozen_p1 = game(1.0, trainable=(True, False))
    assert rae.advantages([frozen_p1]) == [[1.0, 0.0, 1.0, 0.0]]
    assert set(rae.baselines) == {("ttt", "player_0")}


def test_gigpo_scale_none_leaves_both_levels_undivided():
    a = ep([0, 2], obs=["start", "mid"])
    b = ep([0, 0], obs=["start", "far"])
    # episode level: returns 2, 0 -> +1, -1 undivided; step level at "start": to-go 1, 0
    # (gamma 0.5) -> +0.5, -0.5 undivided.
    assert gigpo([a, b], gamma=0.5, scale="none") == approx([[1.5, 1], [-1.5, -1]])
    assert gigpo([a, b], gamma=0.5, scale="group") == approx([[2, 1], [-2, -1]])


def test_starpo_s_ranks_game_groups_by_each_seats_spread():
    # group 0: p0 always wins (no spread); group 1: p0 wins once, loses once.
    episodes = [game(1.0, 0), game(1.0, 0), game(1.0, 1), game(-1.0, 1)]
    advantages = [[1.0] * 4] * 4  # every group "useful": the ranking decides
    assert select_groups(episodes, advantages, keep_fraction=0.5) == [2, 3]

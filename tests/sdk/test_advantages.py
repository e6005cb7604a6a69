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


# -- wrapper turns (a summary, a memory call): anchors and turn indices follow the env ----

REQUEST = [
    {"role": "user", "content": "the task"},
    {"role": "user", "content": "Your context is full. Write a summary."},
]


def env_turn(obs, reward=0.0, state=None):
    keyed = {} if state is None else {"state_key": state}
    return Turn(obs=obs, reward=reward, info={"wrapper_turn": False}, **keyed)


def summary_turn(state=None):
    """The turn that writes a summary: the wrapper consumed its action."""
    info = {"wrapper_turn": True, "context_event": "summary"}
    keyed = {} if state is None else {"state_key": state}
    return Turn(obs=REQUEST, info=info, **keyed)


def chat(*lines):
    return [{"role": "user", "content": line} for line in ("the task", *lines)]


def test_gigpo_summary_requests_do_not_share_an_anchor_across_env_states():
    """Every summary request reads the same; what the summary is written at is the env
    state the episode is in, here different (s1 vs s2), so no step-level term."""
    a = Episode("x", turns=[env_turn("s0"), summary_turn(), env_turn(chat("sum A\ns1"), 1.0)])
    b = Episode("x", turns=[env_turn("s0"), summary_turn(), env_turn(chat("sum B\ns2"), 0.0)])
    # episode level +-1; "s0" is a shared anchor (to-go 1 vs 0): +-1; nothing else is.
    assert gigpo([a, b], gamma=1.0) == approx([[2, 1, 1], [-2, -1, -1]])


def test_gigpo_anchors_by_env_state_across_a_summary_turn():
    """B wrote a summary before acting from p1, so its env turn from p1 is turn 2 (A's is
    turn 1) and its prompt is the summary; both act from env state p1: one anchor."""
    a = Episode("x", turns=[env_turn("p0 text", 0.0, "p0"), env_turn("p1 text", 1.0, "p1")])
    b = Episode(
        "x",
        turns=[
            env_turn("p0 text", 0.0, "p0"),
            summary_turn("p1"),
            env_turn(chat("summary + p1 text"), 0.0, "p1"),
        ],
    )
    # episode level +-1; (env, p0): to-go 1 vs 0 -> +-1; (env, p1): 1 vs 0 -> +-1; the
    # summary turn's anchor (written at p1) has no peer in the group -> episode level only.
    assert gigpo([a, b], gamma=1.0) == approx([[2, 2], [-2, -1, -2]])


def test_gigpo_wrapper_turns_do_not_discount_the_return_to_go():
    """A summary is no env step: with gamma < 1 it does not push later rewards away."""
    plain = Episode("x", turns=[env_turn("s0", 0.0, "s0"), env_turn("s1", 1.0, "s1")])
    summarised = Episode(
        "x", turns=[env_turn("s0", 0.0, "s0"), summary_turn("s1"), env_turn("s1", 1.0, "s1")]
    )
    failed = Episode("x", turns=[env_turn("s0", 0.0, "s0"), env_turn("s1", 0.0, "s1")])
    got = gigpo([plain, summarised, failed], gamma=0.5)
    # plain and summarised have the same to-go at s0 (0.5) and s1 (1): the same advantages
    assert got[0][0] == pytest.approx(got[1][0]) and got[0][1] == pytest.approx(got[1][2])


def test_turn_level_aligns_env_turns_and_gives_wrapper_turns_the_outcome():
    """MT-GRPO compares the k-th env turns; a summary turn does not shift B's turns."""
    a = Episode("x", turns=[env_turn("s0"), env_turn("s1", 1.0)])
    b = Episode("x", turns=[env_turn("s0"), summary_turn(), env_turn("s1", 0.0)])
    # outcome +-1 everywhere; env turn 0: 0 vs 0 -> 0; env turn 1: 1 vs 0 -> +-1.
    assert turn_level([a, b]) == approx([[1, 2], [-1, -1, -2]])


def test_gigpo_through_summarize_context_anchors_by_the_env_state():
    """Collected through a real SummarizeContext on FrozenLake: two episodes walk the same
    path, one summarising earlier (its actions are padded, so its context fills first).
    Env turns from the same cell share an anchor whatever their turn index; summary
    turns share one only with summary turns written in the same cell."""
    import turngym
    from turngym.agents.base import BaseAgent
    from turngym.sdk.advantages import anchor_groups
    from turngym.sdk.rollout import Collector
    from turngym.wrappers import SummarizeContext

    path = ["right", "right", "down", "down", "down", "right"]

    class Walker(BaseAgent):
        def __init__(self, env, pad):
            self.env, self.pad = env, pad

        def act(self, obs, info):
            if info.get("summary_request") or obs[-1]["content"] == self.env.instruction:
                return f"I walked {info['turn']} steps of the path."
            return path[info["turn"]] + self.pad

    envs = [
        SummarizeContext(turngym.make("turngym/FrozenLake-v0"), budget_tokens=300, max_summaries=9)
        for _ in range(2)
    ]
    pads = {id(envs[0]): "", id(envs[1]): " " * 240}
    episodes = Collector(envs, lambda env: Walker(env, pads[id(env)])).collect(
        2, seed=0, group_size=2
    )
    wrapper_turns = [[t.info.get("wrapper_turn", False) for t in ep.turns] for ep in episodes]
    assert all(ep.success for ep in episodes)
    assert any(wrapper_turns[1]) and wrapper_turns[0] != wrapper_turns[1]
    groups = anchor_groups(episodes)
    where = {place: g for g, places in enumerate(groups) for place in places}
    shifted = 0
    for t, turn in enumerate(episodes[0].turns):
        for u, other in enumerate(episodes[1].turns):
            if wrapper_turns[0][t] or wrapper_turns[1][u]:
                continue
            same = turn.state_key is not None and turn.state_key == other.state_key
            assert (where[0, t] == where[1, u]) == same, (t, u)
            shifted += same and t != u
    assert shifted, "the summary turns never shifted an env turn's index"
    for places in groups:
        kinds = {wrapper_turns[k][t] for k, t in places}
        states = {episodes[k].turns[t].state_key for k, t in places}
        assert len(kinds) == 1 and len(states) == 1, places

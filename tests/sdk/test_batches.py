"""Group selection and training sequences: packing, per-turn samples, overlong episodes."""

from __future__ import annotations

import pytest

from turngym.sdk.advantages import gigpo, grpo, per_agent_norm, reinforce, turn_level
from turngym.sdk.batches import select_groups, training_sequences, without_overlong
from turngym.sdk.records import Episode, Turn


def llm_turn(prompt, action, reward=0.0, agent="agent", trainable=True, **info):
    return Turn(
        prompt_ids=list(prompt),
        action_ids=list(action),
        action_logprobs=[-0.5] * len(action),
        reward=reward,
        agent=agent,
        trainable=trainable,
        info=info,
    )


def chat_episode(group=0, overlong_second=False):
    """Append-only: turn 2's prompt extends turn 1's prompt + action."""
    t1 = llm_turn([1, 2], [7, 8], reward=0.0)
    t2 = llm_turn([1, 2, 7, 8, 3], [9], reward=1.0, overlong=overlong_second)
    return Episode("env", group=group, turns=[t1, t2])


def rebuilt_episode():
    """Not append-only: the second prompt starts over (a summary rebuilt the context)."""
    t1 = llm_turn([1, 2], [7, 8])
    t2 = llm_turn([1, 5], [9], reward=1.0)
    return Episode("env", turns=[t1, t2])


def test_an_append_only_episode_is_one_packed_sequence_with_per_turn_advantages():
    (seq,) = training_sequences([chat_episode()], [[0.5, -2.0]])
    assert seq.packed and seq.input_ids == [1, 2, 7, 8, 3, 9]
    assert seq.loss_mask == [0, 0, 1, 1, 0, 1]
    assert seq.advantages == [0.0, 0.0, 0.5, 0.5, 0.0, -2.0]
    assert seq.old_logprobs == [0.0, 0.0, -0.5, -0.5, 0.0, -0.5]


def test_a_rebuilt_context_gives_one_sequence_per_turn():
    seqs = training_sequences([rebuilt_episode()], [[0.5, -2.0]])
    assert [s.packed for s in seqs] == [False, False]
    assert [s.input_ids for s in seqs] == [[1, 2, 7, 8], [1, 5, 9]]
    assert [s.advantages for s in seqs] == [[0, 0, 0.5, 0.5], [0, 0, -2.0]]


def test_an_overlong_episode_trains_no_token_in_any_turn():
    """SUPO masks the whole overlong rollout, not only the turn that ran out of room."""
    rebuilt = rebuilt_episode()
    rebuilt.turns[-1].info["overlong"] = True
    for episode in (chat_episode(overlong_second=True), rebuilt):
        seqs = training_sequences([episode], [[0.5, -2.0]])
        assert seqs and all(not any(s.loss_mask) for s in seqs)
        assert all(a == 0.0 for s in seqs for a in s.advantages)
    (seq,) = training_sequences([chat_episode()], [[0.5, -2.0]])  # not overlong: trains
    assert seq.loss_mask == [0, 0, 1, 1, 0, 1]


@pytest.mark.parametrize("estimator", [grpo, reinforce, gigpo, turn_level, per_agent_norm])
def test_an_overlong_episode_is_left_out_of_every_baseline(estimator):
    """The others' advantages are those of the batch without it; its own are 0."""
    batch = [chat_episode(group=0), chat_episode(group=0), chat_episode(group=1)]
    batch[1].turns[0].reward = 3.0
    batch[2].turns[1].reward = -1.0
    overlong = chat_episode(group=0, overlong_second=True)
    overlong.turns[1].reward = -5.0
    with_it = without_overlong(estimator, [batch[0], overlong, batch[1], batch[2]])
    assert with_it[1] == [0.0, 0.0]
    assert [with_it[0], with_it[2], with_it[3]] == estimator(batch)
    assert without_overlong(estimator, batch) == estimator(batch)


def test_opponents_and_scripted_turns_are_not_trained():
    learner = llm_turn([1], [4], agent="player_0")
    opponent = Turn(action="b2", agent="player_1")  # a scripted expert: no tokens
    frozen = llm_turn([1, 4, 2], [5], agent="player_0", trainable=False)
    ep = Episode("ttt", turns=[learner, opponent, frozen])
    (seq,) = training_sequences([ep], [[1.0, 9.0, 3.0]])
    assert seq.input_ids == [1, 4, 2, 5] and seq.loss_mask == [0, 1, 0, 0]
    assert seq.advantages == [0.0, 1.0, 0.0, 0.0]


def test_select_groups_drops_zero_advantage_groups_and_keeps_the_most_varied():
    eps = [chat_episode(group=g) for g in (0, 0, 1, 1, 2, 2)]
    eps[0].turns[1].reward = 5.0  # group 0: returns 5 and 1 (spread 4)
    eps[4].turns[1].reward = 2.0  # group 2: returns 2 and 1 (spread 0.25)
    adv = [[1, 1], [-1, -1], [0, 0], [0, 0], [1, 1], [-1, -1]]  # group 1 teaches nothing
    assert select_groups(eps, adv) == [0, 1, 4, 5]
    assert select_groups(eps, adv, keep_fraction=0.5) == [0, 1]
    with pytest.raises(ValueError, match="keep_fraction"):
        select_groups(eps, adv, keep_fraction=0)


def test_advantages_must_match_the_turns():
    with pytest.raises(ValueError, match="2 turns but 1 advantages"):
        training_sequences([chat_episode()], [[1.0]])


def guided_turn(prompt, action, candidates, reward=0.0):
    turn = llm_turn(prompt, action, reward=reward)
    turn.candidates = list(candidates)
    turn.constrained = True
    return turn


CHOICES = {"left": [10, 11, 0], "lift": [10, 12, 0], "up": [13, 0]}


def choice_ids(candidates):
    return [CHOICES[c] for c in candidates]


def test_guided_turns_carry_the_allowed_tokens_and_mask_forced_ones():
    turn = guided_turn([1, 2], [10, 12, 0], ["left", "lift", "up"], reward=1.0)
    (seq,) = training_sequences([Episode("env", turns=[turn])], [[1.0]], choices=choice_ids)
    assert seq.input_ids == [1, 2, 10, 12, 0]
    # 10 and 12 were decisions; the end token 0 was forced, so it is not trained
    assert seq.loss_mask == [0, 0, 1, 1, 0]
    assert seq.allowed == [(2, [10, 13]), (3, [11, 12])]
    assert seq.advantages == [0.0, 0.0, 1.0, 1.0, 0.0]


def test_guided_turns_need_choices():
    turn = guided_turn([1, 2], [13, 0], ["left", "up"])
    with pytest.raises(ValueError, match="choices="):
        training_sequences([Episode("env", turns=[turn])], [[1.0]])

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from turngym.sdk.records import Episode, Turn, load_jsonl, save_jsonl

# A hand-built chat: prompts are ids, each prompt extends the last prompt + action.
P0 = [1, 2, 3]
A0 = [10, 11]
P1 = [*P0, *A0, 4, 5]
A1 = [12]
P2 = [*P1, *A1, 6]
A2 = [13, 14, 15]


def _chat_episode(trainable: bool = True) -> Episode:
    turns = [
        Turn(
            obs=f"obs {k}",
            prompt_ids=p,
            action_ids=a,
            action_logprobs=[-0.5] * len(a),
            action=f"act {k}",
            reward=float(k),
            trainable=trainable,
        )
        for k, (p, a) in enumerate([(P0, A0), (P1, A1), (P2, A2)])
    ]
    turns[-1].terminated = True
    return Episode("toy/Chat-v0", seed=3, turns=turns, final_obs={"agent": "the end"})


def _broken_episode() -> Episode:
    ep = _chat_episode()
    ep.turns[1].prompt_ids = [1, 2, 99, 4]  # a context wrapper rebuilt the prompt
    return ep


def _game_episode() -> Episode:
    """Self-play: one LLM on both seats, each seat its own append-only chat."""
    turns = [
        Turn(obs="x0", prompt_ids=[1], action_ids=[7], agent="player_0", trainable=True),
        Turn(obs="o0", prompt_ids=[2], action_ids=[8], agent="player_1", trainable=True),
        Turn(obs="x1", prompt_ids=[1, 7, 3], action_ids=[9], agent="player_0", trainable=True),
        Turn(
            obs="o1",
            prompt_ids=[2, 8, 4],
            action_ids=[5],
            agent="player_1",
            reward=-1.0,
            trainable=True,
            terminated=True,
        ),
    ]
    turns[2].reward, turns[2].terminated = 1.0, True
    return Episode(
        "turngym/TicTacToe-v0",
        seed=0,
        turns=turns,
        final_obs={"player_0": "you won", "player_1": "you lost"},
    )


def test_turn_defaults_suit_scripted_agents():
    turn = Turn(obs="start", action="left")
    assert turn.prompt_ids == [] and turn.action_ids == [] and turn.action_logprobs == []
    assert not turn.trainable and turn.agent == "agent" and not turn.done
    assert Turn().prompt_ids is not Turn().prompt_ids  # no shared mutable defaults


def test_returns_default_to_the_sum_of_turn_rewards():
    ep = _game_episode()
    assert ep.returns == {"player_0": 1.0, "player_1": -1.0}
    assert ep.agents == ["player_0", "player_1"] and ep.length == 4


def test_samples_one_sequence_per_trainable_turn():
    samples = _chat_episode().samples()
    assert [s.turn for s in samples] == [0, 1, 2]
    for s, (p, a) in zip(samples, [(P0, A0), (P1, A1), (P2, A2)], strict=True):
        assert s.input_ids == p + a
        assert s.loss_mask == [0] * len(p) + [1] * len(a)
        assert s.logprobs == [0.0] * len(p) + [-0.5] * len(a)
    assert [s.reward for s in samples] == [0.0, 1.0, 2.0]


def test_samples_skip_untrainable_turns_and_filter_by_agent():
    ep = _game_episode()
    ep.turns[1].trainable = False  # a frozen opponent's turn
    assert [s.turn for s in ep.samples()] == [0, 2, 3]
    assert [s.turn for s in ep.samples("player_1")] == [3]
    assert _chat_episode(trainable=False).samples() == []
    with pytest.raises(ValueError, match="no turns of agent"):
        ep.samples("player_7")


def test_samples_refuse_trainable_turns_without_tokens():
    ep = Episode("x", turns=[Turn(obs="o", action="a", trainable=True)])
    with pytest.raises(ValueError, match="no action_ids"):
        ep.samples()


def test_samples_without_logprobs_leave_them_empty():
    ep = _chat_episode()
    for t in ep.turns:
        t.action_logprobs = []
    assert all(s.logprobs == [] for s in ep.samples())


def test_packed_append_only_conversation():
    ep = _chat_episode()
    assert ep.is_append_only()
    packed = ep.packed()
    assert packed.input_ids == P2 + A2
    mask = [0] * len(packed.input_ids)
    for p, a in [(P0, A0), (P1, A1), (P2, A2)]:
        mask[len(p) : len(p) + len(a)] = [1] * len(a)
    assert packed.loss_mask == mask
    # every unmasked token is an action token, every env token is masked
    assert [t for t, m in zip(packed.input_ids, packed.loss_mask, strict=True) if m] == (
        A0 + A1 + A2
    )
    assert packed.action_spans == [(3, 5), (7, 8), (9, 12)]
    assert [packed.input_ids[s:e] for s, e in packed.action_spans] == [A0, A1, A2]
    assert packed.logprobs[3:5] == [-0.5, -0.5] and packed.logprobs[0] == 0.0
    assert packed.rewards == [0.0, 1.0, 2.0] and packed.turns == [0, 1, 2]


def test_packed_masks_untrainable_actions():
    ep = _chat_episode()
    ep.turns[1].trainable = False
    packed = ep.packed()
    assert packed.loss_mask[7] == 0 and packed.loss_mask[3] == 1


def test_packed_refuses_a_rebuilt_conversation():
    ep = _broken_episode()
    assert not ep.is_append_only()
    with pytest.raises(ValueError, match=r"not append-only.*differ at token 2.*samples"):
        ep.packed()
    assert len(ep.samples()) == 3  # the per-turn view still works


def test_packed_needs_one_conversation():
    ep = _game_episode()
    assert not ep.is_append_only()  # two seats' chats interleave
    with pytest.raises(ValueError, match="pass agent="):
        ep.packed()
    assert ep.is_append_only("player_0") and ep.is_append_only("player_1")
    assert ep.packed("player_0").input_ids == [1, 7, 3, 9]
    assert ep.packed("player_1").input_ids == [2, 8, 4, 5]
    assert ep.packed("player_1").loss_mask == [0, 1, 0, 1]
    scripted = Episode("x", turns=[Turn(obs="o", action="a")])
    with pytest.raises(ValueError, match="no turn has token ids"):
        scripted.packed()


def test_transitions_single_agent():
    trs = _chat_episode().transitions()
    assert [(t.obs, t.action, t.reward, t.next_obs, t.done) for t in trs] == [
        ("obs 0", "act 0", 0.0, "obs 1", False),
        ("obs 1", "act 1", 1.0, "obs 2", False),
        ("obs 2", "act 2", 2.0, "the end", True),
    ]
    assert trs[-1].terminated


def test_transitions_chain_each_seat_of_a_game():
    trs = _game_episode().transitions()
    assert [(t.agent, t.obs, t.next_obs, t.done) for t in trs] == [
        ("player_0", "x0", "x1", False),
        ("player_1", "o0", "o1", False),
        ("player_0", "x1", "you won", True),
        ("player_1", "o1", "you lost", True),
    ]
    assert [t.turn for t in _game_episode().transitions("player_1")] == [1, 3]


def test_truncated_transitions_do_not_claim_termination():
    ep = _chat_episode()
    ep.turns[-1].terminated, ep.turns[-1].truncated = False, True
    last = ep.transitions()[-1]
    assert last.done and not last.terminated


def test_dict_round_trip_with_numpy_and_nan():
    ep = _game_episode()
    ep.turns[0].obs = {"text": "x0", "action_mask": np.array([1, 0, 1], dtype=np.int8)}
    ep.turns[0].info = {"legal_actions": ["a1", "b1"], "reward_parts": {"win": np.float32(1)}}
    ep.turns[1].action_logprobs = [math.nan]
    ep.meta = {"seats": {"player_0": "LLMAgent"}}
    data = json.loads(json.dumps(ep.to_dict()))
    back = Episode.from_dict(data)
    assert back.turns[0].obs == {"text": "x0", "action_mask": [1, 0, 1]}
    assert back.turns[0].info["reward_parts"] == {"win": 1.0}
    assert math.isnan(back.turns[1].action_logprobs[0])
    back.turns[0].obs, back.turns[1].action_logprobs = ep.turns[0].obs, ep.turns[1].action_logprobs
    back.turns[0].info = ep.turns[0].info
    assert back == ep


def test_from_dict_rejects_unknown_fields():
    data = _chat_episode().to_dict()
    data["turns"][0]["colour"] = "red"
    with pytest.raises(ValueError, match=r"unknown Turn fields.*colour"):
        Episode.from_dict(data)
    data = _chat_episode().to_dict()
    data["shape"] = 1
    with pytest.raises(ValueError, match="unknown Episode fields"):
        Episode.from_dict(data)


def test_jsonl_round_trip(tmp_path):
    episodes = [_chat_episode(), _broken_episode(), _game_episode()]
    path = tmp_path / "rollouts.jsonl"
    assert save_jsonl(episodes, path) == 3
    assert load_jsonl(path) == episodes
    assert load_jsonl(path)[2].packed("player_0").input_ids == [1, 7, 3, 9]


def test_load_jsonl_names_the_bad_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(_chat_episode().to_dict()) + "\n" + '{"turns": 3}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not an episode record"):
        load_jsonl(path)

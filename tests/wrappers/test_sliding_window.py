"""SlidingWindow (DeepMiner): placeholders for old outputs, the agent's turns kept."""

from __future__ import annotations

import tempfile

import pytest

import turngym
from tests.toy_envs import LongWalk
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.chat_history import ChatHistory
from turngym.wrappers.sliding_window import PLACEHOLDER, SlidingWindow

ENVS = [
    "turngym/FrozenLake-v0",
    "turngym/Sokoban-v0",
    "turngym/Maze-v0",
    "turngym/TextNav-v0",
    "turngym/Countdown-v0",
    "turngym/Taxi-v0",
]


@pytest.mark.parametrize("env_id", ENVS)
def test_only_the_last_outputs_are_shown_in_full(env_id):
    plain, env = turngym.make(env_id), SlidingWindow(turngym.make(env_id), keep_last=2)
    expert = make_expert(plain, env_id)
    expert.reset(seed=0)
    obs_p, info_p = plain.reset(seed=0)
    task = obs_p
    messages, _ = env.reset(seed=0)
    outputs, actions, done = [], [], False
    while not done:
        action = expert.act(obs_p, info_p)
        obs_p, r_p, term, trunc, info_p = plain.step(action)
        messages, r, term_w, trunc_w, info = env.step(action)
        assert (r, term_w, trunc_w) == (r_p, term, trunc)
        outputs.append(obs_p)
        actions.append(action)
        assert messages[0]["content"] == task
        shown = [m["content"] for m in messages[1:] if m["role"] == "user"]
        hidden = max(0, len(outputs) - 2)
        assert shown == [PLACEHOLDER] * hidden + outputs[hidden:]
        assert [m["content"] for m in messages if m["role"] == "assistant"] == actions
        assert info["context_event"] == ("evict" if len(outputs) > 2 else None)
        done = term or trunc
    assert info["segment"] == max(0, len(outputs) - 2)


@pytest.mark.parametrize("env_id", ENVS[:5])
def test_conformance_with_the_wrapper(env_id):
    check_text_env(
        lambda: SlidingWindow(turngym.make(env_id), keep_last=2),
        n_fuzz=1000,
        reset_episodes=5,
        expert=lambda env: make_expert(env, env_id),
    )


def test_over_a_chat_history_it_keeps_the_system_message_and_task():
    env = SlidingWindow(ChatHistory(LongWalk(), system="Walk."), keep_last=1)
    messages, _ = env.reset(seed=0)
    for _ in range(5):
        messages, *_ = env.step("right")
    assert messages[0] == {"role": "system", "content": "Walk."}
    assert messages[1]["content"].startswith("Walk the corridor")
    assert [m["content"] for m in messages[2:-1:2]] == ["right"] * 5
    assert [m["content"] for m in messages[3::2]][:4] == [PLACEHOLDER] * 4
    assert messages[-1]["content"].startswith("Step 5:")


def test_a_200_turn_episode_stays_within_its_bound():
    pytest.importorskip("transformers", reason="needs transformers for a real tokenizer")
    from transformers import AutoTokenizer

    from turngym.sdk.models import build_tiny_model

    tok = AutoTokenizer.from_pretrained(build_tiny_model(tempfile.mkdtemp()))

    def count(messages):
        return len(tok.apply_chat_template(list(messages), return_dict=False))

    # The window bounds the outputs; ChatHistory's max_turns bounds the agent's turns.
    env = SlidingWindow(LongWalk(), keep_last=3, max_turns=40)
    messages, _ = env.reset(seed=0)
    longest = "Step 200: you are at 200. You see " + " ".join(["tiles"] * 59) + "."
    slot = count(
        [{"role": "assistant", "content": "right"}, {"role": "user", "content": PLACEHOLDER}]
    )
    bound = count(messages) + 3 * count([{"role": "user", "content": longest}]) + 40 * slot
    sizes = []
    for _ in range(200):
        messages, _, terminated, truncated, _ = env.step("right")
        assert not (terminated or truncated)
        sizes.append(count(messages))
    assert max(sizes) <= bound, (max(sizes), bound)
    assert max(sizes[100:]) <= max(sizes[50:100]) + count([{"role": "user", "content": longest}])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"keep_last": 0}, "keep_last must be an int >= 1"),
        ({"placeholder": None}, "placeholder must be a string"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SlidingWindow(turngym.make("turngym/FrozenLake-v0"), **kwargs)


def test_chat_options_cannot_be_given_twice():
    with pytest.raises(ValueError, match="belong to the ChatHistory already there"):
        SlidingWindow(ChatHistory(LongWalk()), system="again")


@pytest.mark.filterwarnings("ignore:.*(NumPy array|all zeros).*:UserWarning")  # api_test
@pytest.mark.parametrize("game_id", ["turngym/ConnectFour-v0", "turngym/KuhnPoker-v0"])
def test_games_window_each_players_conversation(game_id):
    from pettingzoo.test import api_test

    from turngym.wrappers.sliding_window import SlidingWindowGame

    kwargs = {"rounds": 3} if "Kuhn" in game_id else {}  # a few turns per player
    api_test(SlidingWindowGame(turngym.make_game(game_id, **kwargs)), num_cycles=10)
    game = SlidingWindowGame(turngym.make_game(game_id, **kwargs), keep_last=1)
    game.reset(seed=0)
    seen = dict.fromkeys(game.possible_agents, 0)
    for agent in game.agent_iter(60):
        obs, _, terminated, truncated, info = game.last()
        messages = obs["messages"]
        users = [m["content"] for m in messages[1:] if m["role"] == "user"]
        assert users[:-1] == [PLACEHOLDER] * (len(users) - 1)  # only the latest in full
        assert messages[-1]["content"] == game.unwrapped.observe(agent)["text"]
        seen[agent] = max(seen[agent], len(users))
        if terminated or truncated:
            game.step(None)
            continue
        game.step(info["legal_actions"][0])
    assert max(seen.values()) >= 2


def test_games_report_each_players_evictions_in_its_infos():
    """Issue 26, item 6: a player's segment goes up exactly when an output leaves its window."""
    from tests.wrappers.game_segments import play_checking_segments
    from turngym.wrappers.sliding_window import SlidingWindowGame

    game = SlidingWindowGame(turngym.make_game("turngym/ConnectFour-v0"), keep_last=2)
    events = play_checking_segments(game, 0, lambda agent, obs, info: info["legal_actions"][-1])
    assert set(events) == {"evict"} and events["evict"] >= 4

"""ChatHistory and ChatHistoryGame: conversations, eviction, clean resets, games."""

from __future__ import annotations

import pytest
from pettingzoo.test import api_test

import turngym
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.chat_history import ChatHistory, ChatHistoryGame, ChatLog

ENVS = [
    "turngym/FrozenLake-v0",
    "turngym/Sokoban-v0",
    "turngym/Maze-v0",
    "turngym/TextNav-v0",
    "turngym/Countdown-v0",
    "turngym/Taxi-v0",
]


@pytest.mark.parametrize("env_id", ENVS)
def test_the_conversation_is_every_observation_and_action(env_id):
    plain, env = turngym.make(env_id), ChatHistory(turngym.make(env_id), system="Play.")
    expert = make_expert(plain, env_id)
    for seed in range(2):
        expert.reset(seed=seed)
        obs_p, info_p = plain.reset(seed=seed)
        messages, info = env.reset(seed=seed)
        want = [{"role": "system", "content": "Play."}, {"role": "user", "content": obs_p}]
        assert messages == want and info["segment"] == 0
        done = False
        while not done:
            action = expert.act(obs_p, info_p)
            obs_p, r_p, term, trunc, info_p = plain.step(action)
            messages, r, term_w, trunc_w, info = env.step(action)
            want += [{"role": "assistant", "content": action}, {"role": "user", "content": obs_p}]
            assert messages == want and (r, term_w, trunc_w) == (r_p, term, trunc)
            assert info["context_event"] is None
            done = term or trunc
        assert env.observation_space.contains(messages)


@pytest.mark.parametrize("env_id", ENVS[:5])
def test_conformance_with_the_wrapper(env_id):
    check_text_env(
        lambda: ChatHistory(turngym.make(env_id)),
        n_fuzz=1000,
        reset_episodes=5,
        expert=lambda env: make_expert(env, env_id),
    )


def test_max_turns_evicts_the_oldest_exchanges_and_reset_starts_clean():
    env = ChatHistory(turngym.make("turngym/FrozenLake-v0", size=8), max_turns=2)
    env.reset(seed=1)
    events = []
    for action in ["left", "up", "left", "up"]:  # bumping walls: four exchanges
        messages, *_, info = env.step(action)
        events.append((info["context_event"], info["segment"]))
    assert events == [(None, 0), (None, 0), ("evict", 1), ("evict", 2)]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert [m["content"] for m in messages if m["role"] == "assistant"] == ["left", "up"]
    fresh, info = env.reset(seed=1)
    assert len(fresh) == 1 and info["segment"] == 0


def test_non_string_actions_are_recorded_not_raised():
    env = ChatHistory(turngym.make("turngym/FrozenLake-v0"))
    env.reset(seed=0)
    messages, *_, info = env.step(3)
    assert info["invalid_action"] and messages[1] == {"role": "assistant", "content": "3"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"system": 3}, "system must be a string"), ({"max_turns": 0}, "max_turns must be an int")],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ChatHistory(turngym.make("turngym/FrozenLake-v0"), **kwargs)


def test_chat_log_refresh_replaces_the_unanswered_observation():
    log = ChatLog()
    log.start("task")
    log.refresh("task, updated")
    log.add("a1", "o1")
    log.refresh("o1, updated")
    assert [m["content"] for m in log.messages] == ["task, updated", "a1", "o1, updated"]


@pytest.mark.filterwarnings("ignore:.*(NumPy array|all zeros).*:UserWarning")  # api_test on dicts
@pytest.mark.parametrize("game_id", ["turngym/TicTacToe-v0", "turngym/KuhnPoker-v0"])
def test_games_give_each_player_its_own_conversation(game_id):
    game = ChatHistoryGame(turngym.make_game(game_id), system="Win.")
    api_test(game, num_cycles=20)
    game.reset(seed=3)
    plays: dict[str, list[str]] = {a: [] for a in game.possible_agents}
    for agent in game.agent_iter(200):
        obs, _, terminated, truncated, info = game.last()
        messages = obs["messages"]
        assert messages[0] == {"role": "system", "content": "Win."}
        assert [m["content"] for m in messages if m["role"] == "assistant"] == plays[agent]
        assert messages[-1]["content"] == game.unwrapped.observe(agent)["text"]
        if terminated or truncated:
            game.step(None)
            continue
        action = info["legal_actions"][0]
        plays[agent].append(action)
        assert obs["action_mask"].sum() == len(info["legal_actions"])
        game.step(action)
    game.reset(seed=3)
    assert len(game.observe(game.agent_selection)["messages"]) == 2  # system + the rules


def test_the_guides_wrappers_block_runs(capsys):
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs/guide/wrappers.md").read_text()
    section = readme.split("# Wrappers", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "docs/guide/wrappers.md", "exec"), {})
    out = capsys.readouterr().out
    assert "You moved down." in out and out.rstrip().endswith("False")


def test_games_report_each_players_evictions_in_its_infos():
    """Issue 26, item 6: a player's segment goes up exactly when its old turns are dropped."""
    from tests.wrappers.game_segments import play_checking_segments

    game = ChatHistoryGame(turngym.make_game("turngym/ConnectFour-v0"), max_turns=2)
    events = play_checking_segments(game, 0, lambda agent, obs, info: info["legal_actions"][0])
    assert set(events) == {"evict"} and events["evict"] >= 4

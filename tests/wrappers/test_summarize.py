"""SummarizeContext (SUPO): summary turns, the token budget, overlong truncation."""

from __future__ import annotations

import tempfile

import pytest

import turngym
from tests.toy_envs import LongWalk
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.summarize import SUMMARY_HEADER, SummarizeContext, approx_tokens

ENVS = [
    "turngym/FrozenLake-v0",
    "turngym/Wordle-v0",
    "turngym/Sokoban-v0",
    "turngym/Maze-v0",
    "turngym/TextNav-v0",
    "turngym/TextCraft-v0",
]


def play(env, plain, expert, seed, summary="I am working on it."):
    """The expert plays ``env`` and ``plain`` side by side, writing ``summary`` when asked."""
    expert.reset(seed=seed)
    obs, info = env.reset(seed=seed)
    obs_p, info_p = plain.reset(seed=seed)
    assert obs[-1]["content"] == obs_p
    ret = ret_p = 0.0
    summaries = 0
    while True:
        if info.get("summary_request"):
            obs, reward, terminated, truncated, info = env.step(summary)
            assert info["wrapper_turn"] and reward == 0.0 and info["context_event"] == "summary"
            assert SUMMARY_HEADER in obs[-1]["content"] and obs[-1]["content"].endswith(obs_p)
            summaries += 1
            continue
        action = expert.act(obs_p, info_p)
        obs, reward, terminated, truncated, info = env.step(action)
        obs_p, reward_p, terminated_p, _, info_p = plain.step(action)
        assert reward == reward_p and terminated == terminated_p
        assert not info["wrapper_turn"]
        ret, ret_p = ret + float(reward), ret_p + float(reward_p)
        if terminated or truncated:
            return ret, ret_p, info, info_p, summaries


@pytest.mark.parametrize("env_id", ENVS)
def test_summaries_never_reach_the_env(env_id):
    plain = turngym.make(env_id)
    task = plain.reset(seed=0)[0]
    budget = approx_tokens([{"role": "user", "content": task}]) + 80  # room for a few turns
    env = SummarizeContext(turngym.make(env_id), budget_tokens=budget, max_summaries=50)
    expert = make_expert(plain, env_id)
    total = 0
    for seed in range(2):
        ret, ret_p, info, info_p, summaries = play(env, plain, expert, seed)
        assert ret == ret_p and info.get("success") == info_p.get("success")
        total += summaries
    assert total >= 1


@pytest.mark.parametrize("env_id", ENVS[:5])
def test_conformance_with_the_wrapper(env_id):
    check_text_env(
        lambda: SummarizeContext(turngym.make(env_id), budget_tokens=600, max_summaries=20),
        n_fuzz=1000,
        reset_episodes=5,
        expert=lambda env: make_expert(env, env_id),
    )


def real_counter():
    pytest.importorskip("transformers", reason="needs transformers for a real tokenizer")
    from transformers import AutoTokenizer

    from turngym.sdk.models import build_tiny_model

    tok = AutoTokenizer.from_pretrained(build_tiny_model(tempfile.mkdtemp()))

    def count(messages):
        return len(tok.apply_chat_template(list(messages), return_dict=False))

    return count


def test_a_200_turn_episode_never_passes_the_budget():
    count = real_counter()
    budget = 600
    env = SummarizeContext(LongWalk(), budget_tokens=budget, count_tokens=count, max_summaries=500)
    obs, info = env.reset(seed=0)
    sizes, turns = [count(obs)], 0
    while turns < 200:
        if info.get("summary_request"):
            note = " ".join(["walked right"] * 80)  # a summary too long for its room
            obs, _, terminated, truncated, info = env.step(note)
        else:
            obs, _, terminated, truncated, info = env.step("right")
            turns += 1
        assert not (terminated or truncated)
        sizes.append(count(obs))
    assert max(sizes) <= budget, max(sizes)
    assert env.summaries >= 5 and info["segment"] == env.summaries


def test_after_max_summaries_the_episode_is_truncated_as_overlong():
    env = SummarizeContext(LongWalk(), budget_tokens=300, max_summaries=1)
    _, info = env.reset(seed=0)
    truncated, steps = False, 0
    while not truncated:
        action = "short summary" if info.get("summary_request") else "left"
        _, _, terminated, truncated, info = env.step(action)
        steps += 1
        assert not terminated and steps < 100
    assert info["overlong"] and env.summaries == 1


def test_a_summarizer_callable_summarises_without_asking():
    seen = []

    def summarizer(messages):
        seen.append(len(messages))
        return f"{len(messages)} messages so far"

    env = SummarizeContext(LongWalk(), budget_tokens=300, summarizer=summarizer, max_summaries=99)
    env.reset(seed=0)
    events = []
    for _ in range(60):
        obs, _, _, _, info = env.step("right")
        assert not info["wrapper_turn"] and not info.get("summary_request")
        events.append(info["context_event"])
        assert approx_tokens(obs) <= 300
    assert "summary" in events and seen and env.summaries == events.count("summary")


def test_reset_starts_clean_and_the_system_message_stays_first():
    env = SummarizeContext(LongWalk(), budget_tokens=300, system="Be brief.")
    obs, _ = env.reset(seed=0)
    assert [m["role"] for m in obs] == ["system", "user"]
    for _ in range(30):
        action = "ok" if env._awaiting else "right"
        obs, *_ = env.step(action)
        assert obs[0] == {"role": "system", "content": "Be brief."}
    fresh, info = env.reset(seed=0)
    assert len(fresh) == 2 and info["segment"] == 0 and env.summaries == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"budget_tokens": 8}, "budget_tokens must be an int >= 32"),
        ({"budget_tokens": 100.0}, "budget_tokens must be an int >= 32"),
        ({"budget_tokens": 100, "summarizer": "other"}, "summarizer must be 'self' or a callable"),
        ({"budget_tokens": 100, "max_summaries": -1}, "max_summaries must be an int >= 0"),
        ({"budget_tokens": 100, "count_tokens": 3}, "count_tokens must be a callable"),
        ({"budget_tokens": 100, "instruction": " "}, "instruction must be a non-empty string"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SummarizeContext(turngym.make("turngym/FrozenLake-v0"), **kwargs)


def test_a_task_over_the_budget_is_a_clear_error():
    env = SummarizeContext(turngym.make("turngym/Sokoban-v0"), budget_tokens=32)
    with pytest.raises(ValueError, match="the task alone takes"):
        env.reset(seed=0)


def test_a_non_text_summary_is_invalid_and_asked_again():
    env = SummarizeContext(LongWalk(), budget_tokens=200, max_summaries=5)
    _, info = env.reset(seed=0)
    while not info.get("summary_request"):
        _, _, _, _, info = env.step("right")
    obs, reward, terminated, truncated, info = env.step(None)
    assert reward == 0.0
    assert info["invalid_action"] and info["summary_request"] and info["wrapper_turn"]
    assert obs[-1]["content"] == env.instruction and not (terminated or truncated)
    obs, *_, info = env.step("went right a lot")
    assert info["context_event"] == "summary" and "went right a lot" in obs[-1]["content"]


@pytest.mark.filterwarnings("ignore:.*(NumPy array|all zeros).*:UserWarning")  # api_test
@pytest.mark.parametrize("game_id", ["turngym/ConnectFour-v0", "turngym/KuhnPoker-v0"])
def test_games_keep_each_players_conversation_in_budget(game_id):
    from pettingzoo.test import api_test

    from turngym.wrappers.summarize import SummarizeContextGame

    kwargs = {"rounds": 6} if "Kuhn" in game_id else {}
    budget = 700
    api_test(SummarizeContextGame(turngym.make_game(game_id, **kwargs), budget), num_cycles=10)
    plain = turngym.make_game(game_id, **kwargs)
    game = SummarizeContextGame(turngym.make_game(game_id, **kwargs), budget, max_summaries=50)
    plain.reset(seed=1)
    game.reset(seed=1)
    totals = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter(500):
        obs, reward, terminated, truncated, info = game.last()
        totals[agent] += reward
        assert approx_tokens(obs["messages"]) <= budget
        if terminated or truncated:
            game.step(None)
            continue
        if obs["messages"][-1]["content"] == game._core.instruction:
            game.step(f"{agent} summary: playing the first legal move each time")
            assert game.infos[agent]["context_event"] == "summary"
            assert game.agent_selection == agent
            continue
        assert obs["messages"][-1]["content"] == plain.observe(agent)["text"]
        move = info["legal_actions"][0]
        game.step(move)
        plain.step(move)
    assert sum(game.summaries.values()) >= 1
    assert [totals[a] for a in game.possible_agents] == plain.returns


def test_games_report_each_players_summaries_and_evictions_in_its_infos():
    """Issue 26, item 6: summaries and cuts are each player's own context events.

    A summary request says so in the player's infos; the summary is a wrapper turn; once
    the player's summaries are spent, dropped turns are evictions.
    """
    from tests.wrappers.game_segments import play_checking_segments
    from turngym.wrappers.summarize import SummarizeContextGame

    game = SummarizeContextGame(turngym.make_game("turngym/ConnectFour-v0"), 700, max_summaries=1)
    requests, summarised = [], set()

    def act(agent, obs, info):
        # the summary was a wrapper turn; the next move is the game's again
        assert bool(info.get("wrapper_turn")) == (agent in summarised)
        summarised.discard(agent)
        if info.get("summary_request"):
            assert obs["messages"][-1]["content"] == game._core.instruction
            requests.append(agent)
            summarised.add(agent)
            return f"{agent} plays the first legal move"
        return info["legal_actions"][0]

    events = play_checking_segments(game, 0, act)
    assert events["summary"] == len(requests) == 2 and events["evict"] >= 1
    assert set(events) == {"summary", "evict"}

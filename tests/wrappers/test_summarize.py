"""SummarizeContext (SUPO): summary turns, the token budget, overlong truncation."""

from __future__ import annotations

import tempfile

import pytest

import turngym
from tests.toy_envs import LongWalk
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.summarize import (
    CUT,
    DEFAULT_INSTRUCTION,
    SUMMARY_HEADER,
    SummarizeContext,
    approx_tokens,
    chat_token_counter,
)

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
    expert = make_expert(plain, env_id)
    task, info = plain.reset(seed=0)
    expert.reset(seed=0)
    action = expert.act(task, info)
    step = approx_tokens([{"role": "user", "content": plain.step(action)[0]}]) + 12
    request = {"role": "user", "content": DEFAULT_INSTRUCTION}
    # Room for the summary, the latest observation and an exchange or two: summaries come often.
    budget = approx_tokens([{"role": "user", "content": task}, request]) + 3 * step
    env = SummarizeContext(turngym.make(env_id), budget_tokens=budget, max_summaries=50)
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


@pytest.fixture(scope="module")
def tokenizer():
    pytest.importorskip("transformers", reason="needs transformers for a real tokenizer")
    from transformers import AutoTokenizer

    from turngym.sdk.models import build_tiny_model

    return AutoTokenizer.from_pretrained(build_tiny_model(tempfile.mkdtemp()))


def walk_to_request(env, info, action="right"):
    """Step ``env`` with ``action`` until it asks for a summary; the request."""
    for _ in range(200):
        obs, _, terminated, truncated, info = env.step(action)
        assert not (terminated or truncated)
        if info.get("summary_request"):
            return obs
    raise AssertionError("no summary request in 200 steps")


def test_a_200_turn_episode_never_passes_the_budget_and_no_request_drops_a_turn(tokenizer):
    """Counted with the tiny model's chat template: every context fits, every request
    holds the whole conversation since the summary, and nothing is ever evicted."""
    count = chat_token_counter(tokenizer)
    budget = 300
    env = SummarizeContext(LongWalk(), budget_tokens=budget, count_tokens=count, max_summaries=500)
    obs, info = env.reset(seed=0)
    sizes, events, turns, previous = [count(obs)], [], 0, obs
    while turns < 200:
        if info.get("summary_request"):
            assert obs[: len(previous)] == previous  # the context so far, then the latest turn
            assert obs[-1]["content"] == env.instruction and obs[0] == previous[0]
            note = " ".join(["walked right"] * 80)  # a summary too long for its room
            obs, _, terminated, truncated, info = env.step(note)
            assert obs[1]["content"].startswith(f"{SUMMARY_HEADER}\nwalked right walked")
        else:
            previous = obs
            obs, _, terminated, truncated, info = env.step("right")
            turns += 1
        assert not (terminated or truncated)
        sizes.append(count(obs))
        events.append(info["context_event"])
    assert max(sizes) <= budget, max(sizes)
    assert "evict" not in events and env.summaries >= 5 and info["segment"] == env.summaries


def test_the_second_summary_request_holds_the_first_summary():
    """SUPO: the task and the latest summary are pinned, so each summary builds on the last."""
    env = SummarizeContext(LongWalk(), budget_tokens=400, max_summaries=5)
    obs, info = env.reset(seed=0)
    task = obs[0]
    walk_to_request(env, info)
    first = "FIRST SUMMARY: I said right every turn; the corridor is long."
    obs, _, _, _, info = env.step(first)
    assert info["context_event"] == "summary"
    request = walk_to_request(env, info)
    assert request[0] == task and request[-1]["content"] == env.instruction
    assert first in request[1]["content"], request[1]["content"]
    assert approx_tokens(request) <= 400


def test_a_summary_too_long_is_cut_and_stays_pinned():
    env = SummarizeContext(LongWalk(), budget_tokens=400, max_summaries=5)
    _, info = env.reset(seed=0)
    walk_to_request(env, info)
    summary = "I went right. " * 400  # about 1,400 tokens, for a 400-token budget
    obs, _, _, _, info = env.step(summary)
    pinned = obs[1]["content"]
    assert pinned.startswith(f"{SUMMARY_HEADER}\n{summary[:100]}")
    assert CUT in pinned and pinned.endswith(env._last_obs)  # cut, not dropped
    request = {"role": "user", "content": env.instruction}
    assert approx_tokens([*obs, request]) <= 400
    for _ in range(3):  # it stays until the next summary
        obs, *_ = env.step("right")
        assert obs[1]["content"] == pinned


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


@pytest.mark.parametrize("game_id", ["turngym/ConnectFour-v0", "turngym/KuhnPoker-v0"])
def test_games_pin_each_players_summary_and_ask_before_the_budget_overflows(game_id):
    from turngym.wrappers.summarize import SummarizeContextGame

    kwargs = {"rounds": 12} if "Kuhn" in game_id else {}
    budget = 500
    game = SummarizeContextGame(turngym.make_game(game_id, **kwargs), budget, max_summaries=50)
    game.reset(seed=1)
    request = {"role": "user", "content": game._core.instruction}
    written: dict[str, list[str]] = {a: [] for a in game.possible_agents}
    for agent in game.agent_iter(400):
        obs, _, terminated, truncated, info = game.last()
        messages = obs["messages"]
        assert approx_tokens(messages) <= budget
        if terminated or truncated:
            game.step(None)
            continue
        if messages[-1] == request:
            if written[agent]:  # the previous summary is in view, cut to its room if long
                assert written[agent][-1][:60] in messages[1]["content"]
            summary = f"{agent} summary {len(written[agent])}: " + "first legal move. " * 60
            written[agent].append(summary)
            game.step(summary)
            pinned = game.observe(agent)["messages"][1]["content"]
            assert pinned.startswith(f"{SUMMARY_HEADER}\n{summary[:60]}") and CUT in pinned
            continue
        assert approx_tokens([*messages, request]) <= budget  # room left for a request
        game.step(info["legal_actions"][0])
    assert all(len(w) >= 2 for w in written.values()), written
    # nothing was evicted: each player's context changed only at its summaries
    assert all(game.segments[a] == game.summaries[a] for a in game.possible_agents)


def test_games_report_each_players_summaries_and_evictions_in_its_infos():
    """Issue 26, item 6: summaries and cuts are each player's own context events.

    A summary request says so in the player's infos; the summary is a wrapper turn; once
    the player's summaries are spent, dropped turns are evictions.
    """
    from tests.wrappers.game_segments import play_checking_segments
    from turngym.wrappers.summarize import SummarizeContextGame

    # 500: small enough that, its one summary spent, a player's conversation outgrows it
    game = SummarizeContextGame(turngym.make_game("turngym/ConnectFour-v0"), 500, max_summaries=1)
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

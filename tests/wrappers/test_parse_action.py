"""ParseAction: the parse table, format errors through the env's invalid path, envs."""

from __future__ import annotations

import gymnasium as gym
import pytest

import turngym
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.parse_action import ActionParser, ParseAction

ENVS = [
    "turngym/FrozenLake-v0",
    "turngym/Wordle-v0",
    "turngym/Sokoban-v0",
    "turngym/Maze-v0",
    "turngym/Countdown-v0",
    "turngym/TextNav-v0",
]


class Tagged(gym.Wrapper):
    """Puts every string action in <answer> tags, as a well-behaved LLM would."""

    def step(self, action):
        if isinstance(action, str):
            action = f"Thinking... <answer>{action}</answer>"
        return self.env.step(action)


@pytest.mark.parametrize(
    ("kwargs", "text", "action"),
    [
        ({}, "<answer>left</answer>", "left"),
        ({}, "so <ANSWER> Up </Answer> then", "Up"),
        ({}, "<answer>a</answer> no, <answer>b</answer>", "b"),
        ({}, "<answer>multi\nline</answer>", "multi\nline"),
        ({}, "<answer>unclosed", None),
        ({}, "no tags at all", None),
        ({"tag": "move"}, "<move>e4</move>", "e4"),
        ({"boxed": True}, r"the answer is \boxed{42}", "42"),
        ({"boxed": True}, r"\boxed{1} or rather \boxed{\frac{3}{4}}", r"\frac{3}{4}"),
        ({"boxed": True}, r"\boxed{a{b}c}", "a{b}c"),
        ({"boxed": True}, r"\boxed{2} and \boxed{broken", "2"),
        ({"boxed": True}, "no box", None),
        ({"pattern": r"Action:\s*(\w+)"}, "Thought: hmm\nAction: north", "north"),
        ({"pattern": r"Action:\s*(\w+)"}, "Thought only", None),
    ],
)
def test_parse_table(kwargs, text, action):
    assert ActionParser(**kwargs).parse(text) == action


@pytest.mark.parametrize("env_id", ENVS)
def test_tagged_expert_actions_play_as_plain_ones(env_id):
    plain, env = turngym.make(env_id), Tagged(ParseAction(turngym.make(env_id)))
    expert = make_expert(plain, env_id)
    for seed in range(2):
        expert.reset(seed=seed)
        obs_p, info_p = plain.reset(seed=seed)
        obs, info = env.reset(seed=seed)
        assert obs == obs_p and info["format_error"] is False
        done = False
        while not done:
            action = expert.act(obs_p, info_p)
            obs_p, r_p, term, trunc, info_p = plain.step(action)
            obs, r, term_w, trunc_w, info = env.step(action)
            assert (obs, r, term_w, trunc_w) == (obs_p, r_p, term, trunc)
            assert info["format_error"] is False
            done = term or trunc


@pytest.mark.parametrize("env_id", ENVS[:5])
def test_conformance_with_the_wrapper(env_id):
    check_text_env(
        lambda: Tagged(ParseAction(turngym.make(env_id))),
        n_fuzz=1000,
        reset_episodes=5,
        expert=lambda env: make_expert(env, env_id),
    )


@pytest.mark.parametrize("env_id", ENVS)
def test_a_reply_without_an_action_is_invalid_and_penalised(env_id):
    # TextEnv's invalid_action_penalty is the reward of an invalid action (negative).
    env = ParseAction(turngym.make(env_id, invalid_action_penalty=-0.5), format_penalty=0.25)
    _, info = env.reset(seed=0)
    untagged = (info.get("legal_actions") or ["1 + 2"])[0]  # legal, but not in tags
    _, reward, terminated, _, info = env.step(untagged)
    assert info["format_error"] and info["invalid_action"] and not terminated
    assert reward == pytest.approx(-0.5 - 0.25)  # the env's penalty, then the format's


def test_non_strings_reach_the_env_invalid_path():
    env = ParseAction(turngym.make("turngym/FrozenLake-v0"))
    env.reset(seed=0)
    *_, info = env.step(None)
    assert info["format_error"] and info["invalid_action"]


def test_repeated_format_errors_truncate_like_invalid_actions():
    env = ParseAction(turngym.make("turngym/FrozenLake-v0", max_invalid_actions=3))
    env.reset(seed=0)
    outcomes = [env.step("I will go down")[3] for _ in range(3)]
    assert outcomes == [False, False, True]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tag": "<a>"}, "tag must be a word"),
        ({"pattern": "no group"}, "exactly one group"),
        ({"pattern": "(("}, "not a valid regex"),
        ({"pattern": "(x)", "boxed": True}, "not both"),
        ({"format_penalty": -1}, "format_penalty must be a number >= 0"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ParseAction(turngym.make("turngym/FrozenLake-v0"), **kwargs)


@pytest.mark.filterwarnings("ignore:.*(NumPy array|all zeros).*:UserWarning")  # api_test
@pytest.mark.parametrize("game_id", ["turngym/TicTacToe-v0", "turngym/KuhnPoker-v0"])
def test_games_parse_each_players_reply(game_id):
    from pettingzoo.test import api_test

    from turngym.wrappers.parse_action import ParseActionGame

    api_test(ParseActionGame(turngym.make_game(game_id)), num_cycles=10)
    game = ParseActionGame(turngym.make_game(game_id, invalid_action_penalty=-1.0))
    game.reset(seed=0)
    first = game.agent_selection
    legal = game.infos[first]["legal_actions"]
    game.step(legal[0])  # untagged: a format error, the game's invalid path
    assert game.infos[first]["format_error"] and game.infos[first]["invalid_action"]
    assert game.agent_selection == first and sum(game.rewards.values()) == 0  # zero-sum
    game.step(f"I pick <answer>{legal[0]}</answer>")
    assert not game.infos[first]["format_error"] and not game.infos[first]["invalid_action"]
    assert game.agent_selection != first

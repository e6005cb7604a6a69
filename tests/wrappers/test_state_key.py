"""StateKey: envs without a ``state_key`` get one from their own observation, under any
context wrapper, so GiGPO anchors by the env's state and not by the wrapper's prompt."""

from __future__ import annotations

import gymnasium as gym

import turngym  # noqa: F401
from turngym.testing import check_text_env
from turngym.testing.toy import GuessNumber
from turngym.wrappers import ChatHistory, StateKey, SummarizeContext


def test_the_key_is_the_env_observation_and_an_env_key_wins():
    env = StateKey(GuessNumber())
    obs, info = env.reset(seed=0)
    assert info["state_key"].startswith("obs:") and obs.startswith("Guess my number")
    again = StateKey(GuessNumber())
    assert again.reset(seed=1)[1]["state_key"] == info["state_key"]  # same first text
    _, _, _, _, after = env.step("3")
    assert after["state_key"] != info["state_key"]
    lake = gym.make("turngym/FrozenLake-v0")
    assert StateKey(lake).reset(seed=0)[1]["state_key"] == lake.reset(seed=0)[1]["state_key"]


def test_a_wrapper_prompt_keeps_the_env_key():
    """ChatHistory's and SummarizeContext's prompts grow; the key follows the env only.
    A summary turn reports the state the summary was written in."""
    chat = ChatHistory(StateKey(GuessNumber()))
    plain = StateKey(GuessNumber())
    assert chat.reset(seed=0)[1]["state_key"] == plain.reset(seed=0)[1]["state_key"]
    assert chat.step("3")[4]["state_key"] == plain.step("3")[4]["state_key"]
    summarize = SummarizeContext(StateKey(GuessNumber()), budget_tokens=34, instruction="Sum up.")
    summarize.reset(seed=0)
    wrong = "5" if summarize.unwrapped.secret != 5 else "1"
    _, _, done, _, info = summarize.step(wrong)  # another such turn would not fit 34 tokens
    assert info["summary_request"] and not done
    _, _, _, _, after = summarize.step(f"I guessed {wrong}.")
    assert after["wrapper_turn"] and after["state_key"] == info["state_key"]


def test_trainers_put_it_under_their_wrappers():
    from turngym.sdk.trainers.envs import make_text_env

    env = make_text_env("x", {}, ["chat_history"], env_fn=GuessNumber)
    assert isinstance(env.env, StateKey) and "state_key" in env.reset(seed=0)[1]
    bare = make_text_env("x", {}, [], env_fn=GuessNumber)
    assert isinstance(bare, GuessNumber)  # no wrappers: the env as it is


def test_conformance():
    check_text_env(StateKey(gym.make("turngym/FrozenLake-v0")))

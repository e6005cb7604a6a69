"""The model-backed agents moved to ``turngym.sdk.agents``: the old paths still work for
one release, each with a DeprecationWarning naming the new home."""

from __future__ import annotations

import importlib

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from turngym.sdk.agents import llm, mini_swe


@pytest.mark.parametrize(
    ("old", "name", "new"),
    [
        ("turngym.agents", "LLMAgent", llm),
        ("turngym.agents", "CandidateAgent", llm),
        ("turngym.agents.llm", "LLMAgent", llm),
        ("turngym.agents.llm", "default_parse", llm),
        ("turngym.agents.mini_swe", "MiniSWEAgent", mini_swe),
        ("turngym.agents.mini_swe", "parse_bash", mini_swe),
    ],
)
def test_an_old_path_warns_and_gives_the_same_object(old, name, new):
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to {new.__name__}"):
        found = getattr(module, name)
    assert found is getattr(new, name)


def test_an_unknown_name_is_still_an_attribute_error():
    import turngym.agents.llm as old

    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        old.Nothing  # noqa: B018


def test_the_old_make_agent_warns_and_still_builds_agents_without_a_model():
    from turngym.agents import RandomAgent, make_agent

    env = gym.make("turngym/Bandit-v0")
    with pytest.warns(DeprecationWarning, match="turngym.sdk.agents.make_agent"):
        agent = make_agent("random", env, seed=0)
    assert isinstance(agent, RandomAgent)
    env.close()

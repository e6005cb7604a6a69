from __future__ import annotations

import numpy as np

from turngym.agents import RandomAgent
from turngym.envs.text.bandit import BanditEnv
from turngym.sdk.agents import make_agent


def test_picks_uniformly_from_legal_actions():
    agent = RandomAgent(seed=0)
    picks = [agent.act("", {"legal_actions": ["a", "b", "c"]}) for _ in range(3000)]
    counts = np.array([picks.count(x) for x in "abc"])
    assert counts.min() > 900


def test_free_text_without_legal_actions():
    agent = RandomAgent(seed=0)
    texts = {agent.act("", {}) for _ in range(20)}
    assert len(texts) > 10 and all(isinstance(t, str) and t for t in texts)


def test_reset_with_seed_replays():
    a, b = RandomAgent(seed=1), RandomAgent(seed=2)
    a.reset(seed=7)
    b.reset(seed=7)
    legal = {"legal_actions": [str(i) for i in range(50)]}
    assert [a.act("", legal) for _ in range(20)] == [b.act("", legal) for _ in range(20)]


def test_agent_stream_is_independent_of_an_env_with_the_same_seed():
    # Regression: an agent seeded like the env used to mirror the env's hidden draws.
    env, agent = BanditEnv(), RandomAgent()
    agree = 0
    for seed in range(400):
        _, info = env.reset(seed=seed)
        agent.reset(seed=seed)
        agree += agent.act("", info) == env.best_arm
    assert 0.4 < agree / 400 < 0.6


def test_make_agent_rejects_unknown_kind():
    import pytest

    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("genius", BanditEnv())

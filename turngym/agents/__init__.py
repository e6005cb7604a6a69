"""Agents: the ``Agent`` protocol, random, human, scripted expert and LLM agents."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import Agent, BaseAgent
from turngym.agents.human import HumanAgent
from turngym.agents.llm import CandidateAgent, LLMAgent
from turngym.agents.random_agent import RandomAgent

__all__ = [
    "Agent",
    "BaseAgent",
    "CandidateAgent",
    "HumanAgent",
    "LLMAgent",
    "RandomAgent",
    "make_agent",
    "make_expert",
]


def make_expert(env: gym.Env, env_id: str | None = None) -> Agent:
    """The scripted expert of ``env`` (looked up by its registered id).

    Raises:
        ValueError: the env has no registered id or no expert.

    """
    from turngym.registry import entry, load

    env_id = env_id or (env.spec.id if env.spec is not None else None)
    if env_id is None:
        raise ValueError("this env was not made from a registered id; pass env_id=")
    row = entry(env_id)
    if row.expert is None:
        raise ValueError(f"{env_id} has no scripted expert")
    agent: Agent = load(row.expert)(env)
    return agent


def make_agent(kind: str, env: gym.Env, seed: int | None = None, **kwargs: Any) -> Agent:
    """Build an agent by name.

    ``random``, ``expert``, ``human``, ``hf:DIR`` (an ``LLMAgent`` over the saved
    transformers model in DIR, greedy unless ``sampling=`` says otherwise) or
    ``openai:URL`` (an ``LLMAgent`` over an OpenAI-compatible server). Extra keyword
    arguments go to the agent (``system_prompt=``, ``parse=``... for LLM agents).

    Raises:
        ValueError: an unknown name, a missing model directory or a policy that cannot
            be built (one line saying what to do).

    """
    if kind == "random":
        return RandomAgent(env, seed=seed)
    if kind == "expert":
        return make_expert(env, **kwargs)
    if kind == "human":
        return HumanAgent(env, **kwargs)
    if kind.startswith(("hf:", "openai:")):  # a model: the sdk layer builds its policy
        raise ValueError(
            f"{kind!r} names a model; build it with turngym.sdk.agents.make_agent, which "
            "also takes 'random', 'expert' and 'human'"
        )
    raise ValueError(
        f"unknown agent {kind!r}; use 'random', 'expert', 'human', 'hf:DIR' or 'openai:URL'"
    )

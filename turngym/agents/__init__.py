"""Agents: the ``Agent`` protocol, random, human, scripted expert and LLM agents."""

from __future__ import annotations

from pathlib import Path
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
    if kind.startswith(("hf:", "openai:")):
        return _llm_agent(kind, seed, **kwargs)
    raise ValueError(
        f"unknown agent {kind!r}; use 'random', 'expert', 'human', 'hf:DIR' or 'openai:URL'"
    )


def _llm_agent(kind: str, seed: int | None, **kwargs: Any) -> Agent:
    """An ``LLMAgent`` over the policy ``kind`` names (``hf:DIR`` or ``openai:URL``)."""
    from turngym.sdk.policy import Policy, PolicyError, SamplingParams

    backend, _, where = kind.partition(":")
    if not where:
        example = "hf:runs/tiny-model" if backend == "hf" else "openai:http://127.0.0.1:8000/v1"
        raise ValueError(
            f"{kind!r} names no {'model directory' if backend == 'hf' else 'URL'}; e.g. {example}"
        )
    kwargs.setdefault("sampling", SamplingParams(temperature=0.0, seed=seed))
    policy: Policy
    try:
        if backend == "hf":
            if not Path(where).is_dir():
                raise ValueError(
                    f"no model directory {where!r}; hf:DIR needs a model and tokenizer saved "
                    "with save_pretrained (e.g. by turngym.sdk.models.build_tiny_model)"
                )
            from turngym.sdk.backends.hf import HFPolicy

            policy = HFPolicy(where)
        else:
            try:
                from turngym.sdk.backends.openai import OpenAIPolicy
            except ImportError as error:
                raise ValueError(f"the openai backend is unavailable ({error})") from None
            policy = OpenAIPolicy(where)
        return LLMAgent(policy, **kwargs)
    except PolicyError as error:
        raise ValueError(str(error)) from None

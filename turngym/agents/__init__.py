"""Agents that need no model: the ``Agent`` protocol, random, human and scripted experts.

Agents over a model (``LLMAgent``, ``CandidateAgent``, ``MiniSWEAgent``) need a policy
backend, so they live in the sdk layer, ``turngym.sdk.agents``, with the one
``make_agent`` that builds every agent by name. ``turngym.agents.LLMAgent``,
``CandidateAgent`` and ``make_agent`` still work for one release, with a
``DeprecationWarning`` naming the new home.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import gymnasium as gym

from turngym.agents.base import Agent, BaseAgent
from turngym.agents.human import HumanAgent
from turngym.agents.random_agent import RandomAgent

__all__ = ["Agent", "BaseAgent", "HumanAgent", "RandomAgent", "make_expert", "make_plain_agent"]

_MOVED = {"LLMAgent": "turngym.sdk.agents.llm", "CandidateAgent": "turngym.sdk.agents.llm"}


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


def make_plain_agent(kind: str, env: gym.Env, seed: int | None = None, **kwargs: Any) -> Agent:
    """An agent that needs no model, by name: ``random``, ``expert`` or ``human``.

    ``turngym.sdk.agents.make_agent`` takes these names too, and the model ones.

    Raises:
        ValueError: an unknown name, or a model's (one line saying where to build it).

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


def make_agent(kind: str, env: gym.Env, seed: int | None = None, **kwargs: Any) -> Agent:
    """Deprecated: ``turngym.sdk.agents.make_agent`` builds every agent by name."""
    _warn("make_agent", "turngym.sdk.agents.make_agent")
    return make_plain_agent(kind, env, seed=seed, **kwargs)


def _warn(name: str, new: str) -> None:
    warnings.warn(
        f"turngym.agents.{name} moved to {new}; this alias goes in the next release",
        DeprecationWarning,
        stacklevel=3,
    )


def __getattr__(name: str) -> Any:
    where = _MOVED.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _warn(name, f"{where}.{name}")
    # importlib, not an import statement: the sdk layer is above this one, and the
    # alias only points there for the release it lasts.
    return getattr(importlib.import_module(where), name)

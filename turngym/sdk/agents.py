"""``make_agent`` by name, model-backed agents included (``hf:DIR``, ``openai:URL``).

``turngym.agents.make_agent`` builds the agents that need no model (random, expert,
human); a model agent needs a policy backend from this layer, so its name is resolved
here: an ``LLMAgent`` over ``HFPolicy(DIR)`` or ``OpenAIPolicy(URL)``, greedy unless
``sampling=`` says otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym

from turngym.agents import Agent, LLMAgent
from turngym.agents import make_agent as make_plain_agent
from turngym.sdk.policy import Policy, PolicyError, SamplingParams

__all__ = ["MODEL_KINDS", "make_agent"]

MODEL_KINDS = ("hf:", "openai:")


def make_agent(kind: str, env: gym.Env | None, seed: int | None = None, **kwargs: Any) -> Agent:
    """Build an agent by name: ``random``, ``expert``, ``human``, ``hf:DIR`` or ``openai:URL``.

    Extra keyword arguments go to the agent (``system_prompt=``, ``parse=``,
    ``sampling=``... for model agents).

    Raises:
        ValueError: an unknown name, a missing model directory or a policy that cannot
            be built (one line saying what to do).

    """
    if not kind.startswith(MODEL_KINDS):
        if env is None:
            raise ValueError(f"agent {kind!r} needs the env it plays")
        return make_plain_agent(kind, env, seed=seed, **kwargs)
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
            from turngym.sdk.backends.openai import OpenAIPolicy

            policy = OpenAIPolicy(where)
        return LLMAgent(policy, **kwargs)
    except PolicyError as error:
        raise ValueError(str(error)) from None

"""``make_agent`` by name, model-backed agents included (``hf:DIR``, ``openai:URL``).

``turngym.agents.make_agent`` builds the agents that need no model (random, expert,
human); a model agent needs a policy backend from this layer, so its name is resolved
here: an ``LLMAgent`` over ``HFPolicy(DIR)`` or ``OpenAIPolicy(URL)``, greedy unless
``sampling=`` says otherwise. A directory a turngym trainer wrote (``final/``) holds
``turngym_agent.json``: how the model was trained to act (guided choice, system
prompt), which become the agent's defaults; ``turngym serve`` passes them on to
``openai:URL`` agents (``OpenAIPolicy.agent_settings``), so a trained model acts the same
served or in-process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym

from turngym.agents import Agent, LLMAgent
from turngym.agents import make_agent as make_plain_agent
from turngym.sdk.policy import Policy, PolicyError, SamplingParams

__all__ = ["AGENT_SETTINGS", "MODEL_KINDS", "make_agent", "trained_agent_settings"]

MODEL_KINDS = ("hf:", "openai:")
AGENT_SETTINGS = "turngym_agent.json"
"""The file in a trained model's directory that says how its agent acts."""


def trained_agent_settings(model_dir: str | Path) -> dict[str, Any]:
    """``LLMAgent`` keyword defaults a trainer saved with the model ({} when none).

    Raises:
        ValueError: the file exists but is not a JSON object of known settings.

    """
    import json

    path = Path(model_dir) / AGENT_SETTINGS
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON ({error})") from None
    known = {"constrained", "system_prompt"}
    if not isinstance(data, dict) or set(data) - known:
        raise ValueError(f"{path}: expected a JSON object with keys among {sorted(known)}")
    return data


def _checked(settings: dict[str, Any], where: str) -> dict[str, Any]:
    """A server's ``turngym_agent`` settings, held to the keys a trained dir may set."""
    known = {"constrained", "system_prompt"}
    if set(settings) - known:
        raise ValueError(
            f"the server at {where} sends agent settings {sorted(settings)}; "
            f"expected keys among {sorted(known)}"
        )
    return settings


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
            for key, value in trained_agent_settings(where).items():
                kwargs.setdefault(key, value)
        else:
            from turngym.sdk.backends.openai import OpenAIPolicy

            remote = OpenAIPolicy(where)
            policy = remote
            for key, value in _checked(remote.agent_settings(), where).items():
                kwargs.setdefault(key, value)
        return LLMAgent(policy, **kwargs)
    except PolicyError as error:
        raise ValueError(str(error)) from None

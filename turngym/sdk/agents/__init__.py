"""Agents over a model, and ``make_agent``, which builds every agent by name.

- ``llm``: ``LLMAgent`` (generates its action) and ``CandidateAgent`` (scores the legal
  actions); ``mini_swe``: ``MiniSWEAgent``, a bash-only SWE agent over ``LLMAgent``.
- ``make_agent``: ``random``, ``expert`` and ``human`` (the agents of
  ``turngym.agents``, which need no model), ``hf:DIR`` and ``openai:URL``: an
  ``LLMAgent`` over ``HFPolicy(DIR)`` or ``OpenAIPolicy(URL)``, greedy unless
  ``sampling=`` says otherwise. A directory a turngym trainer wrote (``final/``) holds
``turngym_agent.json``: how the model was trained to act (guided choice, system
prompt), which become the agent's defaults, and the wrapper stack it was trained under
(``trained_wrappers``: ``turngym eval`` and ``collect`` put it around the env). This
module is the file's one owner: ``write_agent_settings`` writes it, the rest read it.
``turngym serve`` passes the settings on to ``openai:URL`` agents
(``OpenAIPolicy.agent_settings``), so a trained model acts the same served or
in-process.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym

from turngym.agents import Agent, make_plain_agent
from turngym.sdk.agents.llm import CandidateAgent, LLMAgent
from turngym.sdk.policy import Policy, PolicyError, SamplingParams

__all__ = [
    "AGENT_SETTINGS",
    "MODEL_KINDS",
    "CandidateAgent",
    "LLMAgent",
    "make_agent",
    "trained_agent_settings",
    "trained_wrappers",
    "write_agent_settings",
]

MODEL_KINDS = ("hf:", "openai:")
AGENT_SETTINGS = "turngym_agent.json"
"""The file in a trained model's directory that says how its agent acts."""

_AGENT_KEYS = ("constrained", "system_prompt")  # LLMAgent keyword defaults
_KNOWN = (*_AGENT_KEYS, "wrappers")


def write_agent_settings(
    model_dir: str | Path,
    *,
    constrained: bool,
    system_prompt: str | None,
    wrappers: Sequence[str] = (),
) -> Path:
    """Write ``model_dir/turngym_agent.json``: how the trained model acts, and its stack.

    ``wrappers`` are the specs (``turngym.wrappers.specs``) the model was trained under.
    """
    import json

    path = Path(model_dir) / AGENT_SETTINGS
    settings: dict[str, Any] = {"constrained": bool(constrained), "system_prompt": system_prompt}
    if wrappers:
        settings["wrappers"] = list(wrappers)
    path.write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")
    return path


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
    if not isinstance(data, dict) or set(data) - set(_KNOWN):
        raise ValueError(f"{path}: expected a JSON object with keys among {sorted(_KNOWN)}")
    wrappers = data.get("wrappers", [])
    if not isinstance(wrappers, list) or not all(isinstance(w, str) for w in wrappers):
        raise ValueError(f"{path}: wrappers must be a list of wrapper specs, got {wrappers!r}")
    return data


def trained_wrappers(kind: str) -> list[str]:
    """The wrapper specs agent ``kind`` (``hf:DIR``) was trained under ([] when none).

    Other kinds (and a directory without settings) were trained under none that are known.

    Raises:
        ValueError: the settings file is malformed.

    """
    if not kind.startswith("hf:"):
        return []
    return list(trained_agent_settings(kind[3:]).get("wrappers", []))


def _checked(settings: dict[str, Any], where: str) -> dict[str, Any]:
    """A server's ``turngym_agent`` settings, held to the keys a trained dir may set."""
    if set(settings) - set(_KNOWN):
        raise ValueError(
            f"the server at {where} sends agent settings {sorted(settings)}; "
            f"expected keys among {sorted(_KNOWN)}"
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
                if key in _AGENT_KEYS:
                    kwargs.setdefault(key, value)
        else:
            from turngym.sdk.backends.openai import OpenAIPolicy

            remote = OpenAIPolicy(where)
            policy = remote
            for key, value in _checked(remote.agent_settings(), where).items():
                if key in _AGENT_KEYS:
                    kwargs.setdefault(key, value)
        return LLMAgent(policy, **kwargs)
    except PolicyError as error:
        raise ValueError(str(error)) from None

"""turngym: multi-turn environments for LLM agents under one Gymnasium/PettingZoo API.

>>> import turngym
>>> env = turngym.make("turngym/Bandit-v0")
>>> obs, info = env.reset(seed=0)
"""

from __future__ import annotations

from typing import Any

from turngym.registry import ENVS, register_envs

__all__ = ["ENVS", "__version__", "make", "register_envs"]
__version__ = "0.1.0"


def make(env_id: str, **kwargs: Any) -> Any:
    """``gymnasium.make`` for turngym ids; ``Wordle-v0`` is short for ``turngym/Wordle-v0``."""
    import gymnasium as gym

    if "/" not in env_id:
        env_id = f"turngym/{env_id}"
    return gym.make(env_id, **kwargs)


register_envs()

"""``StateKey``: give an env without a ``state_key`` one, from its own observation.

GiGPO groups turns taken from the same env state (``info["state_key"]``, ARCHITECTURE.md
section 3). Envs that have no key of their own are grouped by their observation text,
but under a context wrapper the observation is the wrapper's prompt (the chat so far, a
summary, memory), which differs between episodes in the same env state. Put innermost,
``StateKey`` reports a digest of the env's own observation as ``info["state_key"]``;
the context wrappers above it copy the env's info, so the key reaches the trainer on
env turns and wrapper turns alike. An env's own ``state_key`` is left as it is. The
trainers put it under the wrappers they are given (``make_text_env``).
"""

from __future__ import annotations

import hashlib
from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

__all__ = ["StateKey", "observation_key"]


def observation_key(obs: Any) -> str:
    """``"obs:<digest>"`` of an observation's text (a dict's ``"text"``, else its repr).

    >>> observation_key("Higher.") == observation_key("Higher."), len(observation_key("x"))
    (True, 28)
    """
    text = obs.get("text", repr(obs)) if isinstance(obs, dict) else obs
    if not isinstance(text, str):
        text = repr(text)
    return "obs:" + hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


class StateKey(gym.Wrapper, RecordConstructorArgs):
    """Add ``info["state_key"]``, a digest of the observation, when the env gives none.

    Example:
        >>> from turngym.testing.toy import GuessNumber
        >>> env = StateKey(GuessNumber())
        >>> obs, info = env.reset(seed=0)
        >>> info["state_key"] == observation_key(obs), info["state_key"][:4]
        (True, 'obs:')

    """

    def __init__(self, env: gym.Env) -> None:
        RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env; the first observation's key."""
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._keyed(obs, info)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env; the new observation's key."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self._keyed(obs, info)

    @staticmethod
    def _keyed(obs: Any, info: dict[str, Any]) -> dict[str, Any]:
        if info.get("state_key") is not None:
            return info
        return {**info, "state_key": observation_key(obs)}

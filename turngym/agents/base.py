"""The ``Agent`` protocol: observation (+ info) in, action string out."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar, runtime_checkable

import gymnasium as gym

__all__ = ["Agent", "BaseAgent", "game_of", "unwrap"]

E = TypeVar("E", bound=gym.Env)


def unwrap(env: gym.Env, env_type: type[E], agent: str) -> E:
    """``env.unwrapped``, checked to be an ``env_type`` (experts read its privileged state).

    Raises:
        TypeError: naming the agent, the env type it needs and the one it got.

    """
    inner = env.unwrapped
    if not isinstance(inner, env_type):
        raise TypeError(f"{agent} needs a {env_type.__name__}, got {type(inner).__name__}")
    return inner


G = TypeVar("G")


def game_of(env: Any, game_type: type[G], agent: str) -> G:
    """The game behind ``env``: a PettingZoo game (wrapped or not) or a ``GameView``.

    Raises:
        TypeError: naming the agent, the game type it needs and what it got.

    """
    inner = getattr(env, "unwrapped", env)
    inner = getattr(inner, "game", inner)  # a GameView holds its game
    inner = getattr(inner, "unwrapped", inner)
    if not isinstance(inner, game_type):
        raise TypeError(f"{agent} needs a {game_type.__name__}, got {type(inner).__name__}")
    return inner


@runtime_checkable
class Agent(Protocol):
    """Anything that maps an observation and its info dict to an action string."""

    def reset(self, seed: int | None = None) -> None:
        """Forget the last episode; seed the agent's own randomness."""
        ...

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The action for this observation."""
        ...

    def act_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[str]:
        """Actions for a batch of observations (one per env)."""
        ...


class BaseAgent:
    """Convenience base: ``act_batch`` loops over ``act``; ``reset`` does nothing."""

    def reset(self, seed: int | None = None) -> None:
        """Forget the last episode (stateless agents need nothing)."""

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The action for this observation."""
        raise NotImplementedError

    def act_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[str]:
        """Act on each observation in turn."""
        return [self.act(o, i) for o, i in zip(obs, infos, strict=True)]

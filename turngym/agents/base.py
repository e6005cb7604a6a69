"""The ``Agent`` protocol: observation (+ info) in, action string out."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Agent", "BaseAgent"]


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

"""Play agents in envs and summarise how they do (success rate, return, length)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from turngym.agents.base import Agent
from turngym.progress import progress

__all__ = ["EpisodeStats", "EvalResult", "evaluate", "play_episode"]


@dataclass(frozen=True)
class EpisodeStats:
    """The summary of one episode."""

    seed: int
    ret: float
    steps: int
    success: bool
    invalid: int
    truncated: bool


@dataclass(frozen=True)
class EvalResult:
    """Episodes of one agent in one env, summarised."""

    env_id: str
    agent: str
    episodes: list[EpisodeStats]

    @property
    def success_rate(self) -> float:
        """Fraction of episodes whose final info said ``success``."""
        return float(np.mean([e.success for e in self.episodes])) if self.episodes else 0.0

    @property
    def mean_return(self) -> float:
        """Mean undiscounted episode return."""
        return float(np.mean([e.ret for e in self.episodes])) if self.episodes else 0.0

    @property
    def mean_steps(self) -> float:
        """Mean episode length in env steps."""
        return float(np.mean([e.steps for e in self.episodes])) if self.episodes else 0.0

    @property
    def invalid_rate(self) -> float:
        """Invalid actions per step."""
        steps = sum(e.steps for e in self.episodes)
        return sum(e.invalid for e in self.episodes) / steps if steps else 0.0


def play_episode(
    env: gym.Env,
    agent: Agent,
    seed: int,
    on_step: Callable[[Any, float, dict[str, Any]], None] | None = None,
) -> EpisodeStats:
    """Play one episode from ``env.reset(seed=seed)`` to its end.

    ``on_step(obs, reward, info)`` is called after the reset (reward 0) and every step.
    """
    agent.reset(seed=seed)
    obs, info = env.reset(seed=seed)
    if on_step is not None:
        on_step(obs, 0.0, info)
    ret, steps, invalid = 0.0, 0, 0
    terminated = truncated = False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        ret += float(reward)
        steps += 1
        invalid += bool(info.get("invalid_action"))
        if on_step is not None:
            on_step(obs, float(reward), info)
    return EpisodeStats(seed, ret, steps, bool(info.get("success")), invalid, bool(truncated))


def evaluate(
    env_id: str,
    make_agent: Callable[[gym.Env], Agent],
    episodes: int = 100,
    seed: int = 0,
    agent_name: str = "agent",
    env_kwargs: dict[str, Any] | None = None,
) -> EvalResult:
    """Play ``episodes`` episodes on seeds ``seed, seed+1, ...`` and collect the stats.

    >>> from turngym.agents import RandomAgent
    >>> r = evaluate("turngym/Bandit-v0", lambda env: RandomAgent(seed=0), episodes=4)
    >>> len(r.episodes)
    4
    """
    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        agent = make_agent(env)
        stats = [
            play_episode(env, agent, seed + k)
            for k in progress(range(episodes), total=episodes, desc=f"{env_id} {agent_name}")
        ]
    finally:
        env.close()
    return EvalResult(env_id, agent_name, stats)

"""Play agents in envs and summarise how they do (success rate, return, length)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from turngym.agents.base import Agent
from turngym.progress import progress

__all__ = [
    "EpisodeStats",
    "EvalResult",
    "evaluate",
    "evaluate_batched",
    "play_episode",
    "wilson_interval",
]


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a success rate (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and is honest at 0/n and n/n.

    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    >>> lo, hi = wilson_interval(50, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.404, 0.596)
    """
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


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
    def success_interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the success rate."""
        return wilson_interval(sum(e.success for e in self.episodes), len(self.episodes))

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

    def summary(self) -> dict[str, Any]:
        """The figures as a JSON-ready dict."""
        low, high = self.success_interval
        return {
            "env": self.env_id,
            "agent": self.agent,
            "episodes": len(self.episodes),
            "success_rate": self.success_rate,
            "success_ci95": [round(low, 4), round(high, 4)],
            "mean_return": self.mean_return,
            "mean_turns": self.mean_steps,
            "invalid_rate": self.invalid_rate,
            "truncated": sum(e.truncated for e in self.episodes),
        }


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


def evaluate_batched(
    env_id: str,
    agent: Agent,
    episodes: int = 100,
    seed: int = 0,
    agent_name: str = "agent",
    env_kwargs: dict[str, Any] | None = None,
    num_envs: int = 16,
) -> EvalResult:
    """Like ``evaluate`` (same seeds), with ``num_envs`` envs played in lockstep.

    Every step sends all active envs' observations to ONE ``agent.act_batch`` call, so an
    LLM agent makes one batched ``generate`` call per step instead of one per env.
    """
    from turngym.sdk.rollout import collect

    done = collect(
        env_id,
        agent,
        episodes=episodes,
        seed=seed,
        num_envs=max(1, min(num_envs, episodes)),
        env_kwargs=env_kwargs,
    )
    stats = [
        EpisodeStats(
            seed=ep.seed if ep.seed is not None else seed + k,
            ret=float(sum(ep.returns.values())),
            steps=ep.length,
            success=ep.success,
            invalid=sum(bool(t.info.get("invalid_action")) for t in ep.turns),
            truncated=bool(ep.turns and ep.turns[-1].truncated),
        )
        for k, ep in enumerate(done)
    ]
    return EvalResult(env_id, agent_name, stats)

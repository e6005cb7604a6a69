"""Play agents in envs and summarise how they do (success rate, return, length).

``evaluate`` plays one agent in one env; ``evaluate_jobs`` runs many (env, agent) pairs
and yields each result as soon as it is done, in worker processes when asked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from turngym.agents.base import Agent
from turngym.progress import progress

__all__ = [
    "EpisodeStats",
    "EvalFailure",
    "EvalJob",
    "EvalResult",
    "evaluate",
    "evaluate_batched",
    "evaluate_jobs",
    "play_episode",
    "run_job",
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
    show_progress: bool = True,
    plain_every: float | None = None,
    wrappers: Sequence[str] = (),
) -> EvalResult:
    """Play ``episodes`` episodes on seeds ``seed, seed+1, ...`` and collect the stats.

    The env is ``gym.make(env_id, **env_kwargs)`` under ``wrappers`` (wrapper specs,
    ``turngym.wrappers.specs``).

    ``show_progress``: a bar on a terminal; ``plain_every``: plain progress lines at most
    every that many seconds elsewhere (``turngym.progress.progress``).

    >>> from turngym.agents import RandomAgent
    >>> r = evaluate("turngym/Bandit-v0", lambda env: RandomAgent(seed=0), episodes=4)
    >>> len(r.episodes)
    4
    """
    from turngym.wrappers.specs import wrap_env

    env = wrap_env(gym.make(env_id, **(env_kwargs or {})), wrappers)
    try:
        agent = make_agent(env)
        seeds: Any = range(episodes)
        if show_progress:
            desc = f"{env_id} {agent_name}"
            seeds = progress(seeds, total=episodes, desc=desc, plain_every=plain_every)
        stats = [play_episode(env, agent, seed + k) for k in seeds]
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
    wrappers: Sequence[str] = (),
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
        wrappers=wrappers,
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


# -- many (env, agent) pairs ---------------------------------------------------------


@dataclass(frozen=True)
class EvalJob:
    """One (env, agent) pair for ``evaluate_jobs``: plain data, so a worker can take it."""

    env_id: str
    agent: str
    """``expert``, ``random`` (built per env), or a model spec (``hf:DIR``, ``openai:URL``)"""
    episodes: int = 100
    seed: int = 0
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    wrappers: tuple[str, ...] = ()
    """wrapper specs around the env (a trained model's own stack, or ``--wrappers``)"""


@dataclass(frozen=True)
class EvalFailure:
    """A job that raised: the error's type and message, on one line."""

    env_id: str
    agent: str
    error: str


def run_job(
    job: EvalJob,
    agent: Agent | None = None,
    show_progress: bool = False,
    plain_every: float | None = None,
) -> EvalResult | EvalFailure:
    """Play ``job``: with ``agent`` (a model agent, batched over envs) or one built per env.

    An exception becomes an ``EvalFailure``, so one broken env does not end a long run
    and the result crosses a process boundary as plain text.
    """
    from turngym.sdk.agents import make_agent

    try:
        if agent is not None:
            return evaluate_batched(
                job.env_id,
                agent,
                episodes=job.episodes,
                seed=job.seed,
                agent_name=job.agent,
                env_kwargs=dict(job.env_kwargs),
                wrappers=job.wrappers,
            )
        return evaluate(
            job.env_id,
            lambda env: make_agent(job.agent, env, seed=job.seed),
            episodes=job.episodes,
            seed=job.seed,
            agent_name=job.agent,
            env_kwargs=dict(job.env_kwargs),
            wrappers=job.wrappers,
            show_progress=show_progress,
            plain_every=plain_every,
        )
    except Exception as error:  # reported as the job's result, not lost
        text = " ".join(str(error).split()) or "(no message)"
        return EvalFailure(job.env_id, job.agent, f"{type(error).__name__}: {text}")


def _run_in_worker(job: EvalJob) -> EvalResult | EvalFailure:
    return run_job(job)


def evaluate_jobs(
    jobs: Sequence[EvalJob],
    workers: int = 1,
    agents: Mapping[str, Agent] | None = None,
    show_progress: bool = True,
    plain_every: float | None = None,
) -> Generator[EvalResult | EvalFailure, None, None]:
    """Run ``jobs`` and yield each one's result as soon as it is done.

    Args:
        jobs: the (env, agent) pairs; each is played on its own seeds, so the results do
            not depend on the order or the process that plays them.
        workers: 1 plays the jobs here, in order. More starts that many worker processes
            (``spawn``: a fresh interpreter each, so every process has its own browser,
            X server, sandboxes and RNG state) and yields results as they finish.
        agents: prebuilt agents by spec (a loaded model): their jobs run in this
            process, one at a time, while the workers play the rest.
        show_progress: a bar per job played in this process, on a terminal.
        plain_every: elsewhere, a plain progress line at most this often (seconds).

    >>> jobs = [EvalJob("turngym/Bandit-v0", "expert", episodes=3)]
    >>> [round(r.success_rate, 2) for r in evaluate_jobs(jobs)]
    [1.0]

    """
    shared = dict(agents or {})

    def here(job: EvalJob) -> EvalResult | EvalFailure:
        return run_job(job, shared.get(job.agent), show_progress, plain_every)

    if workers <= 1:
        for job in jobs:
            yield here(job)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    remote = [job for job in jobs if job.agent not in shared]
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        pending: set[Future[EvalResult | EvalFailure]] = {
            pool.submit(_run_in_worker, job) for job in remote
        }
        for job in jobs:  # the model's jobs, while the workers play
            if job.agent in shared:
                yield here(job)
                done = {f for f in pending if f.done()}
                pending -= done
                for future in done:
                    yield future.result()
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
    finally:  # also when the caller stops early (a closed pipe, Ctrl-C)
        pool.shutdown(wait=True, cancel_futures=True)

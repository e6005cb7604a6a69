"""Envs and rollouts on many machines, on Ray: ``RayVectorEnv`` and ``RayRolloutWorkers``.

Envs that hold a browser, a sandbox or an X server are heavy; a Ray cluster spreads
them over CPU nodes while the trainer keeps the GPU. ``RayVectorEnv`` is a Gymnasium
vector env (the same spaces, batching, infos and next-step autoreset as
``SyncVectorEnv``, so the same code drives either) whose sub-envs each live in an actor
(``num_cpus`` each, placed by Ray's scheduler on any node of the cluster). All actors
step at once; the driver waits for them together.

Fault tolerance is per env: when an actor dies (its node lost, its process killed, the
env crashing its worker), the vector env starts a new actor from the same factory and
reports that env's episode as truncated (``info["actor_restarted"]``, the error in
``info["actor_error"]``); its next step starts a fresh episode. The other envs lose
nothing. After ``max_restarts`` restarts of one env the error is raised.

``RayRolloutWorkers`` runs a ``Collector`` in each of N actors against one shared policy
server (``turngym serve`` or vLLM's OpenAI-compatible server, named as
``"openai:http://host:port/v1"``): the trainer asks for episodes, the workers play whole
groups of them (same seeds as a local ``Collector``), and the Episodes come back to the
trainer's process. A worker that dies is restarted and its groups played again.

Ray is imported only here (``pip install 'turngym[ray]'``); without a running cluster
the first ``RayVectorEnv`` starts a local one (``ray.init(**ray_init)``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from copy import deepcopy
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate

from turngym.envs.vector import reset_seeds
from turngym.extras import needs_extra

__all__ = ["RayRolloutWorkers", "RayVectorEnv"]


class _EnvActor:
    """One sub-env inside a Ray actor (the class is wrapped by ``ray.remote`` on use)."""

    def __init__(self, env_fn: Callable[[], gym.Env]) -> None:
        self.env = env_fn()

    def spaces(self) -> tuple[gym.Space, gym.Space, dict[str, Any]]:
        return self.env.observation_space, self.env.action_space, dict(self.env.metadata)

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> tuple[Any, dict]:
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, float(reward), bool(terminated), bool(truncated), info

    def pid(self) -> int:
        import os

        return os.getpid()

    def close(self) -> None:
        self.env.close()


class RayVectorEnv(VectorEnv):
    """A vector env whose sub-envs run in Ray actors, restarted when they die.

    Args:
        env_fns: functions that build the sub-envs (shipped to the actors by pickle,
            so lambdas over ``gym.make`` are fine).
        num_cpus: CPUs Ray reserves for each env actor.
        max_restarts: restarts allowed per env before its error is raised.
        ray_init: ``ray.init`` arguments when no cluster is running yet (e.g.
            ``{"num_cpus": 2}``; ``{"address": "auto"}`` joins a running cluster).
        copy: return copies of the batched observations (as ``SyncVectorEnv``).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> envs = RayVectorEnv([lambda: gym.make("turngym/Bandit-v0")] * 2,
        ...                     ray_init={"num_cpus": 2})  # doctest: +SKIP
        >>> obs, infos = envs.reset(seed=0)  # doctest: +SKIP
        >>> envs.close()  # doctest: +SKIP

    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gym.Env]],
        *,
        num_cpus: float = 1,
        max_restarts: int = 3,
        ray_init: dict[str, Any] | None = None,
        copy: bool = True,
    ) -> None:
        if not env_fns:
            raise ValueError("RayVectorEnv needs at least one env function")
        if not isinstance(max_restarts, int) or max_restarts < 0:
            raise ValueError(f"max_restarts must be an int >= 0, got {max_restarts!r}")
        ray = self._ray = _start_ray(ray_init)
        self._remote: Any = ray.remote(num_cpus=num_cpus)(_EnvActor)
        self.env_fns = list(env_fns)
        self.num_envs = len(self.env_fns)
        self.max_restarts = max_restarts
        self.restarts = [0] * self.num_envs
        """how many times each env's actor has been restarted"""
        self.copy = copy
        self.actors: list[Any] = [self._remote.remote(fn) for fn in self.env_fns]
        obs_space, act_space, metadata = ray.get(self.actors[0].spaces.remote())
        self.single_observation_space = obs_space
        self.single_action_space = act_space
        self.observation_space = batch_space(obs_space, self.num_envs)
        self.action_space = batch_space(act_space, self.num_envs)
        self.metadata = {**metadata, "autoreset_mode": AutoresetMode.NEXT_STEP}
        self.autoreset_mode = AutoresetMode.NEXT_STEP
        self._env_obs: list[Any] = [None] * self.num_envs
        self._observations: Any = create_empty_array(obs_space, n=self.num_envs, fn=np.zeros)
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._terminations = np.zeros(self.num_envs, dtype=np.bool_)
        self._truncations = np.zeros(self.num_envs, dtype=np.bool_)
        self._autoreset = np.zeros(self.num_envs, dtype=np.bool_)

    # -- actors ---------------------------------------------------------------------

    def _restart(self, i: int, error: Exception) -> None:
        """Replace env ``i``'s dead actor with a new one, or raise past ``max_restarts``."""
        if self.restarts[i] >= self.max_restarts:
            raise RuntimeError(
                f"env {i}'s actor died {self.restarts[i] + 1} times (max_restarts="
                f"{self.max_restarts}); last error: {error}"
            ) from error
        self.restarts[i] += 1
        self._ray.kill(self.actors[i], no_restart=True)
        self.actors[i] = self._remote.remote(self.env_fns[i])

    def _gather(self, calls: dict[int, Any]) -> dict[int, Any | Exception]:
        """Each call's result, or the error that says its actor died."""
        from ray.exceptions import ActorDiedError, ActorUnavailableError, RayActorError

        dead = (RayActorError, ActorDiedError, ActorUnavailableError)
        results: dict[int, Any | Exception] = {}
        for i, ref in calls.items():
            try:
                results[i] = self._ray.get(ref)
            except dead as error:
                results[i] = error
        return results

    def actor_pids(self) -> list[int]:
        """The process id of each env's actor (to find or stop one)."""
        return list(self._ray.get([a.pid.remote() for a in self.actors]))

    # -- the vector env API ------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env (``seed`` as ``SyncVectorEnv``: an int gives seed, seed+1...)."""
        seeds = reset_seeds(seed, self.num_envs)
        pending = set(range(self.num_envs))
        infos: dict[str, Any] = {}
        while pending:
            calls = {i: self.actors[i].reset.remote(seeds[i], options) for i in sorted(pending)}
            for i, result in self._gather(calls).items():
                if isinstance(result, Exception):
                    self._restart(i, result)  # reset again on the new actor
                    continue
                obs, info = result
                self._env_obs[i] = obs
                infos = self._add_info(infos, info, i)
                pending.discard(i)
        self._terminations[:] = self._truncations[:] = self._autoreset[:] = False
        return self._batched(), infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Step every sub-env at once; an env whose episode ended last step resets instead."""
        actions = list(iterate(self.action_space, actions))
        if len(actions) != self.num_envs:
            raise ValueError(f"{len(actions)} actions given for {self.num_envs} envs")
        calls = {
            i: (
                self.actors[i].reset.remote(None, None)
                if self._autoreset[i]
                else self.actors[i].step.remote(actions[i])
            )
            for i in range(self.num_envs)
        }
        infos: dict[str, Any] = {}
        for i, result in self._gather(calls).items():
            if isinstance(result, Exception):
                self._restart(i, result)
                # The episode is lost with its actor: it ends here, truncated.
                info = {"actor_restarted": True, "actor_error": str(result).splitlines()[0]}
                self._rewards[i], self._terminations[i], self._truncations[i] = 0.0, False, True
            elif self._autoreset[i]:
                self._env_obs[i], info = result
                self._rewards[i], self._terminations[i], self._truncations[i] = 0.0, False, False
            else:
                obs, reward, terminated, truncated, info = result
                self._env_obs[i] = obs
                self._rewards[i] = reward
                self._terminations[i], self._truncations[i] = terminated, truncated
            infos = self._add_info(infos, info, i)
        self._autoreset = np.logical_or(self._terminations, self._truncations)
        return (
            self._batched(),
            np.copy(self._rewards),
            np.copy(self._terminations),
            np.copy(self._truncations),
            infos,
        )

    def _batched(self) -> Any:
        self._observations = concatenate(
            self.single_observation_space, self._env_obs, self._observations
        )
        return deepcopy(self._observations) if self.copy else self._observations

    def close_extras(self, **kwargs: Any) -> None:
        """Close every env and stop its actor (the Ray cluster keeps running)."""
        for actor in self.actors:
            with contextlib.suppress(Exception):  # a dead or hung actor: killed below anyway
                self._ray.get(actor.close.remote(), timeout=30)
            self._ray.kill(actor, no_restart=True)


def _start_ray(ray_init: dict[str, Any] | None) -> Any:
    """The ``ray`` module, with a cluster running (a local one if none is)."""
    with needs_extra("ray", "RayVectorEnv or RayRolloutWorkers"):
        import ray
    if not ray.is_initialized():
        ray.init(**{"include_dashboard": False, **(ray_init or {})})
    return ray


class _RolloutActor:
    """A ``Collector`` inside a Ray actor (wrapped by ``ray.remote`` on use)."""

    def __init__(self, env: str, agent: str, settings: dict[str, Any]) -> None:
        from turngym.sdk.rollout import Collector

        self.collector = Collector(env, agent, progress=False, **settings)

    def collect(self, groups: int, seed: int, group_size: int, first_group: int) -> list[Any]:
        episodes = self.collector.collect(groups * group_size, seed + first_group, group_size)
        for episode in episodes:  # numbered as one collection of the whole batch numbers them
            episode.group += first_group
            episode.index += first_group * group_size
        return episodes

    def close(self) -> None:
        self.collector.close()


class RayRolloutWorkers:
    """``num_workers`` Ray actors, each collecting episodes with its own envs.

    The agent is named, so that each worker builds its own: ``"openai:URL"`` for a
    shared policy server (the usual case: generation stays on the GPU's server, envs
    spread over CPU nodes), or ``"random"``/``"expert"``. Episodes are split between
    workers by whole groups, and group ``g`` is played with seed ``seed + g`` as a local
    ``Collector.collect`` plays it, so with greedy decoding remote and local collection
    give the same episodes.

    Args:
        env: a registered env id.
        agent: a ``make_agent`` name (``"openai:http://127.0.0.1:8000/v1"``...).
        num_workers: rollout actors.
        envs_per_worker: envs each actor steps in lockstep.
        env_kwargs: passed to ``turngym.make``.
        max_turns: cut an episode after this many turns.
        num_cpus: CPUs Ray reserves for each actor.
        max_restarts: restarts allowed per worker before its error is raised.
        ray_init: ``ray.init`` arguments when no cluster is running yet.

    Example:
        >>> workers = RayRolloutWorkers("turngym/Bandit-v0", "random", num_workers=2,
        ...                             ray_init={"num_cpus": 2})  # doctest: +SKIP
        >>> episodes = workers.collect(8, seed=0, group_size=2)  # doctest: +SKIP
        >>> workers.close()  # doctest: +SKIP

    """

    def __init__(
        self,
        env: str,
        agent: str,
        *,
        num_workers: int = 2,
        envs_per_worker: int = 4,
        env_kwargs: dict[str, Any] | None = None,
        max_turns: int | None = None,
        num_cpus: float = 1,
        max_restarts: int = 3,
        ray_init: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(agent, str):
            raise ValueError(
                "agent must be a make_agent name (each worker builds its own), e.g. "
                f"'openai:http://127.0.0.1:8000/v1' or 'random'; got {type(agent).__name__}"
            )
        for name, value in (("num_workers", num_workers), ("envs_per_worker", envs_per_worker)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        self._ray = _start_ray(ray_init)
        self._remote: Any = self._ray.remote(num_cpus=num_cpus)(_RolloutActor)
        self.env, self.agent = env, agent
        self._settings = {"num_envs": envs_per_worker, "env_kwargs": env_kwargs}
        self._settings["max_turns"] = max_turns
        self.max_restarts = max_restarts
        self.restarts = [0] * num_workers
        """how many times each worker has been restarted"""
        self.workers: list[Any] = [self._start() for _ in range(num_workers)]

    def _start(self) -> Any:
        return self._remote.remote(self.env, self.agent, self._settings)

    def collect(self, episodes: int, seed: int = 0, group_size: int = 1) -> list[Any]:
        """``episodes`` Episodes in ``episodes // group_size`` groups, in index order."""
        from ray.exceptions import RayActorError

        from turngym.sdk.rollout import _check_counts

        _check_counts(episodes, group_size)
        groups = episodes // group_size
        n = len(self.workers)
        shares = [groups // n + (1 if w < groups % n else 0) for w in range(n)]
        starts = [sum(shares[:w]) for w in range(n)]
        todo = {w: (shares[w], starts[w]) for w in range(n) if shares[w]}
        done: list[Any] = []
        while todo:
            calls = {
                w: self.workers[w].collect.remote(count, seed, group_size, first)
                for w, (count, first) in todo.items()
            }
            for w, ref in calls.items():
                try:
                    done.extend(self._ray.get(ref))
                except RayActorError as error:
                    self._restart(w, error)  # its groups are played again below
                    continue
                del todo[w]
        done.sort(key=lambda ep: ep.index)
        return done

    def _restart(self, w: int, error: Exception) -> None:
        if self.restarts[w] >= self.max_restarts:
            raise RuntimeError(
                f"rollout worker {w} died {self.restarts[w] + 1} times (max_restarts="
                f"{self.max_restarts}); last error: {error}"
            ) from error
        self.restarts[w] += 1
        self._ray.kill(self.workers[w], no_restart=True)
        self.workers[w] = self._start()

    def close(self) -> None:
        """Close every worker's envs and stop the actors (the cluster keeps running)."""
        for worker in self.workers:
            with contextlib.suppress(Exception):  # a dead worker: killed below anyway
                self._ray.get(worker.close.remote(), timeout=30)
            self._ray.kill(worker, no_restart=True)

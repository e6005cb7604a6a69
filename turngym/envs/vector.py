"""``ThreadedVectorEnv``: a vector env that steps its sub-envs at the same time, in threads.

Gymnasium's ``SyncVectorEnv`` steps sub-envs one after another, which wastes the time
an env spends waiting on something else: a browser rendering a page, a sandbox running
tests, a server answering. ``AsyncVectorEnv`` overlaps that waiting with a process per
env, which costs a Python interpreter (and, for web envs, a Chromium) each. This class
keeps everything in one process and overlaps the waiting with one thread per sub-env:
web envs of one process then share one Chromium and keep all its renderers busy.

It is a ``SyncVectorEnv`` in every other way (same spaces, autoreset modes, info
batching), so code written for it works unchanged. Sub-envs must tolerate being stepped
from a worker thread (each env is only ever used by one thread at a time); turngym's web
envs do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from copy import deepcopy
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.vector.utils import concatenate, iterate

__all__ = ["ThreadedVectorEnv", "reset_seeds"]


def reset_seeds(seed: int | Sequence[int | None] | None, num_envs: int) -> list[int | None]:
    """Each sub-env's reset seed from None, an int (seed, seed+1, ...) or one per env.

    >>> reset_seeds(5, 3)
    [5, 6, 7]
    """
    if seed is None:
        return [None] * num_envs
    seeds: list[int | None] = (
        [seed + i for i in range(num_envs)] if isinstance(seed, int) else list(seed)
    )
    if len(seeds) != num_envs:
        raise ValueError(f"{len(seeds)} seeds given for {num_envs} envs; pass one each")
    return seeds


class ThreadedVectorEnv(SyncVectorEnv):
    """A ``SyncVectorEnv`` whose ``reset`` and ``step`` run the sub-envs concurrently.

    Args:
        env_fns: functions that build the sub-envs.
        max_workers: threads (default: one per sub-env).
        **kwargs: passed to ``SyncVectorEnv`` (``copy``, ``autoreset_mode``...).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> envs = ThreadedVectorEnv([lambda: gym.make("turngym/Bandit-v0")] * 2)
        >>> obs, infos = envs.reset(seed=0)
        >>> len(obs)
        2
        >>> envs.close()

    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gym.Env]],
        max_workers: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(env_fns, **kwargs)
        if max_workers is not None and max_workers < 1:
            raise ValueError(f"max_workers must be a positive int or None, got {max_workers!r}")
        self._pool = ThreadPoolExecutor(
            max_workers or self.num_envs, thread_name_prefix="turngym-vector"
        )

    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the sub-envs concurrently (``seed``/``options`` as ``SyncVectorEnv``)."""
        seeds = reset_seeds(seed, self.num_envs)
        options = dict(options) if options is not None else None
        mask = options.pop("reset_mask", None) if options is not None else None
        if mask is None:
            mask = np.ones(self.num_envs, dtype=np.bool_)
        elif not isinstance(mask, np.ndarray) or mask.shape != (self.num_envs,) or not mask.any():
            raise ValueError(f"options['reset_mask'] must be {self.num_envs} bools, one per env")
        chosen = [i for i in range(self.num_envs) if mask[i]]
        results = list(
            self._pool.map(lambda i: self.envs[i].reset(seed=seeds[i], options=options), chosen)
        )
        infos: dict[str, Any] = {}
        for i, (obs, info) in zip(chosen, results, strict=True):
            self._env_obs[i] = obs
            self._terminations[i] = self._truncations[i] = self._autoreset_envs[i] = False
            infos = self._add_info(infos, info, i)
        self._observations = concatenate(
            self.single_observation_space, self._env_obs, self._observations
        )
        return (deepcopy(self._observations) if self.copy else self._observations), infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Step every sub-env at once (a sub-env due for autoreset resets instead)."""
        actions = list(iterate(self.action_space, actions))
        if len(actions) != self.num_envs:
            raise ValueError(f"{len(actions)} actions given for {self.num_envs} envs")
        mode = self.autoreset_mode

        def one(i: int) -> tuple[Any, float, bool, bool, dict, dict | None]:
            env = self.envs[i]
            if mode == AutoresetMode.NEXT_STEP and self._autoreset_envs[i]:
                obs, info = env.reset()
                return obs, 0.0, False, False, info, None
            obs, reward, terminated, truncated, info = env.step(actions[i])
            final = None
            if mode == AutoresetMode.SAME_STEP and (terminated or truncated):
                final = {"final_obs": obs, "final_info": info}
                obs, info = env.reset()
            return obs, float(reward), terminated, truncated, info, final

        infos: dict[str, Any] = {}
        for i, result in enumerate(self._pool.map(one, range(self.num_envs))):
            obs, reward, terminated, truncated, info, final = result
            self._env_obs[i] = obs
            self._rewards[i] = reward
            self._terminations[i] = terminated
            self._truncations[i] = truncated
            if final is not None:
                infos = self._add_info(infos, final, i)
            infos = self._add_info(infos, info, i)
        self._observations = concatenate(
            self.single_observation_space, self._env_obs, self._observations
        )
        self._autoreset_envs = np.logical_or(self._terminations, self._truncations)
        return (
            deepcopy(self._observations) if self.copy else self._observations,
            np.copy(self._rewards),
            np.copy(self._terminations),
            np.copy(self._truncations),
            infos,
        )

    def close_extras(self, **kwargs: Any) -> None:
        """Close the sub-envs, then the thread pool."""
        super().close_extras(**kwargs)
        self._pool.shutdown(wait=True)

"""The training-step protocol: how a trainer tells wrappers how far training has got.

A wrapper whose behaviour follows training progress (``HorizonCurriculum``: the turn
limit grows with the step) defines ``set_training_step(step: int) -> None``.
Trainers call ``set_training_step(env, step)`` on every env they collect from, before
each collection (held-out evaluation included): it calls the method on every layer of
the wrapper stack that defines it, outermost first, and on every sub-env of a vector env
that keeps its sub-envs in this process (``SyncVectorEnv``). The envs of an
``AsyncVectorEnv`` live in other processes: call ``envs.call("set_training_step", k)``
there (it reaches the outermost layer that defines it).

``step`` is the trainer's count of finished training steps (0 before the first update;
what its ``steps`` config counts). A run resumed from a checkpoint at step k passes k
again, so a wrapper keeps no state of its own that a checkpoint must hold.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["TrainingStepAware", "set_training_step"]


@runtime_checkable
class TrainingStepAware(Protocol):
    """A wrapper that follows the training step (``HorizonCurriculum``)."""

    def set_training_step(self, step: int) -> None:
        """Take note that training has finished ``step`` steps."""


def set_training_step(env: Any, step: int) -> int:
    """Tell every layer of ``env`` that asks for it the training step; how many did.

    Walks ``env.env`` down to the base env (gymnasium and PettingZoo wrappers), and
    the ``envs`` of a vector env. A layer asks when its class defines
    ``set_training_step`` (attributes are not looked up through wrappers, so each
    layer is called once).

    Raises:
        ValueError: ``step`` is not an int >= 0.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> from turngym.wrappers import ChatHistory, HorizonCurriculum
        >>> curriculum = HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), [(0, 2), (5, 4)])
        >>> env = ChatHistory(curriculum)
        >>> set_training_step(env, 5)
        1
        >>> env.reset(seed=0)[1]["horizon"]
        4

    """
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise ValueError(f"step must be an int >= 0 (finished training steps), got {step!r}")
    told = 0
    todo, seen = [env], set()
    while todo:
        layer = todo.pop()
        if layer is None or id(layer) in seen:
            continue
        seen.add(id(layer))
        if callable(getattr(type(layer), "set_training_step", None)):
            layer.set_training_step(step)
            told += 1
        # ``vars``: a layer's own ``env``/``envs``, never one a PettingZoo wrapper would
        # look up through its inner layers
        own = vars(layer) if hasattr(layer, "__dict__") else {}
        subs = own.get("envs")
        if isinstance(subs, (list, tuple)):
            todo.extend(reversed(subs))
        todo.append(own.get("env"))
    return told

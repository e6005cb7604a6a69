"""``HorizonCurriculum``: the turn limit of each episode grows with training progress.

ScalingInter-RL trains on short interactions first and lengthens them as the policy
improves. A ``HorizonSchedule`` maps a training step (a counter the trainer advances)
to a maximum number of turns; ``HorizonCurriculum`` reads it at every ``reset`` and
truncates the episode once that many turns (invalid ones included) were played.

The trainers (``GRPOTrainer``, ``SACGLAMTrainer``, ``ArCHerTrainer``) accept it as
``wrappers=["horizon_curriculum:schedule=[(0, 2), (100, 5)]"]`` and set it to their
step before every collection, through the training-step protocol
(``turngym.wrappers.training_step``: ``set_training_step(step)`` on every layer that
defines it); a resumed run sets its checkpoint's step again, so the horizon resumes
exactly. The step counts the trainer's finished steps (0 before the first update).

One ``HorizonSchedule`` may be shared by many wrapped envs in one process (a list of
envs, ``SyncVectorEnv``) so a loop of your own advances them all at once. Envs in other
processes (``AsyncVectorEnv``) each hold a copy: set them with
``envs.call("set_training_step", k)``.

How it composes with the env's own limits: the wrapper only ever *adds* a limit.
``gym.make`` puts a ``TimeLimit`` (the registered ``max_episode_steps``) inside the
wrapper, and some envs have their own ``max_turns``; the episode ends at whichever
comes first. A horizon above them has no effect, so to let the curriculum go further
raise them: ``gym.make(env_id, max_episode_steps=N)`` (and the env's ``max_turns=``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

__all__ = ["HorizonCurriculum", "HorizonSchedule"]

ScheduleLike = int | Sequence[tuple[int, int]] | Callable[[int], int]


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be an int >= 1 (turns per episode), got {value!r}")
    return value


class HorizonSchedule:
    """Maximum turns per episode as a function of a training-step counter.

    Args:
        schedule: an int (a constant horizon); a list of ``(step, max_turns)``
            breakpoints, piecewise constant, the first at step 0; or a callable
            ``step -> max_turns``.
        step: the counter's starting value.

    Example:
        >>> schedule = HorizonSchedule([(0, 2), (100, 5), (300, 10)])
        >>> schedule.horizon, schedule.advance(150), schedule.horizon
        (2, 150, 5)
        >>> schedule.set_step(1000)
        >>> schedule.horizon
        10

    """

    def __init__(self, schedule: ScheduleLike, step: int = 0) -> None:
        self._fn: Callable[[int], int]
        if isinstance(schedule, int) and not isinstance(schedule, bool):
            constant = _positive_int(schedule, "schedule")
            self._fn = lambda _step: constant
        elif callable(schedule):
            self._fn = schedule
        elif isinstance(schedule, Sequence) and not isinstance(schedule, str):
            self._breakpoints = self._check_breakpoints(schedule)
            self._fn = self._piecewise
        else:
            raise ValueError(
                "schedule must be an int, a list of (step, max_turns) breakpoints or a "
                f"callable step -> max_turns; got {schedule!r}"
            )
        self.training_step = 0
        self.set_step(step)
        self.horizon  # noqa: B018  (fail fast on a callable that returns nonsense at the start)

    @staticmethod
    def _check_breakpoints(points: Sequence[Any]) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for point in points:
            if not (isinstance(point, (tuple, list)) and len(point) == 2):
                raise ValueError(f"each breakpoint must be a (step, max_turns) pair, got {point!r}")
            step, turns = point
            if isinstance(step, bool) or not isinstance(step, int) or step < 0:
                raise ValueError(f"breakpoint steps must be ints >= 0, got {step!r}")
            if out and step <= out[-1][0]:
                raise ValueError(f"breakpoint steps must increase, got {step} after {out[-1][0]}")
            out.append((step, _positive_int(turns, f"max_turns at step {step}")))
        if not out or out[0][0] != 0:
            raise ValueError(
                "the first breakpoint must be at step 0, e.g. [(0, 2), (1000, 4)]; got "
                f"{list(points)!r}"
            )
        return out

    def _piecewise(self, step: int) -> int:
        turns = self._breakpoints[0][1]
        for at, value in self._breakpoints:
            if step < at:
                break
            turns = value
        return turns

    def __call__(self, step: int) -> int:
        """The horizon at ``step``."""
        return _positive_int(self._fn(step), f"schedule({step})")

    @property
    def horizon(self) -> int:
        """The horizon at the current training step."""
        return self(self.training_step)

    def advance(self, n: int = 1) -> int:
        """Move the counter ``n`` steps forward; return the new step."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"advance(n) takes an int n >= 0, got {n!r}")
        self.training_step += n
        return self.training_step

    def set_step(self, step: int) -> None:
        """Set the counter (e.g. when resuming a run)."""
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise ValueError(f"set_step(step) takes an int step >= 0, got {step!r}")
        self.training_step = step


class HorizonCurriculum(gym.Wrapper, RecordConstructorArgs):
    """Truncate each episode after ``schedule``'s current horizon of turns.

    The horizon is read once per episode, at ``reset``: advancing the schedule during
    an episode changes the next one. Every ``reset`` and ``step`` reports
    ``info["horizon"]`` (this episode's limit); the step that hits it returns
    ``truncated=True``, ``info["horizon_truncated"] = True``, a closing line appended to
    a text observation and ``legal_actions`` emptied. An episode the env ends by itself
    on that same turn ends its own way. Steps after the wrapper's truncation are
    answered like ``TextEnv`` answers them (no env call, reward 0, ``invalid_action``).

    Args:
        env: the env to wrap.
        schedule: a ``HorizonSchedule`` (shared with other envs), or what its
            constructor takes: an int, ``(step, max_turns)`` breakpoints, or a callable.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), [(0, 2), (10, 8)])
        >>> _, info = env.reset(seed=0)
        >>> _ = env.step("right")
        >>> obs, reward, terminated, truncated, info = env.step("right")
        >>> truncated, info["horizon"], info["horizon_truncated"]
        (True, 2, True)
        >>> env.advance(10)
        10
        >>> env.reset(seed=0)[1]["horizon"]
        8

    """

    def __init__(self, env: gym.Env, schedule: HorizonSchedule | ScheduleLike) -> None:
        RecordConstructorArgs.__init__(self, schedule=schedule)
        gym.Wrapper.__init__(self, env)
        self.schedule = (
            schedule if isinstance(schedule, HorizonSchedule) else HorizonSchedule(schedule)
        )
        self.episode_horizon: int | None = None
        self._turns = 0
        self._over = False
        self._success = False
        self._had_legal = False

    # -- the trainer's controls ------------------------------------------------------

    @property
    def training_step(self) -> int:
        """The schedule's counter."""
        return self.schedule.training_step

    @property
    def horizon(self) -> int:
        """The horizon the next episode will get."""
        return self.schedule.horizon

    def advance(self, n: int = 1) -> int:
        """Advance the (possibly shared) schedule ``n`` steps; return the new step."""
        return self.schedule.advance(n)

    def set_step(self, step: int) -> None:
        """Set the (possibly shared) schedule's counter."""
        self.schedule.set_step(step)

    def set_training_step(self, step: int) -> None:
        """Set the schedule to the trainer's ``step`` (the training-step protocol).

        Trainers call it before every collection (``turngym.wrappers.training_step``);
        the next episode's horizon is the schedule's at ``step``.
        """
        self.schedule.set_step(step)

    # -- the Gymnasium API -------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env; this episode's horizon is the schedule's value now."""
        self.episode_horizon = self.schedule.horizon
        self._turns = 0
        self._over = False
        obs, info = self.env.reset(seed=seed, options=options)
        info = dict(info)
        info["horizon"] = self.episode_horizon
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env, truncating when this episode's horizon is reached."""
        if self.episode_horizon is None:
            raise gym.error.ResetNeeded("Call reset() before step().")
        if self._over:
            info: dict[str, Any] = {
                "turn": self._turns,
                "invalid_action": True,
                "invalid_reason": "episode is over",
                "success": self._success,
                "horizon": self.episode_horizon,
                "horizon_truncated": True,
            }
            if self._had_legal:
                info["legal_actions"] = []
            return "The episode is over; call reset() to start a new one.", 0.0, False, True, info
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._turns += 1
        info = dict(info)
        info["horizon"] = self.episode_horizon
        if not (terminated or truncated) and self._turns >= self.episode_horizon:
            self._over = True
            self._success = bool(info.get("success", False))
            self._had_legal = "legal_actions" in info
            truncated = True
            info["horizon_truncated"] = True
            info.setdefault("success", False)
            if self._had_legal:
                info["legal_actions"] = []
            if isinstance(obs, str):
                obs = f"{obs}\nOut of turns (horizon {self.episode_horizon}); the episode ends."
        return obs, float(reward), terminated, truncated, info

"""``UnaryFeedback``: a wrong final answer does not end the episode; the agent tries again.

Unary feedback as observation (UFO): after a wrong answer the agent hears only a fixed
message such as "Let's try again." (no hint) and answers the same task again, until it
succeeds or runs out of attempts. Built for single-answer envs (``Countdown-v0``,
``SearchQA-v0``, ``Bandit-v0``, ``Blackjack-v0``, ``TryAgainQA-v0`` with
``max_attempts=1``), it works on any env: an attempt *fails* when the env terminates
with ``info["success"]`` False; a multi-turn env (e.g. ``FrozenLake-v0`` after a hole)
then restarts the same task from its first observation.

How the same task comes back: every episode is started with a seed (the caller's, or
one drawn from the env's own RNG when ``reset(seed=None)``), and a retry resets the env
with that seed and the same options. If the first observation then differs (an env
that is not deterministic under its seed) the wrapper ends the episode instead of
posing a different task.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

from turngym.wrappers.stack_order import check_order

__all__ = ["AttemptCounter", "UnaryFeedback"]


class AttemptCounter:
    """Decides, step by step, whether a finished attempt is retried (no Gymnasium needed).

    Args:
        max_attempts: answers allowed per episode, the first included (>= 1).
        attempt_penalty: reward (>= 0) subtracted on every failed attempt that is retried.

    Example:
        >>> counter = AttemptCounter(max_attempts=2)
        >>> counter.reset()
        >>> counter.retry(terminated=True, truncated=False, success=False)
        True
        >>> counter.attempt, counter.retry(terminated=True, truncated=False, success=False)
        (2, False)

    """

    def __init__(self, max_attempts: int, attempt_penalty: float = 0.0) -> None:
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(f"max_attempts must be an int >= 1, got {max_attempts!r}")
        if (
            isinstance(attempt_penalty, bool)
            or not isinstance(attempt_penalty, (int, float))
            or not attempt_penalty >= 0
            or attempt_penalty == float("inf")
        ):
            raise ValueError(
                f"attempt_penalty must be a finite number >= 0 (it is subtracted), "
                f"got {attempt_penalty!r}"
            )
        self.max_attempts = max_attempts
        self.attempt_penalty = float(attempt_penalty)
        self.reset()

    def reset(self) -> None:
        """Back to the first attempt."""
        self.attempt = 1

    def retry(self, *, terminated: bool, truncated: bool, success: bool) -> bool:
        """Whether this step ends a failed attempt that gets another try (then counts it)."""
        if truncated or not terminated or success or self.attempt >= self.max_attempts:
            return False
        self.attempt += 1
        return True


class UnaryFeedback(gym.Wrapper, RecordConstructorArgs):
    """Let the agent answer again after a wrong final answer, with unary feedback only.

    A failed attempt (terminated, ``success`` False) before ``max_attempts`` returns
    ``terminated=False``, reward ``-attempt_penalty`` (0 by default), and as observation
    ``message`` followed by a blank line and the env's first observation of the task
    (``repeat_task=False``: the message alone). The env's own closing observation and
    info are withheld: they often reveal the answer. The info of that step is the env's
    reset info plus ``attempt``, ``invalid_action=False``, ``success=False`` and
    ``failed_reward`` (what the env paid for the wrong answer). The step that ends the
    episode carries the env's reward for the final attempt, unchanged. Truncations
    (turn limits, invalid actions in a row) end the episode: they are not answers. Each
    attempt runs under the env's own limits afresh (``TimeLimit`` is reset with it).

    ``info["attempt"]`` (1-based) is on every reset and step.

    Args:
        env: the env to wrap.
        message: what the agent hears after a wrong answer.
        max_attempts: answers per episode, the first included.
        attempt_penalty: reward subtracted on each retried failed attempt (>= 0).
        repeat_task: show the task's first observation again after the message.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = UnaryFeedback(gym.make("turngym/Bandit-v0"), max_attempts=3)
        >>> _, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step("Bread")  # the safe arm
        >>> obs.splitlines()[0], terminated, info["attempt"]
        ("Let's try again.", False, 2)
        >>> obs, reward, terminated, truncated, info = env.step("Jackpot")
        >>> terminated, info["success"], info["attempt"]
        (True, True, 2)

    """

    def __init__(
        self,
        env: gym.Env,
        message: str = "Let's try again.",
        max_attempts: int = 5,
        attempt_penalty: float = 0.0,
        repeat_task: bool = True,
    ) -> None:
        RecordConstructorArgs.__init__(
            self,
            message=message,
            max_attempts=max_attempts,
            attempt_penalty=attempt_penalty,
            repeat_task=repeat_task,
        )
        check_order("UnaryFeedback", env)
        gym.Wrapper.__init__(self, env)
        if not isinstance(message, str) or not message.strip():
            raise ValueError(f"message must be a non-empty string, got {message!r}")
        self.core = AttemptCounter(max_attempts, attempt_penalty)
        self.message = message
        self.repeat_task = bool(repeat_task)
        self._seed: int | None = None
        self._options: dict[str, Any] | None = None
        self._first_obs: Any = None

    @property
    def attempt(self) -> int:
        """The current attempt, 1-based."""
        return self.core.attempt

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start a task at attempt 1 (with ``seed=None`` the seed comes from the env's RNG)."""
        if seed is None:
            # Drawn from the env's own stream so that a retry can replay this task exactly.
            seed = int(self.env.unwrapped.np_random.integers(2**31 - 1))
        self._seed, self._options = seed, options
        self.core.reset()
        obs, info = self.env.reset(seed=seed, options=options)
        self._first_obs = obs
        info = dict(info)
        info["attempt"] = self.core.attempt
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env; a failed attempt with attempts left restarts the task."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        success = bool(info.get("success", False))
        if self.core.retry(terminated=terminated, truncated=truncated, success=success):
            again, reset_info = self.env.reset(seed=self._seed, options=self._options)
            if repr(again) == repr(self._first_obs):
                text: Any = again  # non-text observations come back as the env shows them
                if isinstance(again, str):
                    text = f"{self.message}\n\n{again}" if self.repeat_task else self.message
                out = dict(reset_info)
                out.update(
                    invalid_action=False,
                    success=False,
                    attempt=self.core.attempt,
                    failed_reward=float(reward),
                )
                return text, -self.core.attempt_penalty, False, False, out
            # Not the same task: end here rather than pose another one (the env is left
            # freshly reset, which Gymnasium allows after the end).
            self.core.attempt -= 1
        info = dict(info)
        info["attempt"] = self.core.attempt
        return obs, float(reward), terminated, truncated, info

"""``UnaryFeedback``: a wrong final answer does not end the episode; the agent tries again.

Unary feedback as observation (UFO, "A Simple 'Try Again' Can Elicit Multi-Turn LLM
Reasoning"): after a wrong answer the agent hears only a fixed message such as "Let's
try again." (no hint) and answers the same task again, until it succeeds or runs out
of attempts. As in UFO, the observation of a new attempt is the question followed by
every earlier attempt and its feedback, and two optional reward shapings favour early
success (``reward_decay``: UFO's gamma^t) and distinct answers (``repetition_penalty``:
UFO's lambda * (1 - distinct answers / answers)). Built for single-answer envs (``Countdown-v0``,
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

from turngym.spaces import Unicode
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
    ``terminated=False``, reward ``-attempt_penalty``, and as observation UFO's context:
    the env's first observation of the task, then every attempt so far and its
    feedback::

        <the task>

        Attempt 1: <what the agent answered>
        Let's try again.

        Attempt 2: ...
        Let's try again.

    An attempt is shown as the actions it took, joined by ``"; "`` (one action in a
    single-answer env), cut to ``max_attempt_chars``. The env's own closing observation
    and info are withheld: they often reveal the answer. The info of that step is the
    env's reset info plus ``attempt``, ``invalid_action=False``, ``success=False``,
    ``failed_reward`` (what the env paid for the wrong answer) and ``repeated_answer``.

    The step that ends the episode carries the env's reward for the final attempt,
    multiplied by ``reward_decay ** (attempt - 1)`` when it succeeds (a failure's reward
    is not scaled), minus ``repetition_penalty * (1 - distinct / answers)`` over the
    episode's answers (attempts that ended by termination; answers are compared with
    case and spacing ignored). Its info adds ``repeated_answer`` and ``unique_answers``.
    Truncations (turn limits, invalid actions in a row) end the episode: they are not
    answers. Each attempt runs under the env's own limits afresh (``TimeLimit`` is reset
    with it). ``info["attempt"]`` (1-based) is on every reset and step.

    Under ``ChatHistory`` the conversation already holds every attempt: pass
    ``history=False`` so that a retry shows the message (and the task) only.

    Args:
        env: the env to wrap.
        message: what the agent hears after a wrong answer (default ``"Let's try again."``).
        max_attempts: answers per episode, the first included (default 5).
        attempt_penalty: reward subtracted on each retried failed attempt, >= 0
            (default 0.0).
        repeat_task: start a retry's observation with the task's first observation
            (default True).
        history: show every earlier attempt and its feedback, as UFO does (default
            True); False: the message, then the task (with ``repeat_task``).
        reward_decay: UFO's gamma in (0, 1]: success at attempt ``k`` earns
            ``gamma ** (k - 1)`` of the env's reward (default 1.0: no decay).
        repetition_penalty: UFO's lambda >= 0, taken at the end of the episode times
            the share of repeated answers (default 0.0: none).
        max_attempt_chars: the most characters of an attempt the history shows, >= 1
            (default 2000).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = UnaryFeedback(gym.make("turngym/Bandit-v0"), max_attempts=3)
        >>> _, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step("Bread")  # the safe arm
        >>> obs.splitlines()[-2:], terminated, info["attempt"]
        (['Attempt 1: Bread', "Let's try again."], False, 2)
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
        history: bool = True,
        reward_decay: float = 1.0,
        repetition_penalty: float = 0.0,
        max_attempt_chars: int = 2000,
    ) -> None:
        RecordConstructorArgs.__init__(
            self,
            message=message,
            max_attempts=max_attempts,
            attempt_penalty=attempt_penalty,
            repeat_task=repeat_task,
            history=history,
            reward_decay=reward_decay,
            repetition_penalty=repetition_penalty,
            max_attempt_chars=max_attempt_chars,
        )
        check_order("UnaryFeedback", env)
        gym.Wrapper.__init__(self, env)
        if not isinstance(message, str) or not message.strip():
            raise ValueError(f"message must be a non-empty string, got {message!r}")
        for name, flag in (("repeat_task", repeat_task), ("history", history)):
            if not isinstance(flag, bool):
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        if not _number(reward_decay) or not 0 < reward_decay <= 1:
            raise ValueError(f"reward_decay must be a number in (0, 1], got {reward_decay!r}")
        if not _number(repetition_penalty) or not 0 <= repetition_penalty < float("inf"):
            raise ValueError(
                f"repetition_penalty must be a finite number >= 0, got {repetition_penalty!r}"
            )
        if (
            isinstance(max_attempt_chars, bool)
            or not isinstance(max_attempt_chars, int)
            or max_attempt_chars < 1
        ):
            raise ValueError(f"max_attempt_chars must be an int >= 1, got {max_attempt_chars!r}")
        self.core = AttemptCounter(max_attempts, attempt_penalty)
        self.message = message
        self.repeat_task = repeat_task
        self.show_history = history
        self.reward_decay = float(reward_decay)
        self.repetition_penalty = float(repetition_penalty)
        self.max_attempt_chars = max_attempt_chars
        inner = getattr(env.observation_space, "max_length", None)
        if isinstance(inner, int):  # the task, then each earlier attempt and its feedback
            per_attempt = max_attempt_chars + len(message) + 32
            self.observation_space = Unicode(inner + max_attempts * per_attempt)
        self._seed: int | None = None
        self._options: dict[str, Any] | None = None
        self._first_obs: Any = None
        self.history: list[str] = []
        """The finished attempts of this episode, as the observation shows them."""
        self._actions: list[str] = []  # the actions of the attempt under way
        self._answers: list[str] = []  # every answer so far, normalised

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
        self.history, self._actions, self._answers = [], [], []
        obs, info = self.env.reset(seed=seed, options=options)
        self._first_obs = obs
        info = dict(info)
        info["attempt"] = self.core.attempt
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env; a failed attempt with attempts left restarts the task."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._actions.append(action if isinstance(action, str) else repr(action))
        repeated = False
        if terminated:  # an answer (a truncation is not one)
            answer = " ".join("; ".join(self._actions).split()).casefold()
            repeated = answer in self._answers
            self._answers.append(answer)
        success = bool(info.get("success", False))
        if self.core.retry(terminated=terminated, truncated=truncated, success=success):
            again, reset_info = self.env.reset(seed=self._seed, options=self._options)
            if repr(again) == repr(self._first_obs):
                self.history.append(self._shown_attempt())
                self._actions = []
                out = dict(reset_info)
                out.update(
                    invalid_action=False,
                    success=False,
                    attempt=self.core.attempt,
                    failed_reward=float(reward),
                    repeated_answer=repeated,
                )
                return self._retry_obs(again), -self.core.attempt_penalty, False, False, out
            # Not the same task: end here rather than pose another one (the env is left
            # freshly reset, which Gymnasium allows after the end).
            self.core.attempt -= 1
        info = dict(info)
        info["attempt"] = self.core.attempt
        paid = float(reward)
        if terminated or truncated:
            if success:
                paid *= self.reward_decay ** (self.core.attempt - 1)
            if self._answers:
                distinct = len(set(self._answers))
                paid -= self.repetition_penalty * (1 - distinct / len(self._answers))
            info.update(repeated_answer=repeated, unique_answers=len(set(self._answers)))
        return obs, paid, terminated, truncated, info

    def _shown_attempt(self) -> str:
        """The attempt just finished, as the history shows it: its actions, bounded."""
        text = "; ".join(action.strip() for action in self._actions)
        if len(text) > self.max_attempt_chars:
            text = text[: self.max_attempt_chars - 3] + "..."
        return text

    def _retry_obs(self, again: Any) -> Any:
        """UFO's observation for the next attempt (non-text observations pass as they are)."""
        if not isinstance(again, str):
            return again
        parts = [again] if self.repeat_task else []
        if self.show_history:
            parts += [
                f"Attempt {k}: {text}\n{self.message}" for k, text in enumerate(self.history, 1)
            ]
        else:
            parts.insert(0, self.message)
        return "\n\n".join(parts)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value

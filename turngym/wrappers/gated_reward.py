"""``GatedReward``: pay dense step rewards only when the episode's outcome passes a gate.

Gated reward accumulation (G-RA): shaping rewards help credit assignment, but an
agent can farm them without ever solving the task. Here every step reward is split
into an *outcome* part and a *dense* part. The outcome part is paid as it comes; the
dense parts are held back, summed, and paid at the end of the episode only if the
episode's total outcome reached ``gate``. Otherwise the agent keeps only the outcome.

How a step reward is split (``outcome`` left at its default):

- If the env reports ``info["reward_parts"]`` (turngym's Wordle: ``outcome``/``shaping``;
  Sokoban: ``step``/``box``/``solved``; ToolUse: ``outcome``), the outcome part is the
  sum of the parts named in ``outcome`` (default ``("outcome", "solved")``) and the
  dense part is the rest of the step reward (reward minus outcome part, so parts that
  do not add up to the reward are still accounted for).
- If it does not, the reward of the step that ends the episode is the outcome and the
  rewards of every earlier step are dense (this covers step penalties, invalid-action
  penalties and per-move rewards of envs that never name their parts).

``outcome`` may also be a callable ``(reward, terminated, truncated, info) -> float``
returning the outcome part of any step. The wrapper must see the episode end: put it
outside ``TimeLimit``, ``HorizonCurriculum`` and anything else that can truncate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

__all__ = ["DEFAULT_OUTCOME_KEYS", "GatedReward", "RewardGate"]

DEFAULT_OUTCOME_KEYS: tuple[str, ...] = ("outcome", "solved")
"""``reward_parts`` keys that turngym envs use for the outcome of an episode."""

OutcomeFn = Callable[[float, bool, bool, dict[str, Any]], float]


class RewardGate:
    """The bookkeeping of ``GatedReward``, independent of Gymnasium.

    Args:
        gate: the episode's summed outcome reward must be ``>= gate`` for the held-back
            dense reward to be paid.
        outcome: ``reward_parts`` key(s) that make up the outcome, or a callable
            ``(reward, terminated, truncated, info) -> float`` giving a step's outcome part.

    Example:
        >>> gate = RewardGate(gate=1.0)
        >>> gate.reset()
        >>> gate.step(0.5, False, False, {"reward_parts": {"outcome": 0.0, "shaping": 0.5}})[0]
        0.0
        >>> gate.step(1.2, True, False, {"reward_parts": {"outcome": 1.0, "shaping": 0.2}})[0]
        1.7

    """

    def __init__(
        self, gate: float, outcome: str | Sequence[str] | OutcomeFn = DEFAULT_OUTCOME_KEYS
    ) -> None:
        if isinstance(gate, bool) or not isinstance(gate, (int, float)) or math.isnan(gate):
            raise ValueError(f"gate must be a number (the outcome threshold), got {gate!r}")
        self.gate = float(gate)
        self._outcome_fn: OutcomeFn | None = None
        self.outcome_keys: tuple[str, ...] = ()
        if isinstance(outcome, str):
            self.outcome_keys = (outcome,)
        elif callable(outcome):
            self._outcome_fn = outcome
        elif isinstance(outcome, Sequence) and outcome and all(isinstance(k, str) for k in outcome):
            self.outcome_keys = tuple(outcome)
        else:
            raise ValueError(
                "outcome must be a reward_parts key, a non-empty list of keys, or a callable "
                f"(reward, terminated, truncated, info) -> float; got {outcome!r}"
            )
        self.reset()

    def reset(self) -> None:
        """Forget the running episode."""
        self.dense = 0.0
        self.outcome = 0.0
        self.done = False
        self.gated = False

    def split(
        self, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> tuple[float, float]:
        """``(outcome part, dense part)`` of one step reward (module docstring has the rule)."""
        if self._outcome_fn is not None:
            out = float(self._outcome_fn(reward, terminated, truncated, info))
        elif isinstance(info.get("reward_parts"), dict):
            parts = info["reward_parts"]
            out = float(sum(float(parts[k]) for k in self.outcome_keys if k in parts))
        else:
            out = reward if (terminated or truncated) else 0.0
        return out, reward - out

    def step(
        self, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> tuple[float, dict[str, Any]]:
        """The reward to pay for this step, and the info keys to add."""
        reward = float(reward)
        if self.done:
            # Steps after the end (TextEnv answers them with reward 0): pass through.
            return reward, self._report(reward, 0.0)
        out, dense = self.split(reward, terminated, truncated, info)
        self.outcome += out
        self.dense += dense
        pay = out
        if terminated or truncated:
            self.done = True
            self.gated = self.outcome < self.gate
            if not self.gated:
                pay += self.dense
        return pay, self._report(reward, dense)

    def _report(self, reward: float, dense: float) -> dict[str, Any]:
        return {
            "gated": self.gated,
            "dense_reward": dense,
            "dense_accumulated": self.dense,
            "outcome_accumulated": self.outcome,
            "env_reward": reward,
        }


class GatedReward(gym.Wrapper, RecordConstructorArgs):
    """Hold dense step rewards back; pay them at the end only if the outcome reaches ``gate``.

    Before the end each step pays its outcome part only (usually 0). The last step pays
    its outcome part plus, when the summed outcome is ``>= gate``, every dense part of
    the episode. So when the gate is passed the episode's return equals the env's return,
    and when it is not the return is the summed outcome alone.

    Info added on every step: ``gated`` (True on the last step when the dense reward was
    withheld), ``dense_reward`` (this step's dense part), ``dense_accumulated`` and
    ``outcome_accumulated`` (running sums), ``env_reward`` (the env's own reward).
    ``reward_parts`` passes through untouched.

    Args:
        env: the env to wrap (outside any TimeLimit, so that truncations are seen).
        gate: outcome threshold for paying the dense reward.
        outcome: ``reward_parts`` key(s) of the outcome, or a callable (see ``RewardGate``).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = GatedReward(gym.make("turngym/Sokoban-v0"), gate=10.0)
        >>> obs, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step("up")
        >>> reward, info["gated"], info["dense_accumulated"] == info["env_reward"]
        (0.0, False, True)

    """

    def __init__(
        self,
        env: gym.Env,
        gate: float = 1.0,
        outcome: str | Sequence[str] | OutcomeFn = DEFAULT_OUTCOME_KEYS,
    ) -> None:
        RecordConstructorArgs.__init__(self, gate=gate, outcome=outcome)
        gym.Wrapper.__init__(self, env)
        self.core = RewardGate(gate, outcome)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env and the gate."""
        self.core.reset()
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env; the reward is gated as described in the class docstring."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        pay, extra = self.core.step(float(reward), bool(terminated), bool(truncated), info)
        info = dict(info)
        info.update(extra)
        return obs, pay, terminated, truncated, info

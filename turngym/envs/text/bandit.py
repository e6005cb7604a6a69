"""``Bandit-v0``: RAGEN's two-armed bandit with semantically named arms.

One arm pays a small sure reward; the other is a gamble with a higher expected
value. The names carry the hint (a "Vault" is safe, a "Lottery" is risky), so an
agent must reason from language to the better arm. Which name is listed first is
random. ``pulls`` > 1 turns it into a multi-turn exploration task.
"""

from __future__ import annotations

from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, match_action

__all__ = ["ARM_PAIRS", "BanditEnv"]

# (safe-sounding name, risky-sounding name)
ARM_PAIRS: tuple[tuple[str, str], ...] = (
    ("Vault", "Lottery"),
    ("Tortoise", "Hare"),
    ("Bond", "Startup"),
    ("Harbor", "Storm"),
    ("Anchor", "Rocket"),
    ("Savings", "Casino"),
    ("Oak", "Lightning"),
    ("Shield", "Dragon"),
    ("Bread", "Jackpot"),
    ("Lighthouse", "Volcano"),
)


class BanditEnv(TextEnv[int]):
    """Choose between a safe arm and a risky arm with higher expected reward.

    Args:
        pulls: number of pulls in an episode.
        safe_reward: the safe arm's sure payout.
        risky_reward: the risky arm's payout when it pays.
        risky_prob: probability that the risky arm pays.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> from turngym.envs.text.bandit import BanditEnv
        >>> env = BanditEnv()
        >>> obs, info = env.reset(seed=3)
        >>> sorted(info["legal_actions"])
        ['Bread', 'Jackpot']

    """

    def __init__(
        self,
        pulls: int = 1,
        safe_reward: float = 0.2,
        risky_reward: float = 1.0,
        risky_prob: float = 0.5,
        **kwargs: Any,
    ) -> None:
        if pulls < 1:
            raise ValueError(f"pulls must be >= 1, got {pulls}")
        if not 0.0 <= risky_prob <= 1.0:
            raise ValueError(f"risky_prob must be in [0, 1], got {risky_prob}")
        super().__init__(**kwargs)
        self.pulls = pulls
        self.safe_reward = float(safe_reward)
        self.risky_reward = float(risky_reward)
        self.risky_prob = float(risky_prob)
        self.arms: list[str] = []
        self.risky_arm = 0
        self._pulls_left = 0
        self._history: list[tuple[str, float]] = []

    @property
    def best_arm(self) -> str:
        """The arm with the higher expected reward."""
        risky_mean = self.risky_reward * self.risky_prob
        return self.arms[self.risky_arm if risky_mean > self.safe_reward else 1 - self.risky_arm]

    def _reset(self, options: dict[str, Any]) -> str:
        safe, risky = ARM_PAIRS[int(self.np_random.integers(len(ARM_PAIRS)))]
        self.risky_arm = int(self.np_random.integers(2))
        self.arms = [risky, safe] if self.risky_arm == 0 else [safe, risky]
        self._pulls_left = self.pulls
        self._history = []
        self.instruction = (
            f"You face a slot machine with two arms: {self.arms[0]} and {self.arms[1]}. "
            "One arm always pays a small amount; the other is a gamble that pays more on "
            f"average. You have {self.pulls} pull{'s' if self.pulls > 1 else ''}; maximise "
            "your total reward. Answer with the name of the arm to pull."
        )
        return self.instruction

    def _parse(self, action: str) -> int | Invalid:
        text = action.strip()
        for prefix in ("pull ", "Pull ", "PULL "):
            if text.startswith(prefix):
                text = text[len(prefix) :]
        arm = match_action(text, {name.lower(): i for i, name in enumerate(self.arms)})
        if arm is None:
            return Invalid(f"there is no arm called {text[:40]!r}")
        return arm

    def _apply(self, action: int) -> Outcome:
        if action == self.risky_arm:
            reward = self.risky_reward if self.np_random.random() < self.risky_prob else 0.0
        else:
            reward = self.safe_reward
        self._pulls_left -= 1
        self._history.append((self.arms[action], reward))
        done = self._pulls_left == 0
        obs = f"You pulled {self.arms[action]} and got {reward:g}."
        if not done:
            obs += f" {self._pulls_left} pull{'s' if self._pulls_left > 1 else ''} left."
        # Success is choosing the better arm on the (last) pull, which luck cannot fake.
        return Outcome(
            obs, reward, terminated=done, success=done and self.arms[action] == self.best_arm
        )

    def _legal_actions(self) -> list[str]:
        return list(self.arms)

    def _render(self) -> str:
        pulls = ", ".join(f"{arm}->{r:g}" for arm, r in self._history) or "none yet"
        return f"Arms: {self.arms[0]} | {self.arms[1]}. Pulls so far: {pulls}."

"""Tiny unregistered envs for trainer tests and benchmarks (not part of the env table).

They are plain Gymnasium envs with text observations and ``info["legal_actions"]``,
small enough that a tiny model trained from scratch on a CPU can solve them in minutes.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym

from turngym.spaces import Unicode

__all__ = ["GuessNumber"]


class GuessNumber(gym.Env):
    """Guess a secret number in 1..5 in at most 3 guesses, told "higher" or "lower".

    The observation restates what is known (the range the number is in and the guesses
    left), so the task is Markov without a chat history; any of 1..5 may be guessed and
    the third miss ends the episode as a failure. Bisecting (3, then 1 or 4, then what
    is left) always wins; uniform guessing wins about half the time.
    """

    observation_space = Unicode(128)
    action_space = Unicode(8)
    ACTIONS: ClassVar[list[str]] = [str(n) for n in range(1, 6)]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Draw the secret number; the first observation."""
        super().reset(seed=seed)
        self.secret, self.low, self.high = int(self.np_random.integers(1, 6)), 1, 5
        self.turn = 0
        return self.obs("Guess my number."), {"legal_actions": self.ACTIONS}

    def obs(self, news: str) -> str:
        """What is known so far, after ``news``."""
        return f"{news} It is between {self.low} and {self.high}. {3 - self.turn} guesses left."

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """A guess; anything but 1..5 is an invalid action that still uses up a guess."""
        self.turn += 1
        text = str(action).strip()
        if text not in self.ACTIONS:
            news = f"{text[:20]!r} is not a number from 1 to 5."
            info = {"legal_actions": self.ACTIONS, "success": False, "invalid_action": True}
            return self.obs(news), 0.0, self.turn >= 3, False, info
        guess = int(text)
        if guess == self.secret:
            return "Right!", 1.0, True, False, {"success": True}
        if guess < self.secret:
            self.low, news = max(self.low, guess + 1), "Higher."
        else:
            self.high, news = min(self.high, guess - 1), "Lower."
        info = {"legal_actions": self.ACTIONS, "success": False}
        return self.obs(news), 0.0, self.turn >= 3, False, info

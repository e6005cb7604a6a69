"""Write your own text env on `TextEnv` and run turngym's conformance checks on it."""

from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, match_action
from turngym.testing import check_text_env


class HigherLower(TextEnv[int]):
    """Find a secret number from 1 to 20; after each guess you hear 'higher' or 'lower'."""

    def _reset(self, options: dict[str, Any]) -> str:
        self.secret = int(self.np_random.integers(1, 21))
        self.instruction = "I picked a number from 1 to 20. Guess it: answer with a number."
        return self.instruction

    def _parse(self, action: str) -> int | Invalid:
        guess = match_action(action, {str(n): n for n in range(1, 21)})
        return Invalid("answer with a whole number from 1 to 20") if guess is None else guess

    def _apply(self, guess: int) -> Outcome:
        if guess == self.secret:
            return Outcome(f"{guess} is right!", reward=1.0, terminated=True, success=True)
        return Outcome(f"{guess}: {'higher' if guess < self.secret else 'lower'}.", reward=-0.05)

    def _legal_actions(self) -> list[str]:
        return [str(n) for n in range(1, 21)]

    def _render(self) -> str:
        return f"secret={self.secret}"


if __name__ == "__main__":
    report = check_text_env(HigherLower, raise_on_failure=False)
    print(report.table())

"""Toy envs for testing the framework itself (not registered)."""

from __future__ import annotations

from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, match_action


class Count(TextEnv[int]):
    """Reach a random target by adding 1 or 2."""

    def _reset(self, options: dict[str, Any]) -> str:
        self.target = int(self.np_random.integers(3, 8))
        self.total = 0
        self.instruction = f"Reach exactly {self.target} by adding 1 or 2."
        return self.instruction

    def _parse(self, action: str) -> int | Invalid:
        value = match_action(action, {"1": 1, "2": 2, "one": 1, "two": 2})
        return Invalid("say 1 or 2") if value is None else value

    def _apply(self, action: int) -> Outcome:
        self.total += action
        won = self.total == self.target
        lost = self.total > self.target
        return Outcome(
            f"Total {self.total}.", 1.0 if won else 0.0, terminated=won or lost, success=won
        )

    def _legal_actions(self) -> list[str]:
        return ["1", "2"]

    def _render(self) -> str:
        return f"{self.total}/{self.target}"

    def _state_key(self) -> str:
        return f"{self.total}/{self.target}"


class LongWalk(TextEnv[str]):
    """A 500-step corridor whose observations vary in length: context wrappers' stress test."""

    def _reset(self, options: dict[str, Any]) -> str:
        self.position = 0
        self.steps = 0
        self.instruction = "Walk the corridor: say left or right. The walk lasts 500 steps."
        return self.instruction

    def _parse(self, action: str) -> str | Invalid:
        value = match_action(action, {"left": "left", "right": "right"})
        return Invalid("say left or right") if value is None else value

    def _apply(self, action: str) -> Outcome:
        self.position += 1 if action == "right" else -1
        self.steps += 1
        words = int(self.np_random.integers(5, 60))
        scenery = " ".join(["tiles"] * words)
        return Outcome(
            f"Step {self.steps}: you are at {self.position}. You see {scenery}.",
            0.0,
            truncated=self.steps >= 500,
        )

    def _legal_actions(self) -> list[str]:
        return ["left", "right"]

    def _render(self) -> str:
        return f"at {self.position} after {self.steps} steps"

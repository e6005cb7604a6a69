"""Expert for ``CarDealer-v0``: reads the buyer's hidden profile, pitches, offers her top price."""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.car_dealer import CarDealerEnv

__all__ = ["CarDealerExpert"]


class CarDealerExpert(BaseAgent):
    """Knows the buyer's budget, taste and pricing rule (privileged) and closes in two turns.

    Turn 1 recommends the car that will fetch the best price / list price once pitched,
    naming its type-matching model and every feature it has (full pitch points). Turn 2
    offers that car at the most she will then pay, rounded down to $100, which she
    accepts.
    """

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, CarDealerEnv, "CarDealerExpert")
        self._env = inner

    def best_car(self) -> str:
        """The model with the highest reachable price / list price."""
        env = self._env
        return max(
            env.cars,
            key=lambda m: self._top_price(m, self._reachable_interest(m)) / env.cars[m].list_price,
        )

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """Pitch the best car first, then offer it at her top price."""
        env = self._env
        model = self.best_car()
        car = env.cars[model]
        if env.current != model:
            return (
                f"I'd recommend the {model}: a {car.year} {car.make} {model} {car.type} "
                f"with {', '.join(car.features)}."
            )
        return f"I can offer you the {model} for ${self._top_price(model, env.interest()):,}."

    def _reachable_interest(self, model: str) -> float:
        env = self._env
        car = env.cars[model]
        points = (car.type == env.buyer.car_type) + sum(
            f in car.features for f in env.buyer.features
        )
        return points / (1 + len(env.buyer.features))

    def _top_price(self, model: str, interest: float) -> int:
        return math.floor(self._env.willingness(model, interest) / 100.0) * 100

"""Expert for ``GuessMyCity-v0``: narrows the table's cities down question by question.

It knows the city table (public) but not the secret. It keeps the cities consistent
with every answer so far, reading each answer from the observation's first line and
comparing it with what the rule-based oracle would say about each candidate, and asks
the question (from a fixed pool, plus "Is it in <country>?" for the candidates'
countries) whose answers split the candidates most evenly (highest entropy). With one
candidate left, or nothing left to split them, it guesses.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import cache
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.city_data import CITIES
from turngym.envs.text.city_oracle import respond
from turngym.envs.text.guess_my_city import GuessMyCityEnv

__all__ = ["BASE_QUESTIONS", "LANDMARK_QUESTION", "GuessMyCityExpert"]

LANDMARK_QUESTION = "What is a famous landmark there?"
BASE_QUESTIONS = (
    "What continent is it on?",
    "What language do people speak there?",
    "How many people live there?",
    "What is the climate like?",
    "Which hemisphere is it in?",
    "Is it on the coast?",
    "Is it a capital city?",
    "Does it have more than 2 million people?",
    "Does it have more than 3 million people?",
    "Does it have more than 7 million people?",
    "Does it have more than 15 million people?",
)
"""Questions the expert may ask besides the landmark and country ones."""


@cache
def _answer(city: int, question: str) -> str:
    return respond(CITIES[city], question).text


def _entropy(groups: Counter[str], n: int) -> float:
    return -sum(c / n * math.log2(c / n) for c in groups.values())


class GuessMyCityExpert(BaseAgent):
    """Asks the most informative question until one city is left, then guesses it.

    It assumes the rule-based oracle; under an ``oracle=`` hook whose answers it cannot
    predict it falls back to guessing the cities it has not ruled out, one by one.

    Args:
        env: a ``GuessMyCity-v0`` env (possibly wrapped).
        use_landmarks: also ask for a landmark (this alone names the city); without it
            the expert must combine the other facts.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/GuessMyCity-v0")
        >>> expert = GuessMyCityExpert(env, use_landmarks=False)
        >>> obs, info = env.reset(seed=0)
        >>> expert.act(obs, info)
        'What language do people speak there?'

    """

    def __init__(self, env: gym.Env, use_landmarks: bool = True) -> None:
        inner = unwrap(env, GuessMyCityEnv, "GuessMyCityExpert")
        self._env = inner
        self.use_landmarks = use_landmarks
        self._candidates: list[int] = list(range(len(CITIES)))
        self._guessed: set[int] = set()
        self._last: str | None = None
        self._last_guess: int | None = None
        self._blind = False

    def reset(self, seed: int | None = None) -> None:
        """Forget the last episode."""
        self._candidates = list(range(len(CITIES)))
        self._guessed = set()
        self._last = None
        self._last_guess = None
        self._blind = False

    @property
    def candidates(self) -> list[str]:
        """The cities still consistent with every answer."""
        return [CITIES[i].name for i in self._candidates]

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next question, or a guess once the candidates are down to one."""
        if int(info.get("turn", 0)) == 0:
            self.reset()
        elif self._last is not None and isinstance(obs, str) and obs:
            self._update(self._last, obs.splitlines()[0])
        question = self._choose()
        self._last = question
        return question

    def _update(self, question: str, answer: str) -> None:
        if self._last_guess is not None:
            self._guessed.add(self._last_guess)
        kept = [i for i in self._candidates if _answer(i, question) == answer]
        if not kept:  # the answers are not the rule-based oracle's: guess what is left
            self._blind = True
            kept = list(range(len(CITIES)))
        self._candidates = [i for i in kept if i not in self._guessed]

    def _pool(self) -> list[str]:
        pool = [LANDMARK_QUESTION] if self.use_landmarks else []
        pool += BASE_QUESTIONS
        countries = dict.fromkeys(CITIES[i].country for i in self._candidates)
        pool += [f"Is it in {country}?" for country in countries]
        return pool

    def _choose(self) -> str:
        cands = self._candidates or [i for i in range(len(CITIES)) if i not in self._guessed]
        self._last_guess = None
        if len(cands) > 1 and not self._blind:
            best, best_h = "", 0.0
            for question in self._pool():
                groups = Counter(_answer(i, question) for i in cands)
                h = _entropy(groups, len(cands))
                if h > best_h + 1e-9:
                    best, best_h = question, h
            if best:
                return best
        self._last_guess = cands[0]
        return f"Is it {CITIES[cands[0]].name}?"

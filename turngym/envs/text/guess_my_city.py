"""``GuessMyCity-v0``: find a secret world city by asking an oracle questions.

An offline rebuild of LMRL-Gym's Guess My City. The secret is one of the bundled
cities (``city_data.CITIES``, 150 of them); the player asks free-text questions and
the rule-based oracle (``city_oracle.respond``) answers:

- yes/no questions ("Is it in Europe?", "Is it a capital?", "Do people speak Spanish
  there?", "Does it have more than 5 million people?") with "Yes." / "No.";
- open questions (continent, language, population band, climate, hemisphere,
  landmarks, coast, capital status) with a fact from the table;
- "Which country is it in?" with "I can't tell you the country, but it is in
  <continent>." (a design choice: naming the country would shrink the game to one
  question; yes/no questions about a country are answered), and questions about the
  name with a refusal;
- guesses ("Is it Paris?", "My guess is NYC", "Paris?") with "No, it is not X." or a win.

Every question costs -1; the winning guess costs 0, so the return is minus the number
of questions before it. After ``max_turns`` questions the episode truncates and the
city is revealed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.text.city_data import CITIES, City
from turngym.envs.text.city_oracle import find_city, parse_question, respond

__all__ = ["MAX_QUESTION_LENGTH", "GuessMyCityEnv"]

MAX_QUESTION_LENGTH = 500

Oracle = Callable[[str, str], str]
"""(secret city name, question) -> answer text"""


class GuessMyCityEnv(TextEnv[str]):
    """Guess the secret city by asking questions; -1 per question, 0 for the right guess.

    ``reset(options={"city": "Paris"})`` fixes the secret (a table name or alias).
    ``info["answer_kind"]`` says how each question was taken: ``yes``, ``no``, ``fact``,
    ``refusal``, ``unknown``, ``guess_correct``, ``guess_wrong`` or ``oracle`` (the hook).

    Args:
        max_turns: questions (guesses included) before the episode truncates (>= 1).
        oracle: optional ``(secret city name, question) -> answer`` replacing the
            rule-based oracle for every question that is not a guess; guesses are still
            detected and judged by the env (a city named alone or in "Is it X?",
            "My guess is X" and the like), so success stays well defined.
        **kwargs: ``TextEnv`` options; ``invalid_action_penalty`` defaults to -1.0 here
            (an empty or over-long question costs a turn's reward but not a question).

    Example:
        >>> from turngym.envs.text.guess_my_city import GuessMyCityEnv
        >>> env = GuessMyCityEnv()
        >>> obs, info = env.reset(seed=0, options={"city": "Lima"})
        >>> obs, reward, terminated, truncated, info = env.step("Is it in South America?")
        >>> obs.splitlines()[0], reward, info["answer_kind"]
        ('Yes.', -1.0, 'yes')
        >>> env.step("What language do people speak there?")[0].splitlines()[0]
        'People there mainly speak Spanish.'
        >>> obs, reward, terminated, truncated, info = env.step("Is it Lima?")
        >>> obs.splitlines()[0], reward, terminated, info["success"]
        ('Yes! It is Lima.', 0.0, True, True)

    """

    def __init__(
        self,
        max_turns: int = 20,
        oracle: Oracle | None = None,
        *,
        invalid_action_penalty: float = -1.0,
        **kwargs: Any,
    ) -> None:
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be an int >= 1, got {max_turns!r}")
        if oracle is not None and not callable(oracle):
            raise ValueError(
                "oracle must be None (the rule-based oracle) or a callable "
                f"(secret city name, question) -> answer, got {oracle!r}"
            )
        super().__init__(invalid_action_penalty=invalid_action_penalty, **kwargs)
        # Not TextEnv.max_turns: that counts invalid turns too, and here they are free.
        self.max_questions = max_turns
        self.oracle = oracle
        self.cities: tuple[City, ...] = CITIES
        self.city: City = CITIES[0]
        self._history: list[tuple[str, str]] = []

    @property
    def history(self) -> tuple[tuple[str, str], ...]:
        """The (question, answer) pairs so far."""
        return tuple(self._history)

    @property
    def questions_left(self) -> int:
        """Questions the player may still ask."""
        return self.max_questions - len(self._history)

    def _reset(self, options: dict[str, Any]) -> str:
        unknown = set(options) - {"city"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; GuessMyCity takes 'city'")
        if "city" in options:
            name = options["city"]
            city = find_city(name) if isinstance(name, str) else None
            if city is None:
                raise ValueError(
                    f"options['city'] must name a city of the table (e.g. 'Paris'), got {name!r}"
                )
            self.city = city
        else:
            self.city = CITIES[int(self.np_random.integers(len(CITIES)))]
        self._history = []
        self.instruction = (
            "Let's play Guess My City. I am thinking of a real city somewhere in the world; "
            f"find it by asking at most {self.max_questions} questions, one per turn. Ask yes/no "
            "questions (e.g. 'Is it in Europe?', 'Is it a capital?', 'Is it on the coast?', "
            "'Does it have more than 5 million people?') or open ones about its continent, "
            "language, population, climate, hemisphere or famous landmarks (e.g. 'What "
            "language do people speak there?'). I will not tell you the name or the country, "
            "but I answer yes/no questions about the country. To guess, ask 'Is it <city>?'. "
            "Each question costs -1 reward; a right guess ends the game and costs nothing."
        )
        return self.instruction

    def _parse(self, action: str) -> str | Invalid:
        question = action.strip()
        if not question:
            return Invalid("the question is empty; ask something, e.g. 'Is it in Europe?'")
        if len(question) > MAX_QUESTION_LENGTH:
            return Invalid(
                f"questions are at most {MAX_QUESTION_LENGTH} characters, got {len(question)}"
            )
        return question

    def _apply(self, action: str) -> Outcome:
        parsed = parse_question(action)
        if self.oracle is not None and not parsed.form.startswith("guess"):
            kind, text = "oracle", str(self.oracle(self.city.name, action))
        else:
            answer = respond(self.city, action)
            kind, text = answer.kind, answer.text
        self._history.append((action, text))
        solved = kind == "guess_correct"
        out_of_turns = not solved and self.questions_left <= 0
        info: dict[str, Any] = {"answer_kind": kind}
        if solved:
            n = len(self._history)
            tail = f"You found it with {n} question{'s' if n > 1 else ''}."
        elif out_of_turns:
            tail = f"No questions left. The city was {self.city.name}."
        else:
            left = self.questions_left
            tail = f"{left} question{'s' if left > 1 else ''} left."
        if solved or out_of_turns:
            info["city"] = self.city.name
        return Outcome(
            f"{text}\n{tail}",
            0.0 if solved else -1.0,
            terminated=solved,
            truncated=out_of_turns,
            success=solved,
            info=info,
        )

    def _legal_actions(self) -> None:
        return None

    def _state_key(self) -> str:
        return "|".join(f"{parse_question(q).text}={a}" for q, a in self._history) or "start"

    def _render(self) -> str:
        lines = [f"Guess My City: {len(self._history)} of {self.max_questions} questions asked"]
        lines += [f"  Q: {q}\n  A: {a}" for q, a in self._history]
        if self._done:
            lines.append(f"The city was {self.city.name}.")
        return "\n".join(lines)

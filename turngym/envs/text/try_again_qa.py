"""``TryAgainQA-v0``: answer a question, hearing only "Let's try again." when wrong.

The setting of "unary feedback as observation" (UFO): the agent gets several attempts
at one question, and the only feedback on a wrong answer is a fixed message with no
hint, so improving across turns must come from the agent's own reasoning. Questions
come from templates (``try_again_qa_questions``): word problems, unit conversions,
number sequences and letter puzzles, each with an exact answer.

Answers are read leniently: for a number question the LAST number in the reply counts
(``29``, ``29 apples``, ``The answer is 29.``, ``1,000``, ``29.0`` and number words such
as ``twenty-nine`` all work); for a word or letter question the LAST word of the reply
counts (``a``, ``'A'``, ``The answer is a.``), compared without case or punctuation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.text.try_again_qa_questions import TEMPLATES, Question, make_question

__all__ = [
    "DEFAULT_RETRY_MESSAGE",
    "TryAgainQAEnv",
    "check_answer",
    "last_number",
    "last_word",
]

DEFAULT_RETRY_MESSAGE = "Let's try again."

_UNIT_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
    "seventeen", "eighteen", "nineteen",
)  # fmt: skip
_UNITS = {w: i for i, w in enumerate(_UNIT_WORDS)}
_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate(
        ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
    )
}
_SCALES = {"hundred": 100, "thousand": 1000}
_DIGITS = re.compile(r"(?<![\w.,])(-?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")
_WORD = re.compile(r"[a-z]+")
_MAX_DIGITS = 100


def _word_numbers(text: str) -> list[tuple[int, Fraction]]:
    """(position, value) of each run of number words, e.g. ``one hundred and five``.

    A word continues the current number only where English allows it (``twenty`` then
    ``nine``, a unit or ten after ``hundred``/``thousand``, ``and`` after a scale), so
    ``five six`` is two numbers.
    """
    found: list[tuple[int, Fraction]] = []
    start: int | None = None
    total = current = 0
    prev = ""  # the kind of the previous word in the run: unit, ten, scale, and

    def close() -> None:
        nonlocal start, total, current, prev
        if start is not None:
            found.append((start, Fraction(total + current)))
        start, total, current, prev = None, 0, 0, ""

    for match in _WORD.finditer(text.lower()):
        word = match.group()
        if word == "and":
            if prev == "scale":
                prev = "and"
            else:
                close()
            continue
        if word in _UNITS:
            kind, value = "unit", _UNITS[word]
            fits = prev in ("", "scale", "and") or (prev == "ten" and value < 10)
        elif word in _TENS:
            kind, value = "ten", _TENS[word]
            fits = prev in ("", "scale", "and")
        elif word in _SCALES:
            kind, value = "scale", _SCALES[word]
            fits = prev in ("unit", "ten") and current > 0
        else:
            close()
            continue
        if start is not None and not fits:
            close()
        if kind == "scale" and start is None:
            continue  # a bare "hundred" is not a number we read
        if start is None:
            start = match.start()
        if kind == "scale":
            current *= value
            if value == 1000:
                total, current = total + current, 0
        else:
            current += value
        prev = kind
    close()
    return found


def last_number(text: str) -> Fraction | None:
    """The last number in ``text``, in digits or in words; None if there is none.

    A last number of over 100 digits reads as None too: it answers no question.

    >>> last_number("3 boxes of 12 is 36, minus 7 leaves 29 apples.")
    Fraction(29, 1)
    >>> last_number("The answer is twenty-nine"), last_number("1,250"), last_number("no idea")
    (Fraction(29, 1), Fraction(1250, 1), None)
    """
    found: list[tuple[int, Fraction | None]] = []
    for m in _DIGITS.finditer(text):
        written = m.group(2).replace(",", "") + (m.group(3) or "")
        # Fraction() raises past 4,300 digits; a number that long answers no question.
        value = Fraction(m.group(1) + written) if len(written) <= _MAX_DIGITS else None
        found.append((m.start(), value))
    found += _word_numbers(text)
    return max(found, key=lambda pair: pair[0])[1] if found else None


def last_word(text: str) -> str | None:
    """The last word of ``text`` (letters only, lower-case); None if there is none.

    >>> last_word("The 3rd letter is 'A'."), last_word("42")
    ('a', None)
    """
    words = _WORD.findall(text.lower())
    return words[-1] if words else None


def check_answer(reply: str, answer: str, kind: str) -> bool:
    """Whether ``reply`` gives ``answer`` (``kind`` ``"number"`` or ``"word"``).

    >>> check_answer("The answer is 29.", "29", "number"), check_answer("290", "29", "number")
    (True, False)
    >>> check_answer("tenalp", "tenalp", "word"), check_answer("tenlap", "tenalp", "word")
    (True, False)
    """
    if kind == "number":
        return last_number(reply) == Fraction(answer)
    return last_word(reply) == answer


class TryAgainQAEnv(TextEnv[str]):
    """Answer a generated question in up to ``max_attempts`` tries with unary feedback.

    A wrong answer gets only ``retry_message`` back and uses an attempt; a right one ends
    the episode with success. An empty reply or one over ``max_answer_length`` is an
    invalid action (it uses no attempt). ``info["answer"]`` holds the answer at the end.

    Args:
        max_attempts: answers allowed per question (>= 1).
        reward: ``"success"`` (1 when solved, on any attempt) or ``"discounted"``
            (``gamma ** (attempts_used - 1)`` when solved: 1 on the first attempt).
        gamma: the discount per extra attempt, in (0, 1] (default 0.9).
        retry_message: the whole observation after a wrong answer.
        templates: question templates to draw from (default: all of ``TEMPLATES``).
        max_answer_length: longest reply accepted, in characters.
        judge: optional ``(question_text, answer, reply) -> bool`` replacing the built-in
            answer checker (e.g. a model grader); default None: ``check_answer``.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    ``reset(options={"template": name})`` draws from one template only.
    The registered step limit is 20 (room for invalid replies); the env ends the
    episode itself after ``max_attempts`` answers.

    Example:
        >>> from turngym.envs.text.try_again_qa import TryAgainQAEnv
        >>> env = TryAgainQAEnv(reward="discounted")
        >>> obs, info = env.reset(seed=0, options={"template": "convert"})
        >>> env.question.text
        'How many feet are in 9 yards?'
        >>> env.step("3")[:2]
        ("Let's try again.", 0.0)
        >>> obs, reward, terminated, truncated, info = env.step("27 feet")
        >>> obs, round(reward, 2), terminated, info["success"]
        ('Correct!', 0.9, True, True)

    """

    def __init__(
        self,
        max_attempts: int = 5,
        reward: str = "success",
        gamma: float = 0.9,
        retry_message: str = DEFAULT_RETRY_MESSAGE,
        templates: Sequence[str] | None = None,
        max_answer_length: int = 2000,
        judge: Callable[[str, str, str], bool] | None = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(f"max_attempts must be an int >= 1, got {max_attempts!r}")
        if reward not in ("success", "discounted"):
            raise ValueError(f"reward must be 'success' or 'discounted', got {reward!r}")
        if isinstance(gamma, bool) or not isinstance(gamma, (int, float)):
            raise ValueError(f"gamma must be a number in (0, 1], got {gamma!r}")
        if not (math.isfinite(gamma) and 0 < gamma <= 1):
            raise ValueError(f"gamma must be a number in (0, 1], got {gamma!r}")
        if not isinstance(retry_message, str) or not retry_message.strip():
            raise ValueError(f"retry_message must be a non-empty string, got {retry_message!r}")
        chosen = tuple(TEMPLATES) if templates is None else tuple(templates)
        unknown = [t for t in chosen if t not in TEMPLATES]
        if isinstance(templates, str) or not chosen or unknown:
            raise ValueError(
                f"templates must be a non-empty list of names from {sorted(TEMPLATES)}, "
                f"got {templates!r}"
            )
        if (
            isinstance(max_answer_length, bool)
            or not isinstance(max_answer_length, int)
            or max_answer_length < 1
        ):
            raise ValueError(f"max_answer_length must be an int >= 1, got {max_answer_length!r}")
        if judge is not None and not callable(judge):
            raise ValueError("judge must be a callable (question, answer, reply) -> bool or None")
        super().__init__(**kwargs)
        self.max_attempts = max_attempts
        self.reward_mode = reward
        self.gamma = float(gamma)
        self.retry_message = retry_message
        self.templates = chosen
        self.max_answer_length = max_answer_length
        self.judge = judge
        self.question = Question("", "", "", "number")
        self.attempts: list[str] = []

    @property
    def attempts_left(self) -> int:
        """Answers the agent may still give."""
        return self.max_attempts - len(self.attempts)

    def _reset(self, options: dict[str, Any]) -> str:
        unknown = set(options) - {"template"}
        if unknown:
            raise ValueError(
                f"unknown reset options {sorted(unknown)}; TryAgainQA takes 'template'"
            )
        templates = self.templates
        if "template" in options:
            if options["template"] not in TEMPLATES:
                raise ValueError(
                    f"options['template'] must be one of {sorted(TEMPLATES)}, "
                    f"got {options['template']!r}"
                )
            templates = (options["template"],)
        self.question = make_question(self.np_random, templates)
        self.attempts = []
        tries = f"{self.max_attempts} attempts" if self.max_attempts > 1 else "one attempt"
        self.instruction = (
            f"Answer the question. You have {tries}; after a wrong answer you will only be "
            f'told "{self.retry_message}" with no hint. Reply with just the answer.\n'
            f"Question: {self.question.text}"
        )
        return self.instruction

    def _parse(self, action: str) -> str | Invalid:
        if not action.strip():
            return Invalid("the answer is empty; reply with your answer to the question")
        if len(action) > self.max_answer_length:
            return Invalid(
                f"the answer is longer than {self.max_answer_length} characters; reply briefly"
            )
        return action

    def _correct(self, reply: str) -> bool:
        q = self.question
        if self.judge is not None:
            return bool(self.judge(q.text, q.answer, reply))
        return check_answer(reply, q.answer, q.kind)

    def _apply(self, action: str) -> Outcome:
        self.attempts.append(action)
        used = len(self.attempts)
        if self._correct(action):
            value = 1.0 if self.reward_mode == "success" else self.gamma ** (used - 1)
            return Outcome("Correct!", value, terminated=True, success=True, info=self._end())
        if self.attempts_left == 0:
            return Outcome("Out of attempts.", 0.0, terminated=True, info=self._end())
        return Outcome(self.retry_message)

    def _end(self) -> dict[str, Any]:
        return {"answer": self.question.answer, "attempts_used": len(self.attempts)}

    def _state_key(self) -> str:
        return f"{self.question.text}|{len(self.attempts)}"

    def _extra_info(self) -> dict[str, Any]:
        return {"attempts_left": self.attempts_left}

    def _render(self) -> str:
        lines = [f"Question: {self.question.text}"]
        lines += [f"  attempt {k + 1}: {a.strip()[:80]}" for k, a in enumerate(self.attempts)]
        if self._done:
            verdict = "solved" if self._success else "not solved"
            lines.append(f"Answer: {self.question.answer} ({verdict})")
        else:
            lines.append(f"{self.attempts_left} of {self.max_attempts} attempts left")
        return "\n".join(lines)

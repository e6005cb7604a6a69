"""``Wordle-v0``: guess a secret 5-letter word in six tries from per-letter feedback.

Each guess must be a word of the allowed list (``wordle_words.load_allowed``); the
secret comes from the commoner answer list. Feedback marks every letter ``G`` (right
letter, right place), ``Y`` (in the word, elsewhere) or ``_`` (not in the word), with
the usual rule for repeated letters: greens are marked first, then yellows from left to
right only while the secret still has unmatched copies of that letter.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, normalize_action, preview
from turngym.envs.text.wordle_words import allowed_set, load_allowed, load_answers

__all__ = ["LEGEND", "WORD_LENGTH", "WordleEnv", "format_marks", "score_guess"]

WORD_LENGTH = 5
ABSENT, PRESENT, CORRECT = 0, 1, 2
_SYMBOLS = {ABSENT: "_", PRESENT: "Y", CORRECT: "G"}
LEGEND = "G = right letter, right place; Y = in the word but elsewhere; _ = not in the word."

# "crane", "Guess: crane" and "guess crane" all name the guess "crane".
_GUESS = re.compile(r"(?:guess(?:\s*:\s*|\s+))?([a-z]+)")


def score_guess(guess: str, answer: str) -> tuple[int, ...]:
    """Per-letter marks of ``guess`` against ``answer``: 2 green, 1 yellow, 0 absent.

    Greens are matched first; the other letters turn yellow left to right while the
    answer still has an unmatched copy of them.

    >>> score_guess("babes", "abbey")
    (1, 1, 2, 2, 0)
    >>> score_guess("eerie", "crane")
    (0, 0, 1, 0, 2)
    """
    marks = [ABSENT] * len(guess)
    unmatched: Counter[str] = Counter()
    for i, (g, a) in enumerate(zip(guess, answer, strict=True)):
        if g == a:
            marks[i] = CORRECT
        else:
            unmatched[a] += 1
    for i, g in enumerate(guess):
        if marks[i] == ABSENT and unmatched[g] > 0:
            marks[i] = PRESENT
            unmatched[g] -= 1
    return tuple(marks)


def format_marks(marks: tuple[int, ...]) -> str:
    """Marks as the symbols the player sees.

    >>> format_marks((2, 1, 0, 0, 0))
    'G Y _ _ _'
    """
    return " ".join(_SYMBOLS[m] for m in marks)


class WordleEnv(TextEnv[str]):
    """Guess the secret 5-letter word; each guess gets G/Y/_ feedback per letter.

    Reward is 1.0 for solving, 0 otherwise, plus optional shaping. The episode ends on
    a solve (success) or when the guesses run out (the answer is revealed).
    ``reset(options={"answer": "crane"})`` fixes the secret (any allowed word).

    Args:
        max_guesses: guesses per episode (>= 1).
        shaping: extra reward per newly found green position, scaled so that all five
            greens earn ``shaping`` in total (0 turns shaping off).
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> from turngym.envs.text.wordle import WordleEnv
        >>> env = WordleEnv()
        >>> obs, info = env.reset(seed=0, options={"answer": "crane"})
        >>> obs, reward, terminated, truncated, info = env.step("react")
        >>> obs.splitlines()[0]
        'Guess 1 of 6: REACT -> Y Y G Y _'
        >>> env.step("crane")[1:4]
        (1.0, True, False)

    """

    def __init__(self, max_guesses: int = 6, shaping: float = 0.0, **kwargs: Any) -> None:
        if isinstance(max_guesses, bool) or not isinstance(max_guesses, int) or max_guesses < 1:
            raise ValueError(f"max_guesses must be an int >= 1, got {max_guesses!r}")
        if not isinstance(shaping, (int, float)) or not math.isfinite(shaping) or shaping < 0:
            raise ValueError(f"shaping must be a finite number >= 0 (0 = off), got {shaping!r}")
        super().__init__(**kwargs)
        self.max_guesses = max_guesses
        self.shaping = float(shaping)
        self.answers: tuple[str, ...] = load_answers()
        self.allowed: tuple[str, ...] = load_allowed()
        self.allowed_words: frozenset[str] = allowed_set()
        self.answer = ""
        self._history: list[tuple[str, tuple[int, ...]]] = []
        self._greens: set[int] = set()

    @property
    def history(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The guesses so far with their marks (what the player has seen)."""
        return tuple(self._history)

    @property
    def guesses_left(self) -> int:
        """Guesses the player still has."""
        return self.max_guesses - len(self._history)

    def _reset(self, options: dict[str, Any]) -> str:
        unknown = set(options) - {"answer"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; Wordle takes 'answer'")
        if "answer" in options:
            answer = options["answer"]
            word = normalize_action(answer) if isinstance(answer, str) else None
            if word not in self.allowed_words:
                raise ValueError(
                    f"options['answer'] must be a 5-letter word of the allowed list, got {answer!r}"
                )
            self.answer = str(word)
        else:
            self.answer = self.answers[int(self.np_random.integers(len(self.answers)))]
        self._history = []
        self._greens = set()
        self.instruction = (
            f"Let's play Wordle. Guess the secret {WORD_LENGTH}-letter English word in "
            f"{self.max_guesses} guess{'es' if self.max_guesses > 1 else ''}. Reply with one "
            f"{WORD_LENGTH}-letter word (e.g. crane); it must be a real word. After each guess "
            f"every letter is marked: {LEGEND} A repeated letter is marked G or Y only as many "
            "times as it occurs in the secret word."
        )
        return self.instruction

    def _parse(self, action: str) -> str | Invalid:
        text = normalize_action(action)
        match = _GUESS.fullmatch(text)
        if not text:
            return Invalid("the guess is empty; reply with one 5-letter word, e.g. crane")
        if match is None:
            return Invalid(f"guesses are one word of letters a-z, e.g. crane; got {preview(text)}")
        word = match.group(1)
        if len(word) != WORD_LENGTH:
            return Invalid(f"guesses have {WORD_LENGTH} letters; {preview(word)} has {len(word)}")
        if word not in self.allowed_words:
            return Invalid(f"'{word}' is not in the word list")
        return word

    def _apply(self, action: str) -> Outcome:
        marks = score_guess(action, self.answer)
        self._history.append((action, marks))
        solved = all(m == CORRECT for m in marks)
        new_greens = {i for i, m in enumerate(marks) if m == CORRECT} - self._greens
        self._greens |= new_greens
        parts = {
            "outcome": 1.0 if solved else 0.0,
            "shaping": self.shaping * len(new_greens) / WORD_LENGTH,
        }
        done = solved or self.guesses_left == 0
        lines = [f"Guess {len(self._history)} of {self.max_guesses}: {self._line(-1, ' -> ')}"]
        if solved:
            n = len(self._history)
            lines.append(f"Solved in {n} guess{'es' if n > 1 else ''}! The word was {self._up}.")
        elif done:
            lines.append(f"Out of guesses. The word was {self._up}.")
        else:
            lines += ["Board so far:", self._board(), f"Legend: {LEGEND}", self._status()]
        info: dict[str, Any] = {"reward_parts": parts}
        if done:
            info["answer"] = self.answer
        return Outcome(
            "\n".join(lines), sum(parts.values()), terminated=done, success=solved, info=info
        )

    def _legal_actions(self) -> list[str]:
        # A copy (about 20 us): callers may mutate info lists, the cached tuple stays intact.
        return list(self.allowed)

    def _state_key(self) -> str:
        return "|".join(f"{g}:{''.join(map(str, m))}" for g, m in self._history) or "start"

    def _render(self) -> str:
        board = self._board() if self._history else "(no guesses yet)"
        text = f"Wordle, {self.guesses_left} of {self.max_guesses} guesses left\n{board}"
        if self._done:
            text += f"\nThe word was {self._up}."
        return text

    # -- text helpers ------------------------------------------------------------------

    @property
    def _up(self) -> str:
        return self.answer.upper()

    def _line(self, k: int, sep: str = "  ") -> str:
        guess, marks = self._history[k]
        return f"{guess.upper()}{sep}{format_marks(marks)}"

    def _board(self) -> str:
        return "\n".join(f"  {self._line(k)}" for k in range(len(self._history)))

    def _status(self) -> str:
        found = {
            g for guess, marks in self._history for g, m in zip(guess, marks, strict=True) if m
        }
        absent = sorted({g for guess, _ in self._history for g in guess} - found)
        left = self.guesses_left
        text = f"{left} guess{'es' if left > 1 else ''} left."
        if absent:
            text = f"Letters not in the word: {' '.join(absent).upper()}. " + text
        return text

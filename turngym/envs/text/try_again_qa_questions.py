"""Question templates for ``TryAgainQA-v0``: short word problems and word puzzles.

Every template draws its numbers and words from a numpy ``Generator`` and returns a
``Question`` whose answer is exact: a whole number (``kind="number"``) or a word or
letter (``kind="word"``). The word lists are small and hand-written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["TEMPLATES", "WORDS", "Question", "make_question", "ordinal"]


@dataclass(frozen=True)
class Question:
    """One generated question with its exact answer (the env's privileged record)."""

    template: str
    text: str
    answer: str
    """canonical answer: digits for numbers, a lower-case word or letter otherwise"""
    kind: str
    """``"number"`` or ``"word"``"""


NAMES: tuple[str, ...] = (
    "Tom", "Ana", "Ravi", "Mei", "Lucas", "Amara", "Jonas", "Sofia", "Kenji", "Leila",
    "Omar", "Nina", "Pablo", "Ingrid", "Kofi", "Hana",
)  # fmt: skip

WORDS: tuple[str, ...] = (
    "planet", "garden", "window", "rocket", "silver", "button", "marble", "pencil",
    "castle", "bridge", "forest", "island", "kitten", "ladder", "mirror", "orange",
    "pepper", "rabbit", "saddle", "tunnel", "valley", "wizard", "yellow", "anchor",
    "banana", "cactus", "dragon", "engine", "falcon", "guitar", "harbor", "jungle",
    "lemon", "mango", "river", "stone", "tiger", "zebra", "apple", "cloud",
    "bottle", "candle", "puzzle", "summer", "winter", "letter", "coffee", "butter",
    "balloon", "penguin", "blanket", "chicken", "diamond", "library", "mountain",
    "elephant", "umbrella", "notebook", "sandwich", "triangle", "mississippi", "bookkeeper",
)  # fmt: skip
"""Lower-case words for the letter puzzles (some with many repeated letters)."""

BOX_ITEMS: tuple[str, ...] = (
    "apples", "pencils", "cookies", "marbles", "stickers", "eggs", "books", "cards",
    "crayons", "buttons",
)  # fmt: skip

SHOP_ITEMS: tuple[tuple[str, str], ...] = (
    ("pen", "pens"),
    ("notebook", "notebooks"),
    ("sandwich", "sandwiches"),
    ("ticket", "tickets"),
    ("comic", "comics"),
    ("candle", "candles"),
    ("mug", "mugs"),
    ("scarf", "scarves"),
)

# (big unit, small unit, small units per big unit)
CONVERSIONS: tuple[tuple[str, str, int], ...] = (
    ("hours", "minutes", 60),
    ("minutes", "seconds", 60),
    ("days", "hours", 24),
    ("weeks", "days", 7),
    ("meters", "centimeters", 100),
    ("kilometers", "meters", 1000),
    ("kilograms", "grams", 1000),
    ("feet", "inches", 12),
    ("yards", "feet", 3),
    ("liters", "milliliters", 1000),
)

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ..., ``11th``, ``12th``, ``13th``, ``21st``.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd']
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _int(rng: np.random.Generator, lo: int, hi: int) -> int:
    """A uniform int in ``lo..hi`` (both included)."""
    return int(rng.integers(lo, hi + 1))


def _pick(rng: np.random.Generator, items: tuple[str, ...]) -> str:
    return items[int(rng.integers(len(items)))]


def _boxes(rng: np.random.Generator) -> Question:
    name, item = _pick(rng, NAMES), _pick(rng, BOX_ITEMS)
    boxes, per_box = _int(rng, 2, 9), _int(rng, 3, 12)
    given = _int(rng, 1, boxes * per_box - 1)
    text = (
        f"{name} has {boxes} boxes of {per_box} {item} and gives away {given}. "
        f"How many {item} are left?"
    )
    return Question("boxes", text, str(boxes * per_box - given), "number")


def _shopping(rng: np.random.Generator) -> Question:
    i, j = (int(x) for x in rng.choice(len(SHOP_ITEMS), size=2, replace=False))
    (one, ones), (other, others) = SHOP_ITEMS[i], SHOP_ITEMS[j]
    p, q, m, n = _int(rng, 2, 15), _int(rng, 2, 15), _int(rng, 2, 6), _int(rng, 2, 6)
    text = (
        f"A {one} costs {p} dollars and a {other} costs {q} dollars. "
        f"How many dollars do {m} {ones} and {n} {others} cost in total?"
    )
    return Question("shopping", text, str(m * p + n * q), "number")


def _convert(rng: np.random.Generator) -> Question:
    big, small, factor = CONVERSIONS[int(rng.integers(len(CONVERSIONS)))]
    k = _int(rng, 2, 12)
    return Question("convert", f"How many {small} are in {k} {big}?", str(k * factor), "number")


def _age(rng: np.random.Generator) -> Question:
    i, j = (int(x) for x in rng.choice(len(NAMES), size=2, replace=False))
    a, d, k = _int(rng, 4, 40), _int(rng, 2, 30), _int(rng, 2, 15)
    text = (
        f"{NAMES[i]} is {a} years old. {NAMES[j]} is {d} years older than {NAMES[i]}. "
        f"How old will {NAMES[j]} be in {k} years?"
    )
    return Question("age", text, str(a + d + k), "number")


def _sequence(rng: np.random.Generator) -> Question:
    length, step = _int(rng, 4, 5), _int(rng, 2, 15) * (1 if rng.random() < 0.6 else -1)
    # Start high enough that a falling sequence stays positive through the answer.
    first = _int(rng, 1, 50) + (0 if step > 0 else -step * length)
    terms = [first + step * k for k in range(length + 1)]
    shown = ", ".join(map(str, terms[:-1]))
    text = f"What number comes next in the sequence {shown}, ...?"
    return Question("sequence", text, str(terms[-1]), "number")


def _nth_letter(rng: np.random.Generator) -> Question:
    word = _pick(rng, WORDS)
    n = _int(rng, 1, len(word))
    text = f"What is the {ordinal(n)} letter of the word '{word}'?"
    return Question("nth_letter", text, word[n - 1], "word")


def _count_letter(rng: np.random.Generator) -> Question:
    word = _pick(rng, WORDS)
    absent = [c for c in _LETTERS if c not in word]
    letter = _pick(rng, tuple(word)) if rng.random() < 0.85 else _pick(rng, tuple(absent))
    text = f"How many times does the letter '{letter}' appear in the word '{word}'?"
    return Question("count_letter", text, str(word.count(letter)), "number")


def _word_length(rng: np.random.Generator) -> Question:
    word = _pick(rng, WORDS)
    return Question(
        "word_length", f"How many letters are in the word '{word}'?", str(len(word)), "number"
    )


def _reverse(rng: np.random.Generator) -> Question:
    word = _pick(rng, WORDS)
    text = f"Write the word '{word}' backwards (reverse its letters)."
    return Question("reverse", text, word[::-1], "word")


TEMPLATES: dict[str, Callable[[np.random.Generator], Question]] = {
    "boxes": _boxes,
    "shopping": _shopping,
    "convert": _convert,
    "age": _age,
    "sequence": _sequence,
    "nth_letter": _nth_letter,
    "count_letter": _count_letter,
    "word_length": _word_length,
    "reverse": _reverse,
}
"""Template name -> generator; ``TryAgainQA-v0`` draws a template uniformly."""


def make_question(rng: np.random.Generator, templates: tuple[str, ...]) -> Question:
    """A question from one of ``templates``, chosen uniformly.

    >>> q = make_question(np.random.default_rng(0), ("convert",))
    >>> q.template, q.kind
    ('convert', 'number')
    """
    return TEMPLATES[templates[int(rng.integers(len(templates)))]](rng)

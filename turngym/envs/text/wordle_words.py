"""Wordle's word lists: how they are built from Debian's ``wamerican`` list, and loading them.

The bundled files ``data/wordle_allowed.txt`` (every guess the env accepts) and
``data/wordle_answers.txt`` (the secret words) are derived from
``/usr/share/dict/american-english`` by :func:`build_word_lists`. Regenerate them with::

    python -m turngym.envs.text.wordle_words [--dict PATH]

Allowed guesses are every entry of exactly five lowercase ASCII letters (so no
apostrophes, capitals/proper nouns or accents). Answers are a commoner subset: the
allowed words minus those that look like inflections or oddities, using the word
list itself as evidence where a rule needs a stem:

1. ``-s`` forms (plurals, 3rd person): a word ending in ``s`` but not ``ss``, except
   ``-us/-is/-as/-os`` words with no singular in the list (bonus, basis, atlas, chaos).
2. ``-ed`` past forms with a stem in the list (baked<bake, added<add, tried<try,
   hopped<hop); bleed, greed, naked stay.
3. ``-ing`` forms whose stem (with a vowel) is in the list (using<use, doing<do);
   thing, sting, bring stay.
4. Comparatives/superlatives: ``-er`` with a matching ``-est`` (older/oldest) and
   ``-est`` words with a stem.
5. Latin plurals: ``-ae`` (novae<nova), ``-i`` (cacti<cactus, tempi<tempo),
   ``-a`` (media<medium).
6. Roman numerals (xviii, clxiv).
7. A short stop-list (:data:`EXCLUDED_ANSWERS`): abbreviations, computing jargon,
   spoken contractions, slurs and sexual words.

Loading is cheap: each file is read once per process (``functools.lru_cache``).
"""

from __future__ import annotations

import argparse
import hashlib
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

__all__ = [
    "DATA_DIR",
    "DEFAULT_DICT",
    "EXCLUDED_ANSWERS",
    "SOURCE_SHA256",
    "allowed_set",
    "build_word_lists",
    "load_allowed",
    "load_answers",
    "main",
]

DEFAULT_DICT = Path("/usr/share/dict/american-english")
"""Debian/Ubuntu's ``wamerican`` word list."""
DATA_DIR = Path(__file__).resolve().parent / "data"
ANSWERS_FILE = DATA_DIR / "wordle_answers.txt"
ALLOWED_FILE = DATA_DIR / "wordle_allowed.txt"
SOURCE_SHA256 = "9f513f1ceadb6a01c5485b7dbdfd5118dc66cd70b59cae2851292112d4066a32"
"""sha256 of the list the bundled files were built from (Debian 12's wamerican 2020.12.07-2)."""

# Real entries of the list that make poor secret words (still allowed as guesses).
_ABBREVIATIONS_AND_JARGON = (
    "altho assoc bogon chapt contd dding illus intel ioctl lexer reorg scrog snarf stdio "
    "sysop treas warez xterm zorch"
)
_SPOKEN_CONTRACTIONS = "dunno gimme gonna gotta kinda lemme sorta wanna"
_SLURS_AND_SEXUAL = (
    "bitch boink chink fagot gipsy gypsy horny hussy hymen labia nigga penis porno pussy "
    "semen sperm squaw twerk twink vulva welch welsh whore"
)
EXCLUDED_ANSWERS: frozenset[str] = frozenset(
    " ".join((_ABBREVIATIONS_AND_JARGON, _SPOKEN_CONTRACTIONS, _SLURS_AND_SEXUAL)).split()
)

_FIVE = re.compile(r"[a-z]{5}")
_ROMAN = re.compile(r"m{0,4}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})")
_VOWEL = re.compile(r"[aeiouy]")


def _is_s_form(w: str, words: set[str]) -> bool:
    if not w.endswith("s") or w.endswith("ss"):
        return False
    if w[-2] not in "aiou":
        return True
    # bonus, basis, atlas, chaos: keep unless the list holds a singular they inflect.
    return (
        w[:-1] in words
        or (w.endswith("es") and w[:-2] in words)
        or (w.endswith("ies") and w[:-3] + "y" in words)
    )


def _is_ed_form(w: str, words: set[str]) -> bool:
    if not w.endswith("ed"):
        return False
    stem = w[:-2]
    return (
        w[:-1] in words  # baked < bake
        or stem in words  # added < add
        or (w.endswith("ied") and w[:-3] + "y" in words)  # tried < try
        or (stem[-1] == stem[-2] and stem[:-1] in words)  # hopped < hop
    )


def _is_ing_form(w: str, words: set[str]) -> bool:
    stem = w[:-3]
    if not w.endswith("ing") or not _VOWEL.search(stem):
        return False  # thing, sting, bring: "th", "st" are no stems
    return (
        stem in words
        or stem + "e" in words
        or (stem.endswith("y") and stem[:-1] + "ie" in words)  # dying < die
    )


def _is_comparative(w: str, words: set[str]) -> bool:
    if w.endswith("est"):
        return w[:-3] in words or w[:-2] in words
    if not w.endswith("er"):
        return False
    # A matching superlative tells an adjective's comparative (older) from a noun (paper).
    return (
        w[:-2] + "est" in words
        or w[:-1] + "st" in words
        or (w.endswith("ier") and w[:-3] + "iest" in words)
    )


def _is_latin_plural(w: str, words: set[str]) -> bool:
    if w.endswith("ae"):
        return w[:-1] in words
    if w.endswith("i"):
        return w[:-1] + "us" in words or w[:-1] + "o" in words
    if w.endswith("a"):
        return w[:-1] + "um" in words
    return False


def _is_answer(w: str, words: set[str]) -> bool:
    return not (
        w in EXCLUDED_ANSWERS
        or _ROMAN.fullmatch(w)
        or _is_s_form(w, words)
        or _is_ed_form(w, words)
        or _is_ing_form(w, words)
        or _is_comparative(w, words)
        or _is_latin_plural(w, words)
    )


def select_words(entries: Iterable[str]) -> tuple[list[str], list[str]]:
    """Split raw word-list entries into (answers, allowed), both sorted and unique.

    >>> select_words(["crane", "Crane", "can't", "move", "moves", "bonus", "xviii"])
    (['bonus', 'crane'], ['bonus', 'crane', 'moves', 'xviii'])
    """
    words = {e.strip() for e in entries}
    allowed = sorted(w for w in words if _FIVE.fullmatch(w))
    answers = [w for w in allowed if _is_answer(w, words)]
    return answers, allowed


def build_word_lists(path: str | Path = DEFAULT_DICT) -> tuple[list[str], list[str]]:
    """Build (answers, allowed) from a one-word-per-line list such as ``wamerican``'s.

    Raises:
        FileNotFoundError: the list is missing (``apt-get install wamerican``).

    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"word list {path} not found; install Debian's wamerican package "
            "(apt-get install wamerican) or pass the path of another list"
        )
    return select_words(path.read_text(encoding="utf-8").splitlines())


def file_sha256(path: str | Path) -> str:
    """The sha256 hex digest of a file (to tell word-list versions apart)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _read(path: Path) -> tuple[str, ...]:
    return tuple(path.read_text(encoding="ascii").split())


@lru_cache(maxsize=1)
def load_answers() -> tuple[str, ...]:
    """The bundled secret words, sorted (read once per process)."""
    return _read(ANSWERS_FILE)


@lru_cache(maxsize=1)
def load_allowed() -> tuple[str, ...]:
    """The bundled allowed guesses, sorted (read once per process)."""
    return _read(ALLOWED_FILE)


@lru_cache(maxsize=1)
def allowed_set() -> frozenset[str]:
    """The allowed guesses as a set, for O(1) membership tests."""
    return frozenset(load_allowed())


def main(argv: list[str] | None = None) -> None:
    """Regenerate the bundled files from a word list (``--dict``, default wamerican's)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dict", type=Path, default=DEFAULT_DICT, help="source word list")
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="folder for the two files")
    args = parser.parse_args(argv)
    answers, allowed = build_word_lists(args.dict)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, words in (("wordle_answers.txt", answers), ("wordle_allowed.txt", allowed)):
        (args.out / name).write_text("".join(w + "\n" for w in words), encoding="ascii")
    print(
        f"wrote {len(answers)} answers and {len(allowed)} allowed guesses to {args.out} "
        f"(source sha256 {file_sha256(args.dict)})"
    )


if __name__ == "__main__":
    main()

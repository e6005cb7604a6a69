r"""Answer shapes that provably cannot stall a given Reasoning Gym scorer (issue 42).

Every scorer but the default string compare runs in a bounded worker process
(``bounded_score``), one socket round trip per answer. For some scorers most answers,
the right one included, have a shape on which the scorer's work is bounded by a small
constant times the answer's length, with no name to look up and nothing to call. Such an
answer is scored in-process (``SAFE_SHAPES``); every other answer still goes to the worker.

``spiral_matrix`` (its scorer: ``answer.strip() == oracle``, else
``" ".join(str(item) for item in eval(answer))``). An answer of at most
``MATRIX_CHARS`` characters made only of ASCII digits, ASCII whitespace, commas and
square brackets, with no run of more than ``MATRIX_DIGITS`` digits:

- holds no name, string, attribute, call, operator, sign or parenthesis, so ``eval``
  sees only integer literals, list displays and commas (a tuple of them): it builds
  them and runs nothing else;
- nests lists at most 200 deep (deeper is the tokenizer's "too many nested
  parentheses" ``SyntaxError``);
- has integers of at most 20 digits, whose conversions (to and from text) take
  constant time whatever ``sys.set_int_max_str_digits`` says;
- so parsing, compiling, building and ``str`` of the result are linear in its length,
  and its memory a small multiple of it (under 2 ms of CPU at the bound, measured).

Not admitted, on purpose: parentheses (a tuple nested 200 deep is constant-folded in
superlinear time: 20 ms for 800 characters), signs (``1-1-1...`` is a chain of
operations as deep as it is long), unicode digits and spaces (``\d`` and ``\s`` would
match them: the class is spelled out in ASCII), and anything longer.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["MATRIX_CHARS", "MATRIX_DIGITS", "SAFE_SHAPES", "safe_in_process"]

MATRIX_CHARS = 4000
"""The longest matrix-shaped answer scored in-process (the default config's right
answers have under 400 characters)."""

MATRIX_DIGITS = 20
"""The longest run of digits (one integer literal) in such an answer."""

# separators, then numbers of 1-20 digits each followed by a separator; a 21st digit can
# match nothing (a number must end at a separator or the end), so no run is longer
_SEP = r"[ \t\n\r,\[\]]"
_MATRIX = re.compile(rf"{_SEP}*(?:[0-9]{{1,{MATRIX_DIGITS}}}{_SEP}+)*[0-9]{{0,{MATRIX_DIGITS}}}")


def _matrix_of_integers(answer: str) -> bool:
    return len(answer) <= MATRIX_CHARS and _MATRIX.fullmatch(answer) is not None


SAFE_SHAPES: dict[str, Callable[[str], bool]] = {
    "spiral_matrix": _matrix_of_integers,
}
"""Per dataset scored in a worker: whether an answer is of a shape its scorer cannot stall on."""


def safe_in_process(task: str) -> Callable[[str], bool] | None:
    r"""The test of answers ``task``'s scorer may score in-process, or None (all go to a worker).

    >>> shape = safe_in_process("spiral_matrix")
    >>> shape("1 2 3\n4 5 6"), shape("[[1, 2], [3, 4]]"), shape("9**9**9"), shape("(1,)")
    (True, True, False, False)
    >>> safe_in_process("rubiks_cube") is None
    True
    """
    return SAFE_SHAPES.get(task)

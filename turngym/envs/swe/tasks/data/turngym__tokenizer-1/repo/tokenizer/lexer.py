"""Split source text into tokens that carry their 1-based line and column."""

from dataclasses import dataclass

OPERATORS = set("+-*/=^")
BRACKETS = {"(": "lparen", ")": "rparen"}


@dataclass(frozen=True)
class Token:
    """One token; ``line`` and ``col`` are 1-based."""

    kind: str
    text: str
    line: int
    col: int


class LexError(Exception):
    """A character that starts no token."""

    def __init__(self, char: str, line: int, col: int) -> None:
        super().__init__(f"unexpected {char!r} at line {line}, column {col}")
        self.char = char
        self.line = line
        self.col = col


def _scan(src: str, i: int, accept) -> int:
    while i < len(src) and accept(src[i]):
        i += 1
    return i


def tokenize(src: str) -> list[Token]:
    """Tokens of ``src``: numbers, names, operators and brackets."""
    tokens: list[Token] = []
    line, line_start, i = 1, 0, 0
    while i < len(src):
        ch = src[i]
        col = i - line_start + 1
        if ch == "\n":
            line += 1
            line_start = i
            i += 1
        elif ch.isspace():
            i += 1
        elif ch.isdigit():
            end = _scan(src, i, lambda c: c.isdigit() or c == ".")
            tokens.append(Token("num", src[i:end], line, col))
            i = end
        elif ch.isalpha() or ch == "_":
            end = _scan(src, i, lambda c: c.isalnum() or c == "_")
            tokens.append(Token("name", src[i:end], line, col))
            i = end
        elif ch in OPERATORS:
            tokens.append(Token("op", ch, line, col))
            i += 1
        elif ch in BRACKETS:
            tokens.append(Token(BRACKETS[ch], ch, line, col))
            i += 1
        else:
            raise LexError(ch, line, col)
    return tokens

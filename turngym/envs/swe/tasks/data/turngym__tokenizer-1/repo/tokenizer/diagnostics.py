"""Human-readable error messages."""

from tokenizer.lexer import LexError


def caret(src: str, err: LexError) -> str:
    """The offending line of ``src`` with a caret under the error's column."""
    text = src.splitlines()[err.line - 1]
    return f"{text}\n{' ' * (err.col - 1)}^"

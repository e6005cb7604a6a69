"""A tokenizer for a small calculator language, with caret diagnostics."""

from tokenizer.diagnostics import caret
from tokenizer.lexer import LexError, Token, tokenize

__all__ = ["LexError", "Token", "caret", "tokenize"]

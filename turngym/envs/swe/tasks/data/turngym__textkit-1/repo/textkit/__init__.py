"""Small text helpers: slugs, truncation and word counts."""

from textkit.slug import slugify
from textkit.words import initials, truncate, word_count

__all__ = ["initials", "slugify", "truncate", "word_count"]

"""Small text helpers: slugs, truncation and word counts."""

from textkit.slug import slugify
from textkit.words import truncate, word_count

__all__ = ["slugify", "truncate", "word_count"]

"""Render a small Markdown subset to plain text."""
from mdtext.render import to_text

__all__ = ["to_text"]

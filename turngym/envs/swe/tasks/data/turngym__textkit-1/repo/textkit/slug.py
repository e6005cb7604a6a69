"""URL slugs from titles."""

import re

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(title: str, sep: str = "-") -> str:
    """Lower-case ``title`` and join its words with ``sep``."""
    text = title.lower()
    text = _NON_WORD.sub(sep, text)
    return text.strip(sep)

"""Word-level helpers."""


def word_count(text: str) -> int:
    """Number of whitespace-separated words in ``text``."""
    return len(text.split())


def truncate(text: str, width: int, ellipsis: str = "...") -> str:
    """Cut ``text`` to at most ``width`` characters, ending in ``ellipsis`` if cut."""
    if width < 0:
        raise ValueError("width must be >= 0")
    if len(text) <= width:
        return text
    if width <= len(ellipsis):
        return ellipsis[:width]
    cut = text[: width - len(ellipsis)].rstrip()
    return cut + ellipsis


def initials(name: str, sep: str = ".") -> str:
    """Upper-case first letters of the words of ``name``, each followed by ``sep``."""
    return "".join(word[0].upper() + sep for word in name.split())

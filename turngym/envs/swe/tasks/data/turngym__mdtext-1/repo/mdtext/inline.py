"""Strip inline Markdown: emphasis, code spans, links and images."""
import re

_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\(([^)]*)\)")
_CODE = re.compile(r"`([^`]*)`")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1")


def strip_inline(text, show_urls=False):
    """Return text with inline markup removed."""
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1 (\2)" if show_urls else r"\1", text)
    text = _CODE.sub(r"\1", text)
    previous = None
    while previous != text:  # nested emphasis such as **_x_**
        previous, text = text, _EMPHASIS.sub(r"\2", text)
    return text

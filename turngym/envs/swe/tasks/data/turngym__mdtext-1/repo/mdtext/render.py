"""Render Markdown source to plain text."""
from mdtext.blocks import split_blocks
from mdtext.inline import strip_inline


def to_text(source, show_urls=False, bullet="- "):
    """Return plain text for source; headings are upper-cased, blocks separated by blank lines."""
    out = []
    for block in split_blocks(source):
        text = strip_inline(block.text, show_urls)
        if block.kind == "heading":
            out.append(text.upper() if block.level <= 2 else text)
        elif block.kind == "item":
            out.append(bullet + text)
        else:
            out.append(text)
    return "\n".join(out)

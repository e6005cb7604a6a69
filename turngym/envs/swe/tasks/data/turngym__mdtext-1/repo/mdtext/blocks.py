"""Split Markdown source into blocks: headings, list items and paragraphs."""
import re
from dataclasses import dataclass

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")


@dataclass
class Block:
    kind: str  # "heading", "item" or "paragraph"
    text: str
    level: int = 0


def split_blocks(source):
    """Return the list of blocks in source, in order."""
    lines = source.splitlines()
    if lines[-1].strip():
        lines.append("")  # a blank line flushes the last paragraph
    blocks, para = [], []
    for line in lines:
        heading, item = _HEADING.match(line), _ITEM.match(line)
        if para and (not line.strip() or heading or item):
            blocks.append(Block("paragraph", " ".join(para)))
            para = []
        if heading:
            blocks.append(Block("heading", heading.group(2), len(heading.group(1))))
        elif item:
            blocks.append(Block("item", item.group(1)))
        elif line.strip():
            para.append(line.strip())
    return blocks

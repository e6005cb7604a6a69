"""Split template source into ("text" | "var" | "block", content) tokens."""
import re

_TAG = re.compile(r"{{(.*?)}}|{%(.*?)%}", re.S)


def tokenize(source):
    tokens, pos = [], 0
    for m in _TAG.finditer(source):
        if m.start() > pos:
            tokens.append(("text", source[pos:m.start()]))
        if m.group(1) is not None:
            tokens.append(("var", m.group(1).strip()))
        else:
            tokens.append(("block", m.group(2).strip()))
        pos = m.end()
    if pos < len(source):
        tokens.append(("text", source[pos:]))
    return tokens

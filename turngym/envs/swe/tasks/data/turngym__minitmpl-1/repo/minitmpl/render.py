"""Parse tokens into a tree and render it against a Context."""
from minitmpl.context import Context
from minitmpl.lexer import tokenize

FILTERS = {"upper": str.upper, "lower": str.lower, "title": str.title, "strip": str.strip}


class TemplateError(ValueError):
    """Raised for malformed templates or unknown filters."""


def _parse(tokens, pos=0, until=()):
    nodes = []
    while pos < len(tokens):
        kind, content = tokens[pos]
        if kind == "block" and content in until:
            return nodes, pos
        if kind == "block":
            word = content.split()[0]
            if word not in ("for", "if"):
                raise TemplateError(f"unexpected {{% {content} %}}")
            body, pos = _parse(tokens, pos + 1, ("end" + word,))
            if pos >= len(tokens):
                raise TemplateError(f"{{% {content} %}} is never closed with {{% end{word} %}}")
            nodes.append((word, content, body))
        else:
            nodes.append((kind, content, None))
        pos += 1
    if until:
        return nodes, pos
    return nodes


def _value(expr, ctx):
    name, *filters = [part.strip() for part in expr.split("|")]
    value = ctx.resolve(name)
    for f in filters:
        if f not in FILTERS:
            raise TemplateError(f"unknown filter {f!r}; known: {', '.join(FILTERS)}")
        value = FILTERS[f](str(value))
    return value


def _render(nodes, ctx):
    out = []
    for kind, content, body in nodes:
        if kind == "text":
            out.append(content)
        elif kind == "var":
            out.append(str(_value(content, ctx)))
        elif kind == "if":
            if _value(content[2:].strip(), ctx):
                out.append(_render(body, ctx))
        else:
            _, var, _in, expr = content.split(None, 3)
            for item in _value(expr, ctx):
                ctx.vars[var] = item
                out.append(_render(body, ctx))
    return "".join(out)


def render(source, context=None):
    """Render source with the variables in context (a dict)."""
    return _render(_parse(tokenize(source)), Context(context))

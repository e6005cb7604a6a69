"""Follow a parsed path through dicts and lists."""
from jpath.parse import parse_path

_MISSING = object()


class PathError(LookupError):
    """Raised when a path does not lead to a value."""


def _step(node, step):
    if isinstance(step, int):
        if not isinstance(node, list):
            raise PathError(f"cannot index {type(node).__name__} with [{step}]")
        if not -len(node) <= step <= len(node):
            raise PathError(f"index [{step}] out of range for a list of {len(node)}")
        return node[step]
    if not isinstance(node, dict) or step not in node:
        raise PathError(f"no key {step!r}")
    return node[step]


def get(data, path, default=_MISSING):
    """Return the value at path in data, or default if given and the path leads nowhere."""
    node = data
    try:
        for step in parse_path(path):
            node = _step(node, step)
    except PathError:
        if default is _MISSING:
            raise
        return default
    return node


def has(data, path):
    """Return True if path leads to a value in data."""
    return get(data, path, _MISSING_SENTINEL) is not _MISSING_SENTINEL


_MISSING_SENTINEL = object()

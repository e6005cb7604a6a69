"""Parse a path such as `a.b[2].c` or `items[-1]` into keys (str) and indexes (int)."""
import re

_TOKEN = re.compile(r"\.?([A-Za-z_][\w-]*)|\[(-?\d+)\]|\[\"([^\"]*)\"\]")


def parse_path(path):
    """Return the list of steps in path; raise ValueError on malformed paths."""
    steps, pos = [], 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if not m or (m.group(1) and pos > 0 and path[pos] != "."):
            raise ValueError(f"bad path {path!r} at position {pos}")
        key, index, quoted = m.groups()
        steps.append(int(index) if index is not None else key if key is not None else quoted)
        pos = m.end()
    return steps

"""Variable scopes: a loop body sees its own variables on top of the enclosing ones."""

_MISSING = object()


class Context:
    """Variables for one scope, falling back to the parent scope."""

    def __init__(self, data=None, parent=None):
        self.vars = data if data is not None else {}
        self.parent = parent

    def child(self, data):
        """Return a new scope on top of this one; this scope is left unchanged."""
        return Context(data, parent=self)

    def lookup(self, name):
        scope = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            scope = scope.parent
        return _MISSING

    def resolve(self, dotted):
        """Resolve "a.b.c" through keys and attributes; missing names resolve to ""."""
        head, *rest = dotted.split(".")
        value = self.lookup(head)
        for part in rest:
            if value is _MISSING:
                break
            value = value.get(part, _MISSING) if isinstance(value, dict) else getattr(value, part, _MISSING)
        return "" if value is _MISSING else value

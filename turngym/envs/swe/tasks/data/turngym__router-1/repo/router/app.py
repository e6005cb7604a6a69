"""Turn a resolution into a (status, headers, body) response."""

from typing import Any

from router.routing import MethodNotAllowed, NotFound, Router


def dispatch(router: Router, method: str, path: str) -> tuple[int, dict[str, str], Any]:
    """Call the matching handler; 404 and 405 responses otherwise."""
    try:
        handler, args = router.resolve(method, path)
    except NotFound:
        return 404, {}, "not found"
    except MethodNotAllowed as err:
        return 405, {"Allow": ", ".join(sorted(err.allowed))}, "method not allowed"
    return 200, {}, handler(**args)

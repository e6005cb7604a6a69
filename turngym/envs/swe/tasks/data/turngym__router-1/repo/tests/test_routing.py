import pytest

from router import MethodNotAllowed, NotFound, Router, dispatch


def test_static_route():
    router = Router()
    router.add("GET", "/health", lambda: "ok")
    assert dispatch(router, "get", "/health") == (200, {}, "ok")
    assert dispatch(router, "GET", "/health/") == (200, {}, "ok")


def test_path_arguments():
    router = Router()

    @router.route("GET", "/users/<user>/posts/<post>")
    def show(user, post):
        return f"{user}:{post}"

    assert dispatch(router, "GET", "/users/ann/posts/3") == (200, {}, "ann:3")


def test_unknown_path_is_404():
    router = Router()
    router.add("GET", "/a", lambda: "a")
    assert dispatch(router, "GET", "/b")[0] == 404
    with pytest.raises(NotFound):
        router.resolve("GET", "/a/b")


def test_wrong_method_is_405():
    router = Router()
    router.add("GET", "/a", lambda: "a")
    assert dispatch(router, "POST", "/a") == (405, {"Allow": "GET"}, "method not allowed")
    with pytest.raises(MethodNotAllowed):
        router.resolve("DELETE", "/a")

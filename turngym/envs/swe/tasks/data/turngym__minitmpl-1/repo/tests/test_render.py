import pytest

from minitmpl import Context, TemplateError, render


def test_variables_and_filters():
    assert render("Hi {{ name|title }}!", {"name": "ada lovelace"}) == "Hi Ada Lovelace!"
    assert render("{{ user.name | upper }}", {"user": {"name": "bo"}}) == "BO"
    assert render("[{{ missing }}]") == "[]"


def test_for_loop():
    out = render("{% for t in tags %}<{{ t }}>{% endfor %}", {"tags": ["a", "b"]})
    assert out == "<a><b>"


def test_if_and_nested_loop():
    src = "{% for r in rows %}{% if r.show %}{% for c in r.cells %}{{ c }},{% endfor %};{% endif %}{% endfor %}"
    rows = [{"show": True, "cells": [1, 2]}, {"show": False, "cells": [3]}, {"show": True, "cells": []}]
    assert render(src, {"rows": rows}) == "1,2,;;"


def test_errors():
    with pytest.raises(TemplateError, match="never closed"):
        render("{% for x in xs %}")
    with pytest.raises(TemplateError, match="unknown filter"):
        render("{{ x|shout }}", {"x": 1})


def test_context_lookup():
    ctx = Context({"a": {"b": 1}}).child({"c": 2})
    assert ctx.resolve("a.b") == 1 and ctx.resolve("c") == 2 and ctx.resolve("a.z") == ""

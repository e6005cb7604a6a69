from __future__ import annotations

from tests import system_deps


def test_missing_package_skips_unless_ci_requires_it(monkeypatch):
    monkeypatch.setattr(system_deps, "REQUIRED", False)
    mark = system_deps.needs(None, "Foo", "apt-get install foo")
    assert (
        mark.args == (True,)
        and "Foo is not installed (apt-get install foo" in mark.kwargs["reason"]
    )
    assert system_deps.needs("/usr/bin/foo", "Foo", "x").args == (False,)
    monkeypatch.setattr(system_deps, "REQUIRED", True)
    assert system_deps.needs(None, "Foo", "x").args == (False,)  # CI: run it, let it fail

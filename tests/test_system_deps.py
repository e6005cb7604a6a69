from __future__ import annotations

from tests import system_deps


def test_missing_package_skips_unless_ci_requires_it(monkeypatch):
    monkeypatch.setattr(system_deps, "INNER_LOOP", False)
    monkeypatch.setattr(system_deps, "REQUIRED", False)
    mark = system_deps.needs(None, "Foo", "apt-get install foo")
    assert (
        mark.args == (True,)
        and "Foo is not installed (apt-get install foo" in mark.kwargs["reason"]
    )
    assert system_deps.needs("/usr/bin/foo", "Foo", "x").args == (False,)
    monkeypatch.setattr(system_deps, "REQUIRED", True)
    assert system_deps.needs(None, "Foo", "x").args == (False,)  # CI: run it, let it fail


def test_make_check_skips_what_needs_a_system_package_even_where_installed(monkeypatch):
    monkeypatch.setattr(system_deps, "INNER_LOOP", True)
    mark = system_deps.needs("/usr/bin/foo", "Foo", "x")
    assert mark.name == "skip" and "make check leaves out what needs Foo" in mark.kwargs["reason"]
    assert system_deps.chromium_found() is False and system_deps.x11_found() is False
    assert system_deps.bubblewrap().name == "skip"

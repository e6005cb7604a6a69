"""docs/development/architecture.md and CONTRIBUTING.md stay true to the code: every
package, module and file they name exists, and every package of ``turngym/`` is
described in the architecture's layout."""

from __future__ import annotations

import importlib.util
import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "docs" / "development" / "architecture.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
# The bundled SWE tasks' repositories are data the agent works on, not turngym's code.
TASK_DATA = ROOT / "turngym" / "envs" / "swe" / "tasks" / "data"

_PATH = re.compile(r"`((?:turngym|tests|benchmarks|scripts|docs|examples)/[\w./<>-]*)`")
_MODULE = re.compile(r"`(turngym(?:\.\w+)+)")


def _named_paths(text: str) -> list[str]:
    """Paths in backticks; one with a ``<name>`` placeholder stands for its folder."""
    return sorted(
        {p.split("<", 1)[0].rsplit("/", 1)[0] + "/" if "<" in p else p for p in _PATH.findall(text)}
    )


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a prefix that is a module, not a package
        return False


def _packages() -> list[str]:
    found = []
    for init in (ROOT / "turngym").rglob("__init__.py"):
        if TASK_DATA in init.parents:
            continue
        found.append(init.parent.relative_to(ROOT).as_posix() + "/")
    return sorted(found)


@pytest.mark.parametrize("page", [ARCHITECTURE, CONTRIBUTING], ids=lambda p: p.name)
def test_every_path_named_exists(page: Path) -> None:
    missing = [p for p in _named_paths(page.read_text(encoding="utf-8")) if not (ROOT / p).exists()]
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", [ARCHITECTURE, CONTRIBUTING], ids=lambda p: p.name)
def test_every_module_named_exists(page: Path) -> None:
    missing = []
    for dotted in sorted(set(_MODULE.findall(page.read_text(encoding="utf-8")))):
        # the longest prefix that is a module; the rest must be attributes of it
        parts = dotted.split(".")
        for k in range(len(parts), 0, -1):
            name = ".".join(parts[:k])
            if _is_module(name):
                module = importlib.import_module(name)
                target = module
                with warnings.catch_warnings():  # a deprecated alias named on purpose
                    warnings.simplefilter("ignore", DeprecationWarning)
                    for attr in parts[k:]:
                        target = getattr(target, attr, None)
                if target is None:
                    missing.append(dotted)
                break
        else:
            missing.append(dotted)
    assert not missing, f"{page.name} names modules or attributes that do not exist: {missing}"


def test_every_package_is_described_in_the_layout() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    layout = text.split("## 1. Layout", 1)[1].split("## 2.", 1)[0]
    named = {line.split("#", 1)[0].strip() for line in layout.splitlines()}
    described = set()
    stack: list[tuple[int, str]] = []
    for line in layout.splitlines():
        entry = line.split("#", 1)[0].rstrip()
        name = entry.strip()
        if not name.endswith("/"):
            continue
        depth = len(entry) - len(entry.lstrip())
        while stack and stack[-1][0] >= depth:
            stack.pop()
        path = (stack[-1][1] if stack else "") + name
        stack.append((depth, path))
        described.add(path)
    assert named  # the layout is there
    missing = [p for p in _packages() if p not in described]
    assert not missing, f"packages the layout does not describe: {missing}"

"""The registry package's layout: family modules build rows from ``base`` alone, one way."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import turngym.registry
from turngym.registry import ENVS, table

PACKAGE = Path(turngym.registry.__file__).parent
FAMILY_MODULES = sorted(
    p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "base", "table")
)


def _registry_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module is not None
        and node.module.startswith("turngym.registry")
    }


def test_family_modules_import_only_base_from_the_registry():
    assert FAMILY_MODULES, "no family modules found"
    for stem in FAMILY_MODULES:
        assert _registry_imports(PACKAGE / f"{stem}.py") == {"turngym.registry.base"}, stem


def test_base_imports_nothing_of_the_registry():
    assert _registry_imports(PACKAGE / "base.py") == set()


def test_every_family_module_feeds_the_table_and_the_table_is_their_rows():
    imported = {
        m.removeprefix("turngym.registry.") for m in _registry_imports(PACKAGE / "table.py")
    }
    assert imported == {*FAMILY_MODULES, "base"}
    assert table.ENVS is ENVS
    assert ENVS[-len(table.ADAPTERS) :] == table.ADAPTERS


def test_the_table_keeps_the_order_of_its_families_blocks():
    # the order issue 43's split kept (ids as before): `turngym list`, select and
    # Gymnasium's registry show rows in it; a family's new row goes inside its block
    blocks = [group for group, _ in itertools.groupby(e.group for e in ENVS)]
    assert blocks == [
        *("text", "classic", "text", "web", "gui", "swe", "games", "miniwob", "gui"),
        *("openspiel", "babyai", "crafter", "nethack", "textworld", "reasoning_gym"),
    ]
    assert [e.name for e in ENVS[:7]] == [
        *("Bandit-v0", "Sokoban-v0", "FrozenLake-v0"),
        *("Taxi-v0", "CliffWalking-v0", "Blackjack-v0", "Wordle-v0"),
    ]

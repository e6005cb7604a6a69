"""The documentation site's sources: what `mkdocs build --strict` (CI's `make docs`) can't see.

The build fails on broken links and references; these tests check what it would let
through: an API module left out of the reference, a nav entry nobody wrote, a config
field without help, and doctests rendered as quotes.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed")
import yaml  # PyYAML comes with mkdocs

from tests.docs.pages import script
from turngym.sdk.trainers import TRAINERS
from turngym.sdk.trainers.config import field_help

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# The API reference issue 31 asks for: each object or module, documented by a
# `::: <name>` block (a module, or one of its members) on some docs/api page.
API = [
    "turngym.core",
    "turngym.spaces",
    "turngym.registry.base.EnvEntry",
    "turngym.registry.table.ENVS",
    "turngym.make",
    "turngym.wrappers",
    "turngym.testing",
    "turngym.sdk.policy",
    "turngym.sdk.backends.hf.HFPolicy",
    "turngym.sdk.backends.openai.OpenAIPolicy",
    "turngym.sdk.backends.vllm.VLLMPolicy",
    "turngym.agents",
    "turngym.sdk.agents",
    "turngym.sdk.rollout",
    "turngym.sdk.records",
    "turngym.sdk.episode_files",
    "turngym.sdk.trainers.TRAINERS",
    "turngym.sdk.trainers.loop.Trainer",
    "turngym.sdk.trainers.loop.run_training",
    "turngym.sdk.trainers.config.RunConfig",
    # every trainer of the table, so a new one is documented without a line here
    *(row.trainer.replace(":", ".") for row in TRAINERS.values()),
    *(row.config.replace(":", ".") for row in TRAINERS.values()),
]
CONFIGS = [row.config.replace(":", ".") for row in TRAINERS.values()]


def _nav_files(nav: Any) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [f for item in nav for f in _nav_files(item)]
    if isinstance(nav, dict):
        return [f for value in nav.values() for f in _nav_files(value)]
    return []


def _page(path: Path) -> str:
    """A page's Markdown as the site's hook hands it on (trainer sections expanded)."""
    return script("docs_config_tables").expand_trainers(path.read_text())


def _api_blocks() -> set[str]:
    pages = (DOCS / "api").glob("*.md")
    return {m[1] for p in pages for m in re.finditer(r"^::: ([\w.]+)$", _page(p), re.M)}


def _documented(name: str, blocks: set[str]) -> bool:
    """``name`` has a block of its own, or its module's block lists it (``__all__``)."""
    if name in blocks:
        return True
    module_name, _, attr = name.rpartition(".")
    if module_name not in blocks:
        return False
    return attr in getattr(importlib.import_module(module_name), "__all__", ())


def test_every_api_module_of_the_issue_has_a_reference_block():
    blocks = _api_blocks()
    assert [name for name in API if not _documented(name, blocks)] == []


def _attribute_docstring(module_name: str, attr: str) -> str | None:
    """The string after ``attr``'s last module-level assignment (griffe's attribute doc)."""
    spec = importlib.util.find_spec(module_name)
    assert spec is not None and spec.origin is not None
    body = ast.parse(Path(spec.origin).read_text()).body
    doc = None
    for statement, after in zip(body, [*body[1:], None], strict=True):
        targets = (
            statement.targets
            if isinstance(statement, ast.Assign)
            else [statement.target]
            if isinstance(statement, ast.AnnAssign)
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
            is_doc = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
            doc = after.value.value if is_doc else None
    return doc


def test_members_documented_through_their_module_have_a_docstring():
    # mkdocstrings leaves out a member without a docstring (an undocumented ENVS would
    # vanish from the page while its module's block still "covers" it)
    blocks = _api_blocks()
    covered = [name for name in API if name not in blocks]
    assert covered, "every API name has a block of its own: nothing to check here"
    for name in covered:
        module_name, _, attr = name.rpartition(".")
        member = getattr(importlib.import_module(module_name), attr)
        if isinstance(member, type) or callable(member):
            assert member.__doc__, f"{name} has no docstring"
        else:
            assert _attribute_docstring(module_name, attr), f"{name} has no docstring"


def test_every_reference_block_names_an_object_that_exists():
    # a typo in a `:::` block fails the build too, but only after a 20 s build
    blocks = _api_blocks()
    assert len(blocks) >= len(API)
    for name in sorted(blocks):
        module_name, _, attr = name.rpartition(".")
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            module = importlib.import_module(module_name)
            assert hasattr(module, attr), name


def test_every_config_has_a_generated_table():
    configs = _page(DOCS / "api" / "configs.md")
    tables = re.findall(r"^<!-- config-table: ([\w.]+) -->$", configs, re.M)
    assert sorted(tables) == sorted(CONFIGS)


def test_nav_files_exist_except_the_generated_gallery():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    files = _nav_files(config["nav"])
    assert "index.md" in files and "envs/index.md" in files and "api/configs.md" in files
    written = [f for f in files if not f.startswith("envs/")]
    assert [f for f in written if not (DOCS / f).is_file()] == []
    # every adapter page and every API page is in the nav
    pages = sorted(
        p.relative_to(DOCS).as_posix() for d in ("adapters", "api") for p in (DOCS / d).glob("*.md")
    )
    assert [p for p in pages if p not in files] == []


def test_the_site_builds_offline_and_strict():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert config["theme"]["font"] is False  # no Google Fonts
    assert config["strict"] is True
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(
        r"scripts/docs_gallery.py pages\n\t(\w+=\S+ )*\$\(VENV\)/bin/mkdocs build --strict",
        makefile,
    )
    assert re.search(r"^make docs$", (ROOT / ".ci" / "run").read_text(), re.M)


@pytest.mark.parametrize("target", CONFIGS)
def test_config_table_has_a_row_with_help_per_field(target):
    tables = script("docs_config_tables")
    module_name, _, class_name = target.rpartition(".")
    cls = getattr(importlib.import_module(module_name), class_name)
    rows = tables.config_table(target).splitlines()[2:]
    fields = dataclasses.fields(cls)
    assert [row.split("`")[1] for row in rows] == [f.name for f in fields]
    for row, field in zip(rows, fields, strict=True):
        assert row.rstrip(" |").endswith(field_help(cls)[field.name].replace("|", "\\|"))


def test_config_table_refuses_a_field_without_help(monkeypatch):
    tables = script("docs_config_tables")
    from mkdocs.exceptions import PluginError

    @dataclasses.dataclass
    class Bare:
        steps: int = 1

    module = ModuleType("bare_config")
    module.Bare = Bare  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bare_config", module)
    with pytest.raises(PluginError, match=r"bare_config\.Bare\.steps has no help text"):
        tables.config_table("bare_config.Bare")


def test_doctests_render_as_code():
    render = script("griffe_examples").render_doctests
    text = "Pick rows.\n\n>>> [e for e in x]\n['a']\n\nExample:\n    >>> f()\n    1\n"
    assert render(text) == (
        "Pick rows.\n\n```pycon\n>>> [e for e in x]\n['a']\n```\n\nExamples:\n    >>> f()\n    1\n"
    )


def test_home_page_python_runs_as_written(capsys):
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / "index.md").read_text(), re.S)
    assert blocks, "the home page has no Python taste"
    for code in blocks:
        exec(compile(code, "docs/index.md", "exec"), {})
    assert "CRANE" in capsys.readouterr().out

"""The docs' pages as the site's id hook hands them on, for tests that read what a page says.

The guide and adapter pages name most ids through markers (``scripts/docs_id_lists.py``);
a test of what a page names reads it expanded, as the built site shows it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def script(name: str) -> ModuleType:
    """The module ``scripts/<name>.py`` (the scripts folder is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expanded(path: Path) -> str:
    """The page's Markdown with its id markers expanded from the registry as it is now."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    return str(script("docs_id_lists").on_page_markdown(path.read_text(encoding="utf-8")))

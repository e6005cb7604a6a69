"""MkDocs hook: the config tables of docs/api/configs.md, built from the dataclasses.

A page line ``<!-- config-table: package.module.ConfigClass -->`` becomes a Markdown table
of the class's fields: name, type, default and the help text of ``__field_docs__`` (the
text ``turngym train <trainer> --help`` prints), so the site never drifts from the code.
A field without help, or a class that cannot be found, fails the build.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import typing
from typing import Any

from mkdocs.exceptions import PluginError

MARKER = re.compile(r"^<!-- config-table: (?P<target>[\w.]+) -->$", re.M)


def _config_class(target: str) -> type:
    module_name, _, class_name = target.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise PluginError(f"config-table: cannot import {target}: {error}") from error
    if not dataclasses.is_dataclass(cls) or not isinstance(cls, type):
        raise PluginError(f"config-table: {target} is not a dataclass")
    return cls


def _default(field: dataclasses.Field[Any]) -> str:
    if field.default is not dataclasses.MISSING:
        return repr(field.default)
    if field.default_factory is not dataclasses.MISSING:
        return repr(field.default_factory())
    return "required"


def _type_name(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) if isinstance(annotation, type) else None
    return text or str(annotation).replace("typing.", "")


def _cell(text: str) -> str:
    # A pipe would end the table cell; a newline would end the row.
    return text.replace("|", "\\|").replace("\n", " ")


def config_table(target: str) -> str:
    """The Markdown table (field, type, default, help) of the config dataclass ``target``."""
    cls = _config_class(target)
    docs: dict[str, str] = getattr(cls, "__field_docs__", {})
    hints = typing.get_type_hints(cls)
    rows = ["| field | type | default | help |", "|---|---|---|---|"]
    for field in dataclasses.fields(cls):
        help_text = docs.get(field.name)
        if not help_text:
            raise PluginError(f"config-table: {target}.{field.name} has no help text")
        cells = (
            f"`{field.name}`",
            f"`{_type_name(hints[field.name])}`",
            f"`{_default(field)}`",
            help_text,
        )
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs event: replace each config-table marker with its table."""
    return MARKER.sub(lambda m: config_table(m["target"]), markdown)

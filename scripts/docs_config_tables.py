"""MkDocs hook: the config tables of docs/api/configs.md, built from the dataclasses.

A page line ``<!-- config-table: package.module.ConfigClass -->`` becomes a Markdown table
of the class's fields: name, type, default and the help text ``field_help`` reads (the
text ``turngym train <trainer> --help`` prints), so the site never drifts from the code.
A line ``<!-- trainer-configs -->`` becomes a section per row of ``TRAINERS`` (its
config's docstring and table), ``<!-- trainer-classes -->`` one per trainer class, so a
new trainer needs no page edit. A field without
help, or a class that cannot be found, fails the build.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import typing
from typing import Any

from mkdocs.exceptions import PluginError

MARKER = re.compile(r"^<!-- config-table: (?P<target>[\w.]+) -->$", re.M)
TRAINER_MARKER = re.compile(r"^<!-- trainer-configs -->$", re.M)
TRAINER_CLASSES = re.compile(r"^<!-- trainer-classes -->$", re.M)


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
    from turngym.sdk.trainers.config import field_help

    docs = field_help(cls)
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


def trainer_sections() -> str:
    """A section per trainer of ``TRAINERS``: its config's docstring, then its table."""
    from turngym.sdk.trainers import TRAINERS

    sections = []
    for row in TRAINERS.values():
        target = row.config.replace(":", ".")
        label = row.trainer_class().label
        sections.append(
            f"## {label}\n\n`turngym train {row.name}`: {row.help}.\n\n::: {target}\n"
            "    options:\n      members: false\n      show_signature: false\n\n"
            f"<!-- config-table: {target} -->\n"
        )
    return "\n".join(sections)


def trainer_class_sections() -> str:
    """A section per trainer of ``TRAINERS``: its class's reference."""
    from turngym.sdk.trainers import TRAINERS

    return "\n".join(
        f"## {row.trainer_class().label}\n\n::: {row.trainer.replace(':', '.')}\n"
        for row in TRAINERS.values()
    )


def expand_trainers(markdown: str) -> str:
    """The page with its trainer markers expanded (its config-table markers kept)."""
    markdown = TRAINER_MARKER.sub(lambda _: trainer_sections(), markdown)
    return TRAINER_CLASSES.sub(lambda _: trainer_class_sections(), markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs event: expand the trainer markers, then each config-table marker."""
    markdown = expand_trainers(markdown)
    return MARKER.sub(lambda m: config_table(m["target"]), markdown)

"""Griffe extension for the API reference: turngym's doctests render as code.

turngym's docstrings title their doctests ``Example:`` (as Napoleon allows) or leave them
in the text; griffe's Google parser only reads ``Examples:`` sections as code and would
render other ``>>>`` lines as Markdown quotes (where ``[a]\\n[b]`` even reads as a
broken link). Before a docstring is parsed, ``Example:`` becomes ``Examples:`` and a
doctest in the text (at the docstring's own indent) becomes a fenced ``pycon`` block.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

_EXAMPLE_TITLE = re.compile(r"^(?P<indent>[ \t]*)Example:[ \t]*$", re.M)
# A doctest at column 0: its ``>>>`` lines and their outputs, up to a blank line.
_TEXT_DOCTEST = re.compile(r"^>>> .*(?:\n(?![ \t]*$).*)*", re.M)


def render_doctests(text: str) -> str:
    """``text`` (a cleaned docstring) with its doctests made readable as code."""
    text = _EXAMPLE_TITLE.sub(r"\g<indent>Examples:", text)
    return _TEXT_DOCTEST.sub(lambda m: f"```pycon\n{m[0]}\n```", text)


class ExampleSections(Extension):
    """Make each docstring's doctests render as code (see the module docstring)."""

    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        """Griffe event: an object was built; fix its docstring before it is parsed."""
        if obj.docstring is not None:
            obj.docstring.value = render_doctests(obj.docstring.value)

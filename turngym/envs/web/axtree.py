"""The page as text: Chromium's accessibility tree with a stable ``[N]`` id per element.

``AXText.render(nodes)`` takes the node list of one CDP ``Accessibility.getFullAXTree``
call and writes one line per meaningful node, indented by depth::

    RootWebArea 'Shop'
      [1] link 'Home'
      heading 'Results'
      [2] searchbox 'Search' value='red shoes'
      [3] button 'Search'
      StaticText '$12.99'

Nodes Chromium marks ignored, and unnamed ``generic``/``none`` containers, are left out
and their children lifted, and a text that repeats its parent's name is dropped, so the
tree reads like the page. Every element line carries an id. Ids are numbered in document
order the first time an element is seen and kept while the document lives, so an id in
one observation still names the same element in the next; a new document (a navigation)
numbers again from 1, which keeps episodes deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["ACTIONABLE_ROLES", "AXText", "find_id"]

_SKIP_ROLES = frozenset({"none", "generic", "LineBreak", "LayoutTable", "MenuListPopup"})
_DROP_ROLES = frozenset({"InlineTextBox"})  # with their children: StaticText says it already
_TEXT_ROLES = frozenset({"StaticText"})
_STATES = ("checked", "selected", "expanded", "pressed", "disabled", "required", "focused")
ACTIONABLE_ROLES = frozenset(
    {
        "link", "button", "ToggleButton", "PopUpButton", "DisclosureTriangle",
        "textbox", "searchbox", "TextField", "combobox", "listbox", "option",
        "MenuListOption", "ListBoxOption", "checkbox", "radio", "switch", "slider",
        "spinbutton", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "treeitem",
        "ColorWell", "Date", "DateTime", "InputTime",
    }
)  # fmt: skip
"""Roles of the elements ``click``/``fill``/``select`` are for; set-of-marks boxes
these and elements with a click handler, not containers (navigation, paragraph, list)."""
MAX_TEXT_CHARS = 200
"""A longer name or value is cut (with its length) so one huge text cannot flood the page."""


def _value(field: Mapping[str, Any] | None) -> Any:
    return None if not field else field.get("value")


def _quote(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > MAX_TEXT_CHARS:
        text = f"{text[: MAX_TEXT_CHARS - 3]}... ({len(text)} chars)"
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


class AXText:
    """Renders accessibility trees as text and remembers the ids of one document's elements.

    Example:
        >>> nodes = [
        ...     {"nodeId": "1", "role": {"value": "RootWebArea"}, "name": {"value": "Shop"},
        ...      "childIds": ["2", "3"], "backendDOMNodeId": 1},
        ...     {"nodeId": "2", "role": {"value": "button"}, "name": {"value": "Buy"},
        ...      "childIds": ["4"], "backendDOMNodeId": 7},
        ...     {"nodeId": "4", "role": {"value": "StaticText"}, "name": {"value": "Buy"},
        ...      "childIds": [], "backendDOMNodeId": 8},
        ...     {"nodeId": "3", "role": {"value": "StaticText"}, "name": {"value": "$5"},
        ...      "childIds": [], "backendDOMNodeId": 9},
        ... ]
        >>> ax = AXText()
        >>> print(ax.render(nodes))
        RootWebArea 'Shop'
          [1] button 'Buy'
          StaticText '$5'
        >>> ax.backend_id(1)
        7

    """

    def __init__(self) -> None:
        self._document: int | None = None
        self._ids: dict[int, int] = {}  # backend node id -> our id
        self._backend: dict[int, int] = {}  # our id -> backend node id
        self._roles: dict[int, str] = {}  # our id -> its role when last shown
        self._shown: set[int] = set()

    def reset(self) -> None:
        """Forget every id (a new page, a new episode)."""
        self._document = None
        self._ids.clear()
        self._backend.clear()
        self._roles.clear()
        self._shown.clear()

    def backend_id(self, element_id: int) -> int | None:
        """The CDP backend node id of ``[element_id]`` in the last observation, or None."""
        return self._backend.get(element_id) if element_id in self._shown else None

    def role(self, element_id: int) -> str | None:
        """The role ``[element_id]`` had in the last observation, or None."""
        return self._roles.get(element_id) if element_id in self._shown else None

    @property
    def shown_ids(self) -> frozenset[int]:
        """The ids the last rendered tree showed."""
        return frozenset(self._shown)

    def render(self, nodes: Iterable[Mapping[str, Any]]) -> str:
        """The text of one ``Accessibility.getFullAXTree`` node list (ids kept per document)."""
        by_id = {str(n["nodeId"]): n for n in nodes}
        children = {str(c) for n in by_id.values() for c in n.get("childIds", ())}
        roots = [n for key, n in by_id.items() if key not in children]
        if not roots:
            return ""
        document = roots[0].get("backendDOMNodeId")
        if document != self._document:
            self.reset()
            self._document = document
        self._shown = set()
        lines: list[str] = []
        # An explicit stack, not recursion: a page may nest deeper than Python's stack.
        stack: list[tuple[Mapping[str, Any], int, str]] = [(r, 0, "") for r in reversed(roots)]
        while stack:
            node, depth, parent_name = stack.pop()
            role = str(_value(node.get("role")) or "")
            if role in _DROP_ROLES:
                continue
            name = str(_value(node.get("name")) or "").strip()
            shown = not node.get("ignored") and not (role in _SKIP_ROLES and not name)
            if shown and role in _TEXT_ROLES and (not name or name == parent_name):
                shown = False
            if shown:
                lines.append("  " * depth + self._line(node, role, name))
                depth, parent_name = depth + 1, name
            kids = [by_id.get(str(c)) for c in node.get("childIds", ())]
            stack.extend((k, depth, parent_name) for k in reversed(kids) if k is not None)
        return "\n".join(lines)

    def _line(self, node: Mapping[str, Any], role: str, name: str) -> str:
        parts = []
        backend = node.get("backendDOMNodeId")
        if role not in _TEXT_ROLES and role != "RootWebArea" and isinstance(backend, int):
            element_id = self._ids.get(backend)
            if element_id is None:
                element_id = self._ids[backend] = len(self._ids) + 1
                self._backend[element_id] = backend
            self._shown.add(element_id)
            self._roles[element_id] = role
            parts.append(f"[{element_id}]")
        parts.append(role)
        if name:
            parts.append(_quote(name))
        value = _value(node.get("value"))
        if value not in (None, "") and str(value).strip() != name:
            parts.append(f"value={_quote(str(value))}")
        for prop in node.get("properties", ()):
            key = prop.get("name")
            if key in _STATES:
                state = _value(prop.get("value"))
                if state in (True, "true", "mixed"):
                    parts.append(f"{key}=mixed" if state == "mixed" else key)
        return " ".join(parts)


_LINE = re.compile(r"^\s*\[(\d+)\] (\S+)(?: '((?:[^'\\]|\\.)*)')?")


def find_id(page: str, role: str, name: str) -> int | None:
    r"""The id of the first element of ``role`` named ``name`` in a rendered page, or None.

    Names compare with runs of whitespace collapsed (as ``AXText`` writes them).

    >>> find_id("[1] link 'Home'\n  [2] button 'Buy  now'", "button", "Buy now")
    2
    """
    wanted = " ".join(name.split())
    for line in page.splitlines():
        match = _LINE.match(line)
        if match is None or match.group(2) != role:
            continue
        shown = " ".join(re.sub(r"\\(.)", r"\1", match.group(3) or "").split())
        if shown == wanted or (shown.endswith(" chars)") and wanted.startswith(shown[:50])):
            return int(match.group(1))
    return None

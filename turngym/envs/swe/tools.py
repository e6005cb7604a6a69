"""The SWE agent's tools: function-call actions on the episode's workspace.

An agent writes one call per turn, e.g. ``bash("ls")``, ``view("calc/ops.py", 10, 30)``
or ``str_replace("calc/ops.py", "i < n", "i <= n")`` (Python call syntax with literal
arguments, parsed by ``turngym.calls``, never evaluated), or the same as a JSON tool
call ``{"name": "bash", "arguments": {"command": "ls"}}``; ``TOOL_SCHEMAS`` describes the
tools in the JSON-schema form function-calling models and servers take.

``bash`` (stateless per call, like mini-swe-agent), ``search`` and ``run_tests`` run in
the sandbox. The file tools (``view``, ``create``, ``str_replace``, ``insert``,
``undo_edit``, ``find_file``) work on the workspace folder directly, for speed, through
``turngym.host.confined.Folder``: no link is followed, only regular files are read or
written, reads are bounded and an edit replaces its file atomically. ``submit`` is the
env's (it ends the episode). Paths may be given relative to the repository root or
absolute under the sandbox's view of it (``/testbed/...``).
"""

from __future__ import annotations

import fnmatch
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from turngym.calls import REQUIRED, Kind, Param, usage
from turngym.host.confined import Folder, FolderFull, PathRefused
from turngym.host.sandbox import ExecResult, Sandbox

__all__ = ["TOOLS", "TOOL_SCHEMAS", "ToolError", "Toolbox", "tool_help"]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _line(value: object) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None  # type: ignore[return-value]


_TEXT = Kind("string", _text, " in quotes")
_LINE = Kind("line number", _line, " (an integer >= 0)")

TOOLS: dict[str, tuple[Param, ...]] = {
    "bash": (Param("command", _TEXT),),
    "view": (Param("path", _TEXT), Param("start", _LINE, None), Param("end", _LINE, None)),
    "create": (Param("path", _TEXT), Param("text", _TEXT)),
    "str_replace": (Param("path", _TEXT), Param("old", _TEXT), Param("new", _TEXT)),
    "insert": (Param("path", _TEXT), Param("line", _LINE), Param("text", _TEXT)),
    "undo_edit": (Param("path", _TEXT),),
    "find_file": (Param("name", _TEXT), Param("path", _TEXT, ".")),
    "search": (Param("pattern", _TEXT), Param("path", _TEXT, ".")),
    "run_tests": (Param("selection", _TEXT, ""),),
    "submit": (),
}
"""Each tool's parameters, in order (``start``/``end``/``path``/``selection`` optional)."""

_DOCS: dict[str, tuple[str, dict[str, str]]] = {
    "bash": (
        "Run a bash command in the repository root (a fresh shell each call; no network).",
        {"command": "the command line"},
    ),
    "view": (
        "Show a file with line numbers (optionally lines start..end), or list a directory.",
        {"path": "file or directory", "start": "first line (1-based)", "end": "last line"},
    ),
    "create": (
        "Create a file with this text, or overwrite it.",
        {"path": "the file", "text": "its whole new content"},
    ),
    "str_replace": (
        "Replace the one occurrence of `old` in a file by `new` (old must be unique).",
        {"path": "the file", "old": "exact text to replace", "new": "the replacement"},
    ),
    "insert": (
        "Insert text after a line (0 inserts at the top).",
        {"path": "the file", "line": "the line to insert after", "text": "the text"},
    ),
    "undo_edit": ("Undo the last create/str_replace/insert on a file.", {"path": "the file"}),
    "find_file": (
        "Find files whose name matches a glob pattern (e.g. '*.py', 'test_*').",
        {"name": "the name or glob", "path": "where to look (default: everywhere)"},
    ),
    "search": (
        "Search file contents for an extended regular expression (grep -E).",
        {"pattern": "the expression", "path": "file or directory (default: everywhere)"},
    ),
    "run_tests": (
        "Run the repository's tests, or a selection such as 'tests/test_x.py::test_y'.",
        {"selection": "test files or ids separated by spaces (default: all)"},
    ),
    "submit": ("Submit the current state of the repository as your fix (ends the task).", {}),
}

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": _DOCS[name][0],
            "parameters": {
                "type": "object",
                "properties": {
                    p.name: {
                        "type": "integer" if p.kind is _LINE else "string",
                        "description": _DOCS[name][1][p.name],
                    }
                    for p in params
                },
                "required": [p.name for p in params if p.default is REQUIRED],
            },
        },
    }
    for name, params in TOOLS.items()
]
"""The tools as OpenAI-style function schemas (``tools=`` of a chat completion request)."""


def tool_help(tools: Mapping[str, Sequence[Param]] = TOOLS) -> str:
    """One line per tool: its call form and what it does."""
    return "\n".join(f"- {usage(n, p)}: {_DOCS[n][0]}" for n, p in tools.items())


class ToolError(Exception):
    """A tool could not do what was asked (a missing file, an ambiguous replace...)."""


@dataclass
class _Edit:
    path: str  # relative to the repository root
    before: str | None  # None: the file did not exist


class Toolbox:
    """Runs tool calls on one workspace folder through one sandbox.

    The file tools go through `turngym.host.confined.Folder`: no link is ever followed
    (not even one inside the repository), only regular files are read or written,
    reads are bounded and writes atomic. What they refuse raises
    `~turngym.host.confined.PathRefused` (the env makes it an invalid action).

    Args:
        root: the workspace folder on this machine (the repository root).
        sandbox: the sandbox bound to ``root``.
        test_cmd: the command ``run_tests`` runs (selection appended).
        max_lines: how many lines ``view`` shows without a range.
        max_chars: the longest observation text (the rest is cut with a note).
        max_file_bytes: the largest file the file tools read.

    """

    def __init__(
        self,
        root: Path,
        sandbox: Sandbox,
        *,
        test_cmd: str,
        max_lines: int = 400,
        max_chars: int = 16_000,
        max_file_bytes: int = 4_000_000,
    ) -> None:
        self.root = Path(root).resolve()
        self.folder = Folder(self.root, read_limit=max_file_bytes)
        self.sandbox = sandbox
        self.test_cmd = test_cmd
        self.max_lines = max_lines
        self.max_chars = max_chars
        self._edits: list[_Edit] = []

    def reset(self, test_cmd: str | None = None) -> None:
        """Forget the edit history (a new episode), optionally with a new test command."""
        self._edits.clear()
        if test_cmd is not None:
            self.test_cmd = test_cmd

    def call(self, name: str, args: Mapping[str, Any]) -> str:
        """The observation of one tool call (``submit`` is not a toolbox call).

        Raises:
            ToolError: the call cannot be done (the message says why).
            PathRefused: a path the host will not touch (a link, a FIFO, a huge file).

        """
        method = getattr(self, f"_{name}", None)
        if name == "submit" or method is None:
            raise ToolError(f"{name} is not a toolbox tool")
        return self._cut(method(**args))

    # -- tools that run in the sandbox -------------------------------------------------

    def _bash(self, command: str) -> str:
        if not command.strip():
            raise ToolError("the command is empty")
        return _shown(self.sandbox.run(command))

    def _search(self, pattern: str, path: str) -> str:
        if not pattern:
            raise ToolError("the pattern is empty")
        where = self._inside(path)
        command = (
            "grep -rnIE --exclude-dir=.git -e "
            f"{shlex.quote(pattern)} -- {shlex.quote(self._sandbox_path(where))} | head -n 201"
        )
        result = self.sandbox.run(command)
        lines = result.output.splitlines()
        if not lines:
            return f"No match for {pattern!r}."
        more = (
            "\n(more than 200 matches; narrow the pattern or the path)" if len(lines) > 200 else ""
        )
        return "\n".join(lines[:200]) + more

    def _run_tests(self, selection: str) -> str:
        try:
            chosen = " ".join(shlex.quote(s) for s in shlex.split(selection))
        except ValueError as exc:
            raise ToolError(f"cannot read the selection: {exc}") from None
        result = self.sandbox.run(
            f"{self.test_cmd} {chosen}".strip(), env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        )
        return _shown(result)

    # -- tools on the workspace folder -------------------------------------------------

    def _view(self, path: str, start: int | None, end: int | None) -> str:
        target = self._inside(path)
        if self._kind(target) == "dir":
            return self._listing(target)
        lines = self._read(target).splitlines()
        first = max(1, start or 1)
        last = min(len(lines), end if end is not None else first + self.max_lines - 1)
        if first > max(len(lines), 1):
            raise ToolError(f"{path} has {len(lines)} lines; start {first} is past the end")
        shown = "\n".join(f"{n:6}\t{lines[n - 1]}" for n in range(first, last + 1))
        rest = ""
        if last < len(lines):
            rest = f"\n({len(lines) - last} more lines; view({path!r}, {last + 1}) shows them)"
        return (shown or "(empty file)") + rest

    def _create(self, path: str, text: str) -> str:
        target = self._inside(path)
        kind = self.folder.kind(target) if target != "." else "dir"
        if kind == "dir":
            raise ToolError(f"{path} is a directory")
        before = self._read(target) if kind is not None else None
        self._write(target, text, make_parents=True)
        self._edits.append(_Edit(target, before))
        verb = "Overwrote" if before is not None else "Created"
        return f"{verb} {target} ({len(text.splitlines())} lines)."

    def _str_replace(self, path: str, old: str, new: str) -> str:
        target = self._inside(path)
        text = self._read(target)
        if not old:
            raise ToolError("old is empty; give the exact text to replace")
        count = text.count(old)
        if count == 0:
            raise ToolError(
                f"old does not occur in {path}; view the file and copy the text exactly"
            )
        if count > 1:
            lines = dict.fromkeys(text[:i].count("\n") + 1 for i in _occurrences(text, old))
            raise ToolError(
                f"old occurs {count} times in {path} (lines {', '.join(map(str, lines))}); "
                "include more context so it is unique"
            )
        at = text.index(old)
        after = text.replace(old, new, 1)
        self._write(target, after)
        self._edits.append(_Edit(target, text))
        line = text[:at].count("\n") + 1
        return f"Edited {target}:\n{_snippet(after, line, new)}"

    def _insert(self, path: str, line: int, text: str) -> str:
        target = self._inside(path)
        before = self._read(target)
        lines = before.splitlines(keepends=True)
        if line > len(lines):
            raise ToolError(f"{path} has {len(lines)} lines; insert after 0..{len(lines)}")
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        added = text if text.endswith("\n") else text + "\n"
        after = "".join([*lines[:line], added, *lines[line:]])
        self._write(target, after)
        self._edits.append(_Edit(target, before))
        return f"Inserted into {target}:\n{_snippet(after, line + 1, added)}"

    def _undo_edit(self, path: str) -> str:
        target = self._inside(path)
        for i in range(len(self._edits) - 1, -1, -1):
            if self._edits[i].path == target:
                edit = self._edits.pop(i)
                if edit.before is None:
                    self.folder.remove(target)
                    return f"Undid the creation of {target}."
                self._write(target, edit.before)
                return f"Undid the last edit of {target}."
        raise ToolError(f"no edit of {path} to undo")

    def _find_file(self, name: str, path: str) -> str:
        if not name:
            raise ToolError("the name is empty")
        where = self._inside(path)
        if self._kind(where) != "dir":
            raise ToolError(f"{path} is not a directory")
        found = []
        for folder, dirs, files in self.folder.walk(where):  # never through a link
            dirs[:] = sorted(d for d in dirs if d != ".git")
            found += [_join(folder, f) for f in sorted(files) if fnmatch.fnmatch(f, name)]
            if len(found) > 200:
                break
        if not found:
            return f"No file named {name!r}."
        shown = "\n".join(found[:200])
        return shown + ("\n(more than 200 files; narrow the name)" if len(found) > 200 else "")

    # -- helpers -------------------------------------------------------------------------

    def _inside(self, path: str) -> str:
        """``path`` relative to the repository root ("." for the root), checked lexically.

        Whether a link is on the way is for `Folder` to refuse when the path is used.
        """
        if not path or "\0" in path:
            raise ToolError("the path is empty or invalid")
        workdir = self.sandbox.workdir.rstrip("/")
        if path == workdir or path.startswith(workdir + "/"):
            path = path[len(workdir) :].lstrip("/") or "."
        elif path.startswith("/") and not path.startswith(str(self.root)):
            raise ToolError(f"{path} is outside the repository ({workdir})")
        try:
            parts = self.folder.parts(path)
        except PathRefused as refused:
            raise ToolError(f"{path} leads outside the repository") from refused
        return "/".join(parts) or "."

    def _kind(self, target: str) -> str:
        kind = self.folder.kind(target)
        if kind is None:
            raise ToolError(f"{target} does not exist")
        return kind

    def _read(self, target: str) -> str:
        if self._kind(target) == "dir":
            raise ToolError(f"{target} is a directory")
        data = self.folder.read_bytes(target)
        if b"\0" in data[:8192]:
            raise ToolError(f"{target} is a binary file")
        return data.decode("utf-8", errors="replace")

    def _write(self, target: str, text: str, *, make_parents: bool = False) -> None:
        """Write a file within the workspace's disk quota (the sandbox's ``disk``)."""
        disk = getattr(self.sandbox, "disk", None)
        if disk is not None and not disk.hard:  # a measured quota: measure before writing
            found = self.folder.stat(target)
            old = found.st_blocks * 512 if found is not None else 0
            used = disk.used()
            if used - old + len(text.encode("utf-8", "replace")) > disk.limit:
                raise ToolError(_full(used, disk.limit))
        try:
            self.folder.write_text(target, text, make_parents=make_parents)
        except FolderFull:
            limit = disk.limit if disk is not None else 0
            raise ToolError(_full(disk.used() if disk is not None else 0, limit)) from None

    def _sandbox_path(self, target: str) -> str:
        workdir = self.sandbox.workdir.rstrip("/")
        return workdir if target == "." else f"{workdir}/{target}"

    def _listing(self, folder: str) -> str:
        entries = []
        for name, kind in self.folder.listdir(folder):
            if name == ".git":
                continue
            path = _join(folder, name)
            entries.append(path + _MARK.get(kind, ""))
            if kind == "dir":
                entries += [
                    "  " + _join(path, child) + _MARK.get(child_kind, "")
                    for child, child_kind in self.folder.listdir(path)
                    if child != "__pycache__"
                ]
        return "\n".join(entries) or "(empty directory)"

    def _cut(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        half = self.max_chars // 2
        cut = len(text) - 2 * half
        return f"{text[:half]}\n... ({cut} characters cut) ...\n{text[-half:]}"


_MARK = {"dir": "/", "link": "@", "other": "|"}  # as ``ls -F`` marks them


def _full(used: int, limit: int) -> str:
    quota = f" of its disk quota of {limit / 2**20:.0f} MB" if limit else ""
    return f"the workspace is full ({used / 2**20:.0f} MB used{quota}); delete files to go on"


def _join(folder: str, name: str) -> str:
    return name if folder == "." else f"{folder}/{name}"


def _snippet(text: str, line: int, new: str) -> str:
    lines = text.splitlines()
    first = max(1, line - 3)
    last = min(len(lines), line + new.count("\n") + 3)
    return "\n".join(f"{n:6}\t{lines[n - 1]}" for n in range(first, last + 1))


def _occurrences(text: str, part: str) -> Sequence[int]:
    found, at = [], text.find(part)
    while at != -1:
        found.append(at)
        at = text.find(part, at + 1)
    return found


def _shown(result: ExecResult) -> str:
    """A sandbox result as the agent sees it: output, then the exit status."""
    notes = []
    if result.timed_out:
        notes.append("(the command ran out of time and was stopped)")
    notes.append(f"(exit code {result.returncode})")
    output = result.output.rstrip("\n")
    return f"{output}\n{' '.join(notes)}" if output else " ".join(notes)

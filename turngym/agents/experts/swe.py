"""The scripted expert of the SWE envs: it applies the task's reference patch through the tools.

``SWEOracle`` reads the task's ``patch`` (privileged: the reference fix), turns every
hunk into the tool call a developer would make (``str_replace`` of the hunk's old lines
by its new lines, ``create`` for a new file, ``bash("rm ...")`` for a deleted one) and
then calls ``submit()``. So every bundled task is shown solvable end to end through the
same text interface, sandbox and grading an agent meets.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.swe.env import SWEEnv

__all__ = ["FilePatch", "SWEOracle", "patch_actions", "split_patch"]

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


@dataclass
class FilePatch:
    """One file's part of a unified diff: its paths and hunks as (old, new) texts."""

    old_path: str | None  # None: the file is new
    new_path: str | None  # None: the file is deleted
    hunks: list[tuple[str, str]] = field(default_factory=list)


def split_patch(patch: str) -> list[FilePatch]:
    r"""The files of a ``git diff`` patch, each with its hunks' old and new texts.

    >>> diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n"
    >>> split_patch(diff)[0].hunks
    [('a = 1\nb = 2\n', 'a = 1\nb = 3\n')]
    """
    files: list[FilePatch] = []
    old: list[str] | None = None
    new: list[str] = []
    lines = patch.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            files.append(FilePatch(_path(line[4:]), _path(lines[i + 1][4:])))
            old = None
        elif _HUNK.match(line) and files:
            old, new = [], []
            files[-1].hunks.append(("", ""))
        elif old is not None and line[:1] in (" ", "-", "+"):
            if line[0] in " -":
                old.append(line[1:])
            if line[0] in " +":
                new.append(line[1:])
            files[-1].hunks[-1] = ("".join(old), "".join(new))
        elif old is not None and line.startswith("\\"):  # "\ No newline at end of file"
            last = files[-1].hunks[-1]
            files[-1].hunks[-1] = (last[0].removesuffix("\n"), last[1].removesuffix("\n"))
    return files


def _path(text: str) -> str | None:
    name = text.strip().split("\t")[0]
    return None if name == "/dev/null" else name.split("/", 1)[1]


def patch_actions(patch: str) -> list[str]:
    """The tool calls that apply ``patch`` to a workspace, in order (no ``submit``)."""
    actions = []
    for part in split_patch(patch):
        if part.new_path is None and part.old_path is not None:
            actions.append(f"bash({json.dumps('rm -- ' + shlex.quote(part.old_path))})")
        elif part.old_path is None and part.new_path is not None:
            text = "".join(new for _, new in part.hunks)
            actions.append(f"create({json.dumps(part.new_path)}, {json.dumps(text)})")
        elif part.new_path is not None:
            for old, new in part.hunks:
                args = ", ".join(json.dumps(s) for s in (part.new_path, old, new))
                actions.append(f"str_replace({args})")
    return actions


class SWEOracle(BaseAgent):
    """Applies the current task's reference patch with the tools, then submits.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/SWE-Lite-v0")  # doctest: +SKIP
        >>> oracle = SWEOracle(env)  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)  # doctest: +SKIP
        >>> oracle.act(obs, info)  # doctest: +SKIP
        'str_replace("ledger/book.py", ...)'

    """

    def __init__(self, env: gym.Env) -> None:
        self._env = unwrap(env, SWEEnv, "SWEOracle")
        self._plan: list[str] = []
        self._task: str | None = None

    def reset(self, seed: int | None = None) -> None:
        """Forget the plan (also done when a new episode starts)."""
        self._plan, self._task = [], None

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next tool call of the reference patch, then ``submit()``."""
        task = self._env.task
        if task is None:
            return "submit()"
        if info.get("turn") == 0 or self._task != task.instance_id:
            self._plan = [*patch_actions(task.patch), "submit()"]
            self._task = task.instance_id
        return self._plan.pop(0) if self._plan else "submit()"

"""``SWE-v0`` / ``SWE-Lite-v0``: fix a bug in a real repository with tools, graded by its tests.

Each episode the agent gets a fresh copy of a task's repository at its base commit and
the user's bug report. It acts with tool calls (``tools.TOOLS``: ``bash``, ``view``,
``str_replace``, ``run_tests``, ...) inside a sandbox (bubblewrap by default, Docker
when a task has an image and an engine answers; never the bare host unless asked for
with ``sandbox="local"``, which warns every episode) and ends with ``submit()``. The
submission is the diff of the workspace against the base commit, graded as SWE-bench
does (``grading.grade``): reward 1.0 when it resolves the task, else 0.0, with
``reward_parts`` (``f2p``, ``p2p``, ``applies``, ``submitted``) for shaped or gated
rewards; ``info["grade_problem"]`` says in one line why no test ran (e.g. the hidden
tests' patch does not apply), "" when they ran. As in SWE-bench, the files the hidden
tests touch are put back at the base commit before they are applied, so tests the agent
added to them never keep the hidden ones out. An episode that runs out of turns is
truncated without a grade (reward 0, ``submitted`` 0).

The tasks: the bundled set (``tasks.bundled_tasks``; ``SWE-Lite-v0`` is its five
easiest), or any list of ``SWETask`` (e.g. ``tasks.load_jsonl`` of SWE-bench / SWE-Gym
files). ``task=`` fixes one; otherwise each reset draws one from the env's RNG, and
``reset(options={"task": id})`` picks one.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import subprocess
import warnings
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from turngym.calls import parse_call
from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.cache import cache_dir
from turngym.envs.swe.grading import PLUGIN_DIR, Grade, grade
from turngym.envs.swe.tasks import SWETask, bundled_tasks, find_task, lite_tasks
from turngym.envs.swe.tools import TOOLS, Toolbox, ToolError, tool_help
from turngym.envs.swe.workspace import Base, Workspace, prepare
from turngym.extras import require_installed
from turngym.host import reaper
from turngym.host.confined import Folder, PathRefused
from turngym.host.sandbox import (
    Limits,
    Sandbox,
    bwrap_available,
    docker_available,
    make_sandbox,
    no_sandbox_message,
)

__all__ = ["SWEEnv", "SWELiteEnv"]

log = logging.getLogger(__name__)

_MAX_PATCH = 5_000_000
_MAX_ACTION = 200_000  # a create() may carry a whole file

Call = tuple[str, dict[str, Any]]


class SWEEnv(TextEnv[Call]):
    """Repository bug-fixing with tools in a sandbox (SWE-bench format and grading).

    Args:
        task: instance id of the one task to play (default: drawn per reset).
        tasks: the task set: a sequence of ``SWETask``, ``"bundled"`` or ``"lite"``.
        sandbox: ``"auto"`` (Docker for image tasks when an engine answers, else
            bubblewrap; refused, naming the fix, where neither can run), ``"bwrap"``,
            ``"docker"`` or ``"local"`` (no isolation, for trusted code only: it warns at
            every reset).
        limits: per-call sandbox limits (time, memory, processes, output).
        python: the interpreter the repository's tests run with, prepared once (e.g. a
            venv with the repo's dependencies); default: the running one.
        tools: the tools offered (default: all of ``tools.TOOLS``; e.g. ``("bash",
            "submit")`` for a bash-only agent). ``submit`` is always offered.
        max_turns: tool calls before the episode is truncated.
        invalid_action_penalty, max_invalid_actions, render_mode: as ``TextEnv``.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/SWE-Lite-v0")  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)  # doctest: +SKIP
        >>> obs, reward, terminated, truncated, info = env.step('bash("ls")')  # doctest: +SKIP

    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012
    max_action_length = _MAX_ACTION

    def __init__(
        self,
        task: str | None = None,
        *,
        tasks: Sequence[SWETask] | str = "bundled",
        sandbox: str = "auto",
        limits: Limits | None = None,
        python: str | Path | None = None,
        tools: Sequence[str] | None = None,
        max_turns: int = 40,
        invalid_action_penalty: float = 0.0,
        max_invalid_actions: int | None = 10,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            invalid_action_penalty=invalid_action_penalty,
            max_invalid_actions=max_invalid_actions,
            render_mode=render_mode,
        )
        self.tasks = _task_set(tasks)
        self.fixed = find_task(self.tasks, task) if task is not None else None
        if sandbox not in ("auto", "bwrap", "docker", "local"):
            raise ValueError(f"sandbox must be auto, bwrap, docker or local, got {sandbox!r}")
        if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
        offered = list(TOOLS) if tools is None else [*dict.fromkeys([*tools, "submit"])]
        unknown = [name for name in offered if name not in TOOLS]
        if unknown or isinstance(tools, str):
            raise ValueError(f"tools must be names among {', '.join(TOOLS)}; got {tools!r}")
        self.tools = {name: TOOLS[name] for name in offered}
        self.sandbox_kind = sandbox
        self.python = Path(python) if python is not None else None
        if self.python is not None and not self.python.is_file():
            raise ValueError(f"python={str(python)!r} is not a file; give an interpreter's path")
        if sandbox == "bwrap" or (sandbox == "auto" and not _docker_for_all(self.tasks)):
            ok, why = bwrap_available()
            if not ok:  # fail at once, not at the first reset; "auto" never runs unsandboxed
                raise RuntimeError(
                    no_sandbox_message(why, what=f"sandbox={sandbox!r} cannot run here")
                )
        if sandbox != "docker" and not all(t.image for t in self.tasks):
            _check_pytest(self.python)
        self.limits = limits or Limits()
        self.max_turns = max_turns
        self.task: SWETask | None = None
        self.last_grade: Grade | None = None
        # Removed when this process ends, even SIGKILLed (quota mounts included).
        self._root = reaper.temp_dir("turngym-swe-")
        self._work = Workspace(self._root / "work", quota_mb=self.limits.disk_mb)
        self._judge = Workspace(self._root / "grade", quota_mb=self.limits.disk_mb)
        self._bases: dict[str, Base] = {}
        self._sandboxes: dict[tuple[str, str | None], Sandbox] = {}
        self._toolbox: Toolbox | None = None
        self._last = ""
        self._cleanup = weakref.finalize(self, _remove, self._root, self._sandboxes)

    # -- episode -------------------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        chosen = options.get("task")
        if chosen is not None:
            self.task = find_task(self.tasks, str(chosen))
        elif self.fixed is not None:
            self.task = self.fixed
        else:
            self.task = self.tasks[int(self.np_random.integers(len(self.tasks)))]
        base = self._base(self.task)
        self._work.reset(base)
        sandbox = self._sandbox(self._work, self.task)
        if not sandbox.isolated:  # said every episode, not once: it is a choice, not a default
            message = (
                f"SWEEnv: sandbox={self.sandbox_kind!r}: the agent's commands of this episode "
                f"({self.task.instance_id}) run UNSANDBOXED on this host, with its files and "
                "network; use sandbox='bwrap' (apt-get install bubblewrap) unless the code "
                "is trusted"
            )
            warnings.warn(message, RuntimeWarning, stacklevel=3)
            log.warning(message)
        if self._toolbox is None or self._toolbox.sandbox is not sandbox:
            self._toolbox = Toolbox(self._work.root, sandbox, test_cmd=self.task.test_cmd)
        self._toolbox.reset(self.task.test_cmd)
        self.last_grade = None
        self.instruction = self._intro(self.task, sandbox)
        self._last = self.instruction
        return self.instruction

    def _parse(self, action: str) -> Call | Invalid:
        parsed = parse_call(action, self.tools, max_chars=_MAX_ACTION, json_calls=True)
        if isinstance(parsed, Invalid):
            return parsed
        for param, value in parsed[1].items():
            if isinstance(value, str) and ("\0" in value or not _encodable(value)):
                what = "a NUL byte" if "\0" in value else "text that is not valid UTF-8"
                return Invalid(f"{parsed[0]}: {param} holds {what} (a lone surrogate?)")
        return parsed

    def _apply(self, action: Call) -> Outcome | Invalid:
        name, args = action
        assert self.task is not None and self._toolbox is not None
        if name == "submit":
            return self._submit()
        try:
            self._last = self._toolbox.call(name, args)
            return Outcome(self._last, info={"tool": name, "tool_error": False})
        except ToolError as error:
            self._last = f"Error: {error}"
            return Outcome(self._last, info={"tool": name, "tool_error": True})
        except PathRefused as refused:
            return Invalid(f"{name}: {refused}")

    def _submit(self) -> Outcome:
        assert self.task is not None and self._toolbox is not None
        patch, problem = self._diff()
        task = self.task
        judge = self._sandbox(self._judge, task)
        if problem is None:
            result = grade(task, patch, self._base(task), self._judge, judge)
        else:
            parts = {"f2p": 0.0, "p2p": 0.0, "applies": 0.0, "submitted": 1.0}
            result = Grade(False, False, reward_parts=parts, log=problem, problem=problem)
        self.last_grade = result
        f2p = sum(result.tests.get(t) == "PASSED" for t in task.fail_to_pass)
        p2p = sum(result.tests.get(t) == "PASSED" for t in task.pass_to_pass)
        verdict = "resolved" if result.resolved else "not resolved"
        if result.applied and result.problem:
            # No test ran: counting them "not fixed" would blame the fix for it.
            self._last = f"Submitted: {verdict}. Patch applies, but {result.problem}; no test ran."
        else:
            self._last = (
                f"Submitted: {verdict}. Patch {'applies' if result.applied else 'does not apply'}; "
                f"failing tests fixed {f2p}/{len(task.fail_to_pass)}, "
                f"passing tests kept {p2p}/{len(task.pass_to_pass)}."
            )
        info = {
            "tool": "submit",
            "tool_error": False,
            "resolved": result.resolved,
            "grade_problem": result.problem,
            "reward_parts": dict(result.reward_parts),
            "tests": dict(result.tests),
            "reverted": list(result.reverted),
            "patch": patch,
            "grade_seconds": result.seconds,
        }
        reward = 1.0 if result.resolved else 0.0
        return Outcome(self._last, reward, terminated=True, success=result.resolved, info=info)

    def submission(self) -> tuple[str, bool]:
        """The workspace's diff against the base commit as (patch, whole).

        Computed inside the sandbox (the workspace's git metadata is the agent's); new
        files are included, files the tests leave behind (``__pycache__``) are not.
        ``whole`` is False when the patch is larger than 5 MB or could not be read.
        """
        patch, problem = self._diff()
        return patch, problem is None

    def _diff(self) -> tuple[str, str | None]:
        """(the patch, None) or ("", why it could not be had)."""
        assert self.task is not None and self._toolbox is not None
        base = self._base(self.task)
        git = "git -c safe.directory='*' -c core.hooksPath=/dev/null"
        # A fresh name each time: the agent cannot have put a FIFO or a link there.
        name = f".git/turngym-submission-{secrets.token_hex(8)}.patch"
        self._toolbox.sandbox.run(
            f"{git} add -A >/dev/null 2>&1; "
            f"{git} diff --cached --binary --no-color --no-ext-diff --no-textconv "
            f"{base.commit} > {name}"
        )
        folder = Folder(self._work.root)
        try:
            data = folder.read_bytes(name, _MAX_PATCH)
        except PathRefused as refused:
            return "", f"the submission could not be read: {refused}"
        finally:
            with contextlib.suppress(PathRefused):
                folder.remove(name)
        return data.decode("utf-8", errors="replace"), None

    def _turn_limit_reached(self) -> tuple[str, dict[str, Any]]:
        parts = {"f2p": 0.0, "p2p": 0.0, "applies": 0.0, "submitted": 0.0}
        message = f"Out of turns ({self.max_turns}) before submit(); the episode ends ungraded."
        return message, {"resolved": False, "reward_parts": parts}

    def _extra_info(self) -> dict[str, Any]:
        return {"task": self.task.instance_id} if self.task is not None else {}

    def _render(self) -> str:
        assert self.task is not None
        return f"[{self.task.instance_id}, turn {self._turn}]\n{self._last}"

    def close(self) -> None:
        """Stop the sandboxes and remove the workspaces."""
        self._cleanup()
        super().close()

    # -- plumbing ------------------------------------------------------------------------

    def _base(self, task: SWETask) -> Base:
        if task.instance_id not in self._bases:
            self._bases[task.instance_id] = prepare(task)
        return self._bases[task.instance_id]

    def _sandbox(self, workspace: Workspace, task: SWETask) -> Sandbox:
        image = task.image if task.source is None else None
        key = (str(workspace.root), image)
        if key not in self._sandboxes:
            # The workspaces borrow git objects from the prepared bases in the cache;
            # the grader's pytest plugin is shown to the grading sandbox only.
            (cache_dir() / "swe").mkdir(parents=True, exist_ok=True)
            extra = [cache_dir() / "swe"]
            if workspace is self._judge:
                extra.append(PLUGIN_DIR)
            self._sandboxes[key] = make_sandbox(
                workspace.root,
                kind=self.sandbox_kind,
                limits=self.limits,
                image=image,
                python=self.python,
                extra_ro=extra,
            )
        return self._sandboxes[key]

    def _intro(self, task: SWETask, sandbox: Sandbox) -> str:
        return (
            f"You are fixing an issue in the repository {task.repo}, checked out at "
            f"{sandbox.workdir}. Act with exactly one tool call per turn:\n"
            f"{tool_help(self.tools)}\n"
            "Reproduce the issue, fix the code (not the tests), run the tests, then "
            f"call submit(). You have {self.max_turns} turns.\n\n"
            f"<issue>\n{task.problem_statement}\n</issue>"
        )


class SWELiteEnv(SWEEnv):
    """``SWE-Lite-v0``: ``SWEEnv`` on the five easiest bundled tasks."""

    def __init__(self, task: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("tasks", "lite")
        super().__init__(task, **kwargs)


def _task_set(tasks: Sequence[SWETask] | str) -> tuple[SWETask, ...]:
    if isinstance(tasks, str):
        if tasks not in ("bundled", "lite"):
            raise ValueError(f"tasks must be 'bundled', 'lite' or a list of SWETask, got {tasks!r}")
        return bundled_tasks() if tasks == "bundled" else lite_tasks()
    found = tuple(tasks)
    if not found or not all(isinstance(t, SWETask) for t in found):
        raise ValueError("tasks must be a non-empty sequence of SWETask")
    return found


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _remove(root: Path, sandboxes: dict[tuple[str, str | None], Sandbox]) -> None:
    for sandbox in sandboxes.values():
        with contextlib.suppress(Exception):
            sandbox.close()
    sandboxes.clear()
    reaper.remove_dir(root)  # unmounts the workspaces' quotas first


def _docker_for_all(tasks: Sequence[SWETask]) -> bool:
    """Whether "auto" would run every task in Docker (each has an image, an engine answers)."""
    return all(t.image and t.source is None for t in tasks) and docker_available()[0]


def _check_pytest(python: Path | None) -> None:
    """Refuse to make the env when the tests' interpreter cannot import pytest.

    Grading runs pytest in ``python`` (default: this interpreter); without it every
    submission would score 0 with its tests missing.
    """
    if python is None:
        require_installed("swe", "an SWE env (its grading runs pytest)", ("pytest",))
        return
    try:
        probe = subprocess.run(
            [str(python), "-c", "import pytest"], capture_output=True, timeout=60
        )
        if probe.returncode == 0:
            return
    except (OSError, subprocess.TimeoutExpired):
        pass
    raise RuntimeError(
        f"SWE grading runs the tests with pytest, which python={str(python)!r} cannot import: "
        f"{python} -m pip install pytest"
    )

"""SWE tasks in the SWE-bench instance format: the bundled set and a JSONL loader.

A task (``SWETask``) carries SWE-bench's fields (``instance_id``, ``repo``,
``base_commit``, ``problem_statement``, ``patch``, ``test_patch``, ``FAIL_TO_PASS``,
``PASS_TO_PASS``) plus how to run its tests (``test_cmd``, ``log_parser``) and where its
repository comes from: a folder of files (the bundled tasks), a local git clone, or a
Docker image that has the repository at ``/testbed`` (SWE-bench and SWE-Gym images).

The bundled tasks live in ``data/<instance_id>/`` (see ``data/README.md``): small Python
repos written for turngym, each with a seeded bug, a user's bug report, failing and
passing tests and a reference patch. ``bundled_tasks()`` loads them, ``lite_tasks()`` is
the five easiest. ``load_jsonl`` reads SWE-bench / SWE-Gym files, mapping each ``repo``
to a local clone or each instance to an image.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "DATA",
    "PYTEST_CMD",
    "SWETask",
    "bundled_tasks",
    "find_task",
    "lite_tasks",
    "load_jsonl",
    "swebench_image",
]

DATA = Path(__file__).parent / "data"
"""The bundled tasks' folder."""

PYTEST_CMD = "python -m pytest -q -rA -p no:cacheprovider"
"""The default test command; the test files to run are appended."""


@dataclass(frozen=True)
class SWETask:
    """One SWE task: SWE-bench's instance fields plus how to get the repo and run tests.

    Attributes:
        instance_id: unique id, e.g. ``"turngym__ledger-1"`` or ``"django__django-11099"``.
        repo: the repository's name, e.g. ``"turngym/ledger"``.
        base_commit: the commit the task starts from (filled when the repo is prepared
            for bundled tasks, whose repos are built from files).
        problem_statement: the bug report the agent reads.
        patch: the reference fix (unified diff).
        test_patch: the tests that check the fix (unified diff; hidden from the agent).
        fail_to_pass: test ids that fail before the fix and must pass after it.
        pass_to_pass: test ids that pass before and must still pass.
        test_cmd: the command that runs tests; the test files are appended.
        log_parser: how the test output is read (``"pytest"``).
        source: a folder of files (bundled) or a local git clone holding ``base_commit``.
        image: a Docker image with the repository at ``/testbed`` (used when an engine
            answers and no ``source`` is given).
        difficulty: 1 (easiest) to 5, where known.
        kind: the kind of bug, where known (``"off-by-one"``, ``"two-files"``, ...).

    """

    instance_id: str
    repo: str
    base_commit: str
    problem_statement: str
    patch: str
    test_patch: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    test_cmd: str = PYTEST_CMD
    log_parser: str = "pytest"
    source: Path | None = None
    image: str | None = None
    difficulty: int | None = None
    kind: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def to_instance(self) -> dict[str, Any]:
        """The task as a SWE-bench instance dict (``FAIL_TO_PASS`` etc. as lists)."""
        return {
            **self.extra,
            "instance_id": self.instance_id,
            "repo": self.repo,
            "base_commit": self.base_commit,
            "problem_statement": self.problem_statement,
            "patch": self.patch,
            "test_patch": self.test_patch,
            "FAIL_TO_PASS": list(self.fail_to_pass),
            "PASS_TO_PASS": list(self.pass_to_pass),
            "test_cmd": self.test_cmd,
            "log_parser": self.log_parser,
        }

    @property
    def test_files(self) -> list[str]:
        """The test files of the task's test ids, in order of first appearance."""
        files = (test.split("::", 1)[0] for test in (*self.fail_to_pass, *self.pass_to_pass))
        return list(dict.fromkeys(files))

    @classmethod
    def from_instance(
        cls,
        instance: Mapping[str, Any],
        *,
        source: Path | str | None = None,
        image: str | None = None,
    ) -> SWETask:
        """A task from a SWE-bench / SWE-Gym instance dict.

        ``FAIL_TO_PASS`` / ``PASS_TO_PASS`` may be lists or JSON strings of lists (as in
        the Hugging Face datasets).

        Raises:
            ValueError: a required field is missing or malformed (names it).

        """
        required = ("instance_id", "repo", "base_commit", "problem_statement", "patch")
        missing = [key for key in required if key not in instance]
        if missing:
            raise ValueError(f"SWE instance lacks {', '.join(missing)}: {_short(instance)}")
        known = {*required, "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS", "test_cmd"}
        return cls(
            instance_id=str(instance["instance_id"]),
            repo=str(instance["repo"]),
            base_commit=str(instance["base_commit"]),
            problem_statement=str(instance["problem_statement"]),
            patch=str(instance["patch"]),
            test_patch=str(instance.get("test_patch", "")),
            fail_to_pass=_tests(instance, "FAIL_TO_PASS"),
            pass_to_pass=_tests(instance, "PASS_TO_PASS"),
            test_cmd=str(instance.get("test_cmd") or PYTEST_CMD),
            log_parser=str(instance.get("log_parser") or "pytest"),
            source=Path(source) if source is not None else None,
            image=image,
            extra={k: v for k, v in instance.items() if k not in known | {"log_parser"}},
        )


def _tests(instance: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = instance.get(key, [])
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except ValueError as exc:
            raise ValueError(f"{key} of {instance.get('instance_id')} is not JSON: {exc}") from exc
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{key} of {instance.get('instance_id')} must be a list of test ids")
    return tuple(value)


def _short(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def swebench_image(instance_id: str, namespace: str = "swebench") -> str:
    """The SWE-bench evaluation image name of an instance.

    >>> swebench_image("django__django-11099")
    'swebench/sweb.eval.x86_64.django_1776_django-11099:latest'
    """
    return f"{namespace}/sweb.eval.x86_64.{instance_id.replace('__', '_1776_')}:latest"


def load_jsonl(
    path: str | Path,
    *,
    repos: Mapping[str, str | Path] | None = None,
    image: Callable[[str], str] | None = None,
) -> list[SWETask]:
    """The tasks of a SWE-bench / SWE-Gym JSONL file.

    Args:
        path: the file, one instance per line.
        repos: ``repo`` name -> path of a local git clone that holds the base commits.
        image: instance id -> Docker image (e.g. ``swebench_image``), for instances whose
            repo has no local clone.

    Raises:
        ValueError: a line is not a JSON instance, or an instance has neither a clone
            nor an image (says which and how to give one).

    """
    tasks = []
    repos = dict(repos or {})
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            instance = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: not a JSON object: {exc}") from exc
        if not isinstance(instance, dict):
            raise ValueError(f"{path}:{number}: not a JSON object")
        repo = str(instance.get("repo", ""))
        if repo not in repos and image is None:
            raise ValueError(
                f"{path}:{number}: no local clone for repo {repo!r}; pass "
                "repos={repo: path_of_a_clone} or image=swebench_image"
            )
        tasks.append(
            SWETask.from_instance(
                instance,
                source=repos.get(repo),
                image=None if repo in repos or image is None else image(instance["instance_id"]),
            )
        )
    return tasks


@functools.cache
def bundled_tasks() -> tuple[SWETask, ...]:
    """The tasks bundled with turngym, ordered by instance id."""
    tasks = []
    for folder in sorted(p for p in DATA.iterdir() if (p / "task.toml").is_file()):
        spec = tomllib.loads((folder / "task.toml").read_text(encoding="utf-8"))
        tasks.append(
            SWETask(
                instance_id=spec["instance_id"],
                repo=spec["repo"],
                base_commit="",  # known once the repo is built (workspace.prepare)
                problem_statement=spec["problem_statement"].strip(),
                patch=(folder / "fix.patch").read_text(encoding="utf-8"),
                test_patch=(folder / "tests.patch").read_text(encoding="utf-8"),
                fail_to_pass=tuple(spec["FAIL_TO_PASS"]),
                pass_to_pass=tuple(spec["PASS_TO_PASS"]),
                test_cmd=spec.get("test_cmd", PYTEST_CMD),
                source=folder / "repo",
                difficulty=int(spec["difficulty"]),
                kind=spec["kind"],
            )
        )
    return tuple(sorted(tasks, key=lambda t: t.instance_id))


def lite_tasks() -> tuple[SWETask, ...]:
    """The five easiest bundled tasks (lowest difficulty, ties by instance id)."""
    ranked = sorted(bundled_tasks(), key=lambda t: (t.difficulty or 0, t.instance_id))
    return tuple(sorted(ranked[:5], key=lambda t: t.instance_id))


def find_task(tasks: Sequence[SWETask], name: str) -> SWETask:
    """The task with this instance id (or the unique one whose id starts with it).

    Raises:
        ValueError: no task or several match (lists the ids).

    """
    exact = [t for t in tasks if t.instance_id == name]
    found = exact or [t for t in tasks if t.instance_id.startswith(name)]
    if len(found) != 1:
        ids = ", ".join(t.instance_id for t in tasks)
        what = "no task" if not found else f"{len(found)} tasks"
        raise ValueError(f"{what} named {name!r}; the tasks are: {ids}")
    return found[0]

"""Check SWE tasks' FAIL_TO_PASS and PASS_TO_PASS the way SWE-bench computes them.

For each task, through the grader itself (``grading.run_tests``: the same sandbox, the
same reset of the test files, the same signed outcomes), the tests run twice: at the
base commit with the test patch, then with the reference patch and the test patch.
FAIL_TO_PASS is every test that does not pass before and passes after, PASS_TO_PASS
every test that passes both times (SWE-bench's definitions; a test the reference patch
breaks is reported as ``broken``). The tests run are the ``.py`` files the test patch
writes and the files of the listed test ids (SWE-bench's "test directives"), or the
paths given. A third run puts an always-equal stand-in in place of every module of
the repository that is not a test: a task whose FAIL_TO_PASS tests pass against it is
rejected (its tests compare with ``==`` values that any object could equal), and so is
one with a FAIL_TO_PASS test that compares no value with a constant (the grader judges
those values itself, outside the sandbox: ``judge.py``). A task is valid when both
patches apply, no FAIL_TO_PASS test is gamed or unjudged and the listed lists are the
computed ones; ``--write`` puts the computed lists into the bundled ``task.toml`` files
or the JSONL file the tasks came from.

Run it on the bundled tasks or on a SWE-bench / SWE-Gym JSONL of your own::

    python -m turngym.envs.swe.validate                   # every bundled task
    python -m turngym.envs.swe.validate --task turngym__jpath --write
    python -m turngym.envs.swe.validate --jsonl tasks.jsonl --repo owner/name=/path/to/clone

It exits 0 when every task is valid (after ``--write``: when every list could be
computed), 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from turngym.envs.cache import cache_dir
from turngym.envs.swe.grading import PLUGIN_DIR, Trial, run_tests
from turngym.envs.swe.tasks import (
    SWETask,
    bundled_tasks,
    find_task,
    load_jsonl,
    swebench_image,
)
from turngym.envs.swe.workspace import Workspace, prepare
from turngym.host import reaper
from turngym.host.sandbox import (
    KINDS,
    Limits,
    Sandbox,
    bwrap_available,
    docker_available,
    make_sandbox,
    no_sandbox_message,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "Validation",
    "directives",
    "main",
    "validate_task",
    "validate_tasks",
    "write_jsonl",
    "write_task_toml",
]

_PASSED = "PASSED"
_NOT_COLLECTED = ("conftest.py", "__init__.py")


@dataclass(frozen=True)
class Validation:
    """What the tests say about one task's lists.

    Attributes:
        task: the task as listed.
        fail_to_pass: the tests that do not pass before the reference patch and pass
            after it, in the order they ran.
        pass_to_pass: the tests that pass both before and after, in the order they ran.
        broken: the tests that pass before and not after (SWE-bench leaves them out).
        problems: why the lists could not be computed (a patch does not apply, no test
            ran, no test tells the fix from the base), or why the task is rejected (its
            FAIL_TO_PASS tests pass against an always-equal stand-in of the code, or
            compare no value with a constant); empty when neither.

    """

    task: SWETask
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    broken: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """The lists could be computed and the task lists exactly them."""
        return not self.problems and not self.differences()

    def differences(self) -> list[str]:
        """One line per way the task's lists differ from the computed ones."""
        if self.problems:
            return []
        lines = []
        for key, listed, computed in (
            ("FAIL_TO_PASS", self.task.fail_to_pass, self.fail_to_pass),
            ("PASS_TO_PASS", self.task.pass_to_pass, self.pass_to_pass),
        ):
            missing = [t for t in computed if t not in listed]
            wrong = [t for t in listed if t not in computed]
            if missing:
                lines.append(f"{key} misses {len(missing)} of {len(computed)}: {_few(missing)}")
            if wrong:
                lines.append(f"{key} lists {len(wrong)} that do not belong: {_few(wrong)}")
        return lines

    def to_dict(self) -> dict[str, Any]:
        """The validation as JSON-ready data (``--json`` prints one per line)."""
        return {
            "instance_id": self.task.instance_id,
            "ok": self.ok,
            "FAIL_TO_PASS": list(self.fail_to_pass),
            "PASS_TO_PASS": list(self.pass_to_pass),
            "broken": list(self.broken),
            "problems": list(self.problems),
            "differences": self.differences(),
        }


def _few(tests: Sequence[str], shown: int = 5) -> str:
    more = f" (and {len(tests) - shown} more)" if len(tests) > shown else ""
    return ", ".join(tests[:shown]) + more


def directives(task: SWETask) -> list[str]:
    """The test files SWE-bench runs for a task: the listed tests' and the test patch's.

    >>> from turngym.envs.swe.tasks import SWETask
    >>> patch = "+++ b/tests/test_new.py" + chr(10) + "+++ b/tests/data.json" + chr(10)
    >>> task = SWETask("a-1", "a", "", "", "", patch,
    ...                ("tests/test_new.py::test_x",), ("tests/test_old.py::test_y",))
    >>> directives(task)
    ['tests/test_new.py', 'tests/test_old.py']

    """
    written = re.findall(r"^\+\+\+ b/(.+?)\s*$", task.test_patch, re.MULTILINE)
    tests = [p for p in written if p.endswith(".py") and p.rsplit("/", 1)[-1] not in _NOT_COLLECTED]
    return list(dict.fromkeys([*task.test_files, *tests]))


def validate_tasks(
    tasks: Sequence[SWETask],
    *,
    sandbox: str = "auto",
    limits: Limits | None = None,
    python: str | Path | None = None,
    paths: Sequence[str] | None = None,
) -> Iterator[Validation]:
    """Validate each task in turn (one grading workspace, removed at the end).

    Args:
        tasks: the tasks to check.
        sandbox: the sandbox kind, as ``SWEEnv``'s (``"auto"``, ``"bwrap"``, ...):
            ``"auto"`` refuses where no sandbox can run; ``"local"`` runs the tests
            unsandboxed on this host (trusted tasks only).
        limits: per-run sandbox limits (default ``Limits()``).
        python: the interpreter the tests run with (default: this one).
        paths: the test files or folders to run for every task (default: `directives`).

    Raises:
        ValueError: ``sandbox`` is not a known kind.
        RuntimeError: no sandbox of that kind can run here (the message names the fix).

    """
    if sandbox not in KINDS:
        raise ValueError(f"sandbox must be one of {', '.join(KINDS)}, got {sandbox!r}")
    limits = limits or Limits()
    interpreter = Path(python) if python is not None else None
    root = reaper.temp_dir("turngym-swe-validate-")
    workspace = Workspace(root / "grade", quota_mb=limits.disk_mb)
    boxes: dict[str | None, Sandbox] = {}
    try:
        for task in tasks:
            image = task.image if task.source is None else None
            if image not in boxes:
                (cache_dir() / "swe").mkdir(parents=True, exist_ok=True)
                boxes[image] = make_sandbox(
                    workspace.root,
                    kind=sandbox,
                    limits=limits,
                    image=image,
                    python=interpreter,
                    extra_ro=[cache_dir() / "swe", PLUGIN_DIR],
                )
            yield _validate(task, workspace, boxes[image], paths)
    finally:
        for box in boxes.values():
            with contextlib.suppress(Exception):
                box.close()
        reaper.remove_dir(root)


def validate_task(task: SWETask, **kwargs: Any) -> Validation:
    """Validate one task; ``kwargs`` as `validate_tasks`."""
    [result] = validate_tasks([task], **kwargs)
    return result


def _validate(
    task: SWETask, workspace: Workspace, sandbox: Sandbox, paths: Sequence[str] | None
) -> Validation:
    base = prepare(task)
    run = list(paths) if paths is not None else directives(task)
    problems = []
    before = run_tests(task, "", base, workspace, sandbox, paths=run)
    problems += _problems("at the base commit with the test patch", before)
    after = run_tests(task, task.patch, base, workspace, sandbox, paths=run)
    problems += _problems("with the reference patch", after)
    if not after.applied:
        problems.append("the reference patch does not apply")
    if problems:
        return Validation(task, (), (), problems=tuple(problems))
    passed = {t for t, outcome in before.tests.items() if outcome == _PASSED}
    f2p = tuple(t for t, o in after.tests.items() if o == _PASSED and t not in passed)
    p2p = tuple(t for t, o in after.tests.items() if o == _PASSED and t in passed)
    broken = tuple(t for t in before.tests if t in passed and after.tests.get(t) != _PASSED)
    if not f2p:
        problems.append("no test fails before the reference patch and passes after it")
    else:
        unjudged = [t for t in f2p if t in after.unjudged]
        if unjudged:
            problems.append(
                f"{len(unjudged)} FAIL_TO_PASS tests compare no value with a constant, so the "
                f"grader cannot judge them outside the tested interpreter (add an "
                f"`assert EXPR == CONSTANT`): {_few(unjudged)}"
            )
        problems += _gamed(task, base, workspace, sandbox, run, f2p)
    return Validation(task, f2p, p2p, broken, tuple(problems))


def _gamed(
    task: SWETask,
    base: Any,
    workspace: Workspace,
    sandbox: Sandbox,
    run: Sequence[str],
    f2p: Sequence[str],
) -> list[str]:
    """Why the FAIL_TO_PASS tests can be passed without the code: an always-equal stand-in."""
    trial = run_tests(task, "", base, workspace, sandbox, paths=run, standin=True)
    gamed = [t for t in f2p if trial.tests.get(t) == _PASSED]
    if not gamed:
        return []
    return [
        f"{len(gamed)} FAIL_TO_PASS tests pass against a stand-in of the code whose every "
        f"value equals everything (compare exact, serialisable values): {_few(gamed)}"
    ]


def _problems(when: str, trial: Trial) -> list[str]:
    if trial.problem:
        return [f"{when}: {trial.problem}"]
    if not trial.tests:
        tail = " | ".join(trial.log.strip().splitlines()[-3:])
        return [f"{when}: no test ran ({tail})"]
    return []


# -- writing the lists back ------------------------------------------------------------


def write_task_toml(
    path: str | Path, fail_to_pass: Sequence[str], pass_to_pass: Sequence[str]
) -> None:
    """Replace the ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` arrays of a bundled ``task.toml``.

    The rest of the file is kept as it is; the file is replaced atomically.

    Raises:
        ValueError: the file has no such arrays (one per line, closed by ``]`` alone).

    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    for key, tests in (("FAIL_TO_PASS", fail_to_pass), ("PASS_TO_PASS", pass_to_pass)):
        block = re.compile(rf"^{key} = \[.*?^\]$", re.MULTILINE | re.DOTALL)
        array = f"{key} = [\n" + "".join(f"    {json.dumps(t)},\n" for t in tests) + "]"
        found = block.search(text)
        if found is None:
            raise ValueError(f"{path}: no '{key} = [' array closed by ']' on its own line")
        text = text[: found.start()] + array + text[found.end() :]
    spec = tomllib.loads(text)
    if spec["FAIL_TO_PASS"] != list(fail_to_pass) or spec["PASS_TO_PASS"] != list(pass_to_pass):
        raise ValueError(f"{path}: the rewritten lists do not read back as written")
    _replace(path, text)


def write_jsonl(path: str | Path, validations: Sequence[Validation]) -> int:
    """Put the computed lists into the JSONL file's instances; the number rewritten.

    Instances keep their other fields and the form of the lists (a JSON string or a
    list, as in the Hugging Face datasets); those with problems are left as they are.
    """
    path = Path(path)
    found = {v.task.instance_id: v for v in validations if not v.problems}
    lines, changed = [], 0
    for line in path.read_text(encoding="utf-8").splitlines():
        instance = json.loads(line) if line.strip() else None
        done = found.get(str(instance.get("instance_id"))) if isinstance(instance, dict) else None
        if instance is None or done is None:
            lines.append(line)
            continue
        for key, tests in (
            ("FAIL_TO_PASS", done.fail_to_pass),
            ("PASS_TO_PASS", done.pass_to_pass),
        ):
            as_string = isinstance(instance.get(key), str)
            instance[key] = json.dumps(list(tests)) if as_string else list(tests)
        lines.append(json.dumps(instance, ensure_ascii=False))
        changed += 1
    _replace(path, "".join(f"{line}\n" for line in lines))
    return changed


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file next to ``path``, then rename it over ``path``."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temp, path.stat().st_mode & 0o777)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _bundled_toml(task: SWETask) -> Path | None:
    """The ``task.toml`` of a task loaded from a bundled-format folder, if it is one."""
    if task.source is None or task.source.name != "repo":
        return None
    toml = task.source.parent / "task.toml"
    return toml if toml.is_file() else None


# -- the command line ------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m turngym.envs.swe.validate",
        description=(
            "Compute each SWE task's FAIL_TO_PASS and PASS_TO_PASS as SWE-bench does (tests "
            "run before and after the reference patch, both with the test patch) and "
            "compare them with the listed ones."
        ),
    )
    parser.add_argument("--jsonl", type=Path, help="a SWE-bench/SWE-Gym JSONL (default: bundled)")
    parser.add_argument(
        "--repo",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a local clone of a JSONL repo, e.g. astropy/astropy=~/src/astropy (repeatable)",
    )
    parser.add_argument(
        "--image",
        nargs="?",
        const="swebench",
        metavar="NAMESPACE",
        help="use SWE-bench images (namespace, default swebench) for repos without a clone",
    )
    parser.add_argument("--task", action="append", default=[], help="only this task id or prefix")
    parser.add_argument(
        "--paths", action="append", help="test files or folders to run (default: the directives)"
    )
    parser.add_argument(
        "--sandbox",
        choices=KINDS,
        default="auto",
        help="sandbox kind (auto: docker for image tasks, else bubblewrap; local: unsandboxed)",
    )
    parser.add_argument("--python", type=Path, help="interpreter the tests run with")
    parser.add_argument("--timeout", type=float, help="seconds per test run (wall and CPU)")
    parser.add_argument("--write", action="store_true", help="write the computed lists back")
    parser.add_argument("--json", action="store_true", help="print one JSON object per task")
    return parser


def _load(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[SWETask]:
    if args.jsonl is None:
        if args.repo or args.image:
            parser.error("--repo and --image go with --jsonl")
        tasks: Sequence[SWETask] = bundled_tasks()
    else:
        repos = {}
        for item in args.repo:
            name, sep, where = item.partition("=")
            if not sep or not name or not where:
                parser.error(f"--repo takes NAME=PATH, got {item!r}")
            repos[name] = Path(where).expanduser()
        namespace = args.image
        image = (lambda i: swebench_image(i, namespace)) if namespace else None
        try:
            tasks = load_jsonl(args.jsonl, repos=repos, image=image)
        except (OSError, ValueError) as error:
            parser.error(str(error))
    if args.task:
        try:
            return list(dict.fromkeys(find_task(tasks, name) for name in args.task))
        except ValueError as error:
            parser.error(str(error))
    return list(tasks)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: validate, print, optionally write; 0 when every task is valid."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.timeout is not None and not args.timeout > 0:
        parser.error(f"--timeout must be > 0 seconds, got {args.timeout}")
    tasks = _load(args, parser)
    needs_bwrap = args.sandbox == "bwrap" or (
        args.sandbox == "auto"
        and not (all(t.image and t.source is None for t in tasks) and docker_available()[0])
    )
    if needs_bwrap and not (found := bwrap_available())[0]:
        parser.error(no_sandbox_message(found[1], option="--sandbox local"))
    limits = Limits(wall_s=args.timeout, cpu_s=args.timeout) if args.timeout else None
    results = []
    for result in validate_tasks(
        tasks, sandbox=args.sandbox, limits=limits, python=args.python, paths=args.paths
    ):
        results.append(result)
        if args.json:
            print(json.dumps(result.to_dict()), flush=True)
            continue
        status = "ok" if result.ok else ("FAIL" if result.problems else "DIFF")
        print(
            f"{status:<5}{result.task.instance_id}: FAIL_TO_PASS {len(result.fail_to_pass)}, "
            f"PASS_TO_PASS {len(result.pass_to_pass)}"
            + (f", broken by the reference patch {len(result.broken)}" if result.broken else ""),
            flush=True,
        )
        for line in [*result.problems, *result.differences()]:
            print(f"     {line}", flush=True)
    if args.write:
        _write(args, results)
    failed = sum(bool(r.problems) for r in results)
    differ = sum(not r.problems and not r.ok for r in results)
    if not args.json:
        print(
            f"{len(results)} tasks: {len(results) - failed - differ} valid, {differ} with "
            f"other lists{' (written)' if args.write else ''}, {failed} with problems"
        )
    return 1 if failed or (differ and not args.write) else 0


def _write(args: argparse.Namespace, results: Sequence[Validation]) -> None:
    changed = [r for r in results if not r.problems and r.differences()]
    if args.jsonl is not None:
        if changed:
            count = write_jsonl(args.jsonl, changed)
            print(f"wrote the lists of {count} tasks to {args.jsonl}", file=sys.stderr)
        return
    for result in changed:
        toml = _bundled_toml(result.task)
        if toml is None:
            print(f"{result.task.instance_id}: no task.toml to write to", file=sys.stderr)
            continue
        write_task_toml(toml, result.fail_to_pass, result.pass_to_pass)
        print(f"wrote {toml}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())

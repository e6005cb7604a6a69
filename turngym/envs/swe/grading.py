"""Grading a patch the SWE-bench way, with nothing the patch can write trusted.

``grade`` copies the base checkout into a grading workspace and, through the sandbox
(``run_tests`` does steps 1-3 and returns every test's outcome, for the task validator):

1. applies the agent's patch and lists the files it changed, ignore files or not
   (``git add --force``: a ``.gitignore`` of the patch's hides nothing; only git has run
   so far);
2. puts back, as they are at the base commit, the files that decide how tests run or
   what they check (`is_test_infrastructure`): ``conftest.py`` files, pytest/tox/setup.cfg/
   pyproject settings, ``sitecustomize``/``usercustomize``/``.pth`` files, ``.gitignore``
   and ``.gitattributes``, anything in a ``*.dist-info``/``*.egg-info`` folder (entry
   points), the task's test files and the ``__init__.py`` of their packages, and any new
   top-level module that would shadow the standard library or pytest; and, as SWE-bench checks out
   the test patch's files before applying it, every file the test patch touches and any
   path in its way (a file where it makes a folder, a folder where it makes a file).
   They are listed in ``reverted``. The agent's tests of its own stay in its patch but
   never in the graded files;
3. applies the hidden ``test_patch`` (when it still does not apply, nothing runs and
   ``problem`` says so), takes out of the test files every constant an assertion
   compares with (``judge.py``: they stay here) and runs the tests of ``FAIL_TO_PASS``
   and ``PASS_TO_PASS`` with the task's pytest in turngym's sealed harness
   (``plugin/turngym_grade.py``, run by its path with ``python -I``), which sends each
   value the tests observed and each test's outcome, signed with a key given on
   standard input, down a pipe of the grader's. Neither the log nor any file in the
   workspace is read for outcomes, and a line without the key's signature is dropped.

The trust boundary is this process: a test passes only if the values its assertions
observed equal the constants kept here (and every check of its straight-line code ran),
which no code inside the tested interpreter can arrange except by computing them; the
harness's outcome (seen to run and pass: skipped, deselected, ``xfail``, errored,
missing or ``tampered`` tests count as failed) and its seal are the layers under that,
for what a test checks without a constant. The task is ``resolved`` when the patch applies and
every FAIL_TO_PASS and PASS_TO_PASS test passed. ``reward_parts`` splits the outcome:
``f2p`` and ``p2p`` (fractions passing), ``applies`` and ``submitted``; ``reverted``
lists the infrastructure files put back.
"""

from __future__ import annotations

import hmac
import json
import os
import posixpath
import re
import secrets
import shlex
import sys
import threading
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from hashlib import sha256
from pathlib import Path
from typing import Any

from turngym.envs.swe.judge import Expectations, judge, strip_expectations
from turngym.envs.swe.tasks import SWETask
from turngym.envs.swe.workspace import Base, Workspace, git
from turngym.host.confined import Folder, PathRefused
from turngym.host.sandbox import Sandbox

__all__ = [
    "HARNESS",
    "PLUGIN_DIR",
    "Grade",
    "Trial",
    "grade",
    "harness_command",
    "is_test_infrastructure",
    "parse_pytest_log",
    "run_tests",
]

PLUGIN_DIR = Path(__file__).parent / "plugin"
"""The folder of turngym's grading harness for pytest (the grading sandbox must see it)."""
HARNESS = PLUGIN_DIR / "turngym_grade.py"
"""The grading harness, run by its path (`harness_command`)."""

_OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)\s+(\S+?)(?:\s+-\s.*)?$")
_PASSED = "PASSED"
_WORDS = {
    "passed": "PASSED",
    "failed": "FAILED",
    "error": "ERROR",
    "skipped": "SKIPPED",
    "xfailed": "XFAIL",
    "xpassed": "XPASS",
    "missing": "MISSING",
    "tampered": "TAMPERED",
}
_BAD = {"MISSING": 0, "PASSED": 1, "XPASS": 2, "SKIPPED": 3, "XFAIL": 4, "FAILED": 5}
_MODEL, _TESTS = "turngym-model.patch", "turngym-tests.patch"
_APPLY_FAILED = "TURNGYM: the patch does not apply"
_TEST_PATCH_FAILED = "TURNGYM: the test patch does not apply"
_GIT = "git -c safe.directory='*' -c core.hooksPath=/dev/null"
_MAX_LIST = 8_000_000  # the list of changed paths of a patch of at most 5 MB
_MAX_RECORDS = 16_000_000
_MAX_TEST_FILE = 2_000_000
_PYTHON = re.compile(r"python[0-9.]*")
# Tests run without plugins from the host's site-packages: faster, and the same
# outcomes whichever pytest plugins the machine has installed.
_TEST_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}

_SETTINGS = frozenset(
    {
        "conftest.py",
        "pytest.ini",
        ".pytest.ini",
        "tox.ini",
        "setup.cfg",
        "pyproject.toml",
        "sitecustomize.py",
        "usercustomize.py",
        ".gitignore",
        ".gitattributes",
    }
)
# Folders of installed-package metadata (entry points, ``.pth`` files) in any component.
_METADATA = (".dist-info", ".egg-info", ".egg-link")
# What pytest and this plugin import at start, besides the standard library.
_PYTEST_MODULES = frozenset(
    {
        "pytest",
        "_pytest",
        "pluggy",
        "py",
        "iniconfig",
        "packaging",
        "exceptiongroup",
        "tomli",
        "colorama",
        "pygments",
        "turngym_grade",
    }
)


def parse_pytest_log(log: str) -> dict[str, str]:
    r"""Each test id's outcome (``PASSED``, ``FAILED``, ``ERROR``, ...) in a ``pytest -rA`` log.

    For reading a log by eye or in a report; the grader itself never trusts a log.

    >>> parse_pytest_log("PASSED tests/test_a.py::test_x\nFAILED tests/test_a.py::test_y - boom")
    {'tests/test_a.py::test_x': 'PASSED', 'tests/test_a.py::test_y': 'FAILED'}
    """
    outcomes: dict[str, str] = {}
    for line in log.splitlines():
        match = _OUTCOME.match(line.strip())
        if match and "::" in match.group(2):
            outcomes[match.group(2)] = match.group(1)
    return outcomes


@dataclass(frozen=True)
class Grade:
    """The verdict on one patch.

    Attributes:
        resolved: the patch applies and every FAIL_TO_PASS and PASS_TO_PASS test passed.
        applied: the patch applies to the base commit (an empty patch does).
        tests: each graded test id's outcome (``PASSED``, ``FAILED``, ``MISSING``, ...).
        reward_parts: ``f2p``, ``p2p``, ``applies``, ``submitted`` in [0, 1].
        reverted: the files of the patch put back as they are at the base commit.
        log: the tail of the test run's output (or why nothing ran), for people to read.
        seconds: how long grading took.
        problem: why no test ran, in one line ("" when they ran): the patch or the
            hidden tests' patch does not apply, the test files could not be put back.

    """

    resolved: bool
    applied: bool
    tests: Mapping[str, str] = field(default_factory=dict)
    reward_parts: Mapping[str, float] = field(default_factory=dict)
    reverted: tuple[str, ...] = ()
    log: str = ""
    seconds: float = 0.0
    problem: str = ""


@dataclass(frozen=True)
class Trial:
    """One run of a task's tests on a patch, as the grader runs them (``run_tests``).

    Attributes:
        applied: the patch applies to the base commit.
        tests: every test seen, id -> outcome (``PASSED``, ``FAILED``, ...), in the
            order they ran; empty when nothing ran.
        reverted: the files of the patch put back as they are at the base commit.
        log: the tail of the output (or why nothing ran), for people to read.
        problem: why no test ran, in one line ("" when they ran).
        unjudged: the tests seen that the grader cannot judge itself: no assertion of
            theirs compares with a constant (`turngym.envs.swe.judge`), so their outcome
            rests on the harness inside the tested interpreter alone.

    """

    applied: bool
    tests: Mapping[str, str]
    reverted: tuple[str, ...] = ()
    log: str = ""
    problem: str = ""
    unjudged: tuple[str, ...] = ()


def is_test_infrastructure(
    path: str, test_files: Collection[str], base_top: Collection[str] = ()
) -> bool:
    """Whether a patch's change to ``path`` could change how tests run or what they check.

    Args:
        path: a repository-relative path the patch adds, changes or deletes.
        test_files: the task's test files (its test ids' files and the test patch's).
        base_top: the names at the top of the repository at the base commit (a new
            top-level module that shadows the standard library or pytest is refused,
            one the base already has is the repository's own).

    >>> is_test_infrastructure("pkg/conftest.py", ["tests/test_a.py"])
    True
    >>> is_test_infrastructure("tests/__init__.py", ["tests/test_a.py"])
    True
    >>> is_test_infrastructure("inspect.py", ["tests/test_a.py"], base_top=["pkg", "tests"])
    True
    >>> is_test_infrastructure("tests/.gitignore", ["tests/test_a.py"])
    True
    >>> is_test_infrastructure("fake-1.0.dist-info/entry_points.txt", ["tests/test_a.py"])
    True
    >>> is_test_infrastructure("pkg/core.py", ["tests/test_a.py"], base_top=["pkg", "tests"])
    False

    """
    name = posixpath.basename(path)
    if name in _SETTINGS or name.endswith((".pth", *_METADATA)) or path in test_files:
        return True
    if any(part.endswith(_METADATA) for part in path.split("/")[:-1]):
        return True
    if name == "__init__.py":
        folder = posixpath.dirname(path)
        if any(folder in _folders(test) for test in test_files):
            return True
    top = path.split("/", 1)[0]
    return top not in base_top and top.split(".", 1)[0] in _shadowed()


def _folders(path: str) -> list[str]:
    """The folders that hold ``path``, the repository root ("") included."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[:i]) for i in range(len(parts) + 1)]


def _in_the_way(path: str, patched: Collection[str]) -> bool:
    """Whether ``path`` (a file of the submission) blocks a file the test patch writes.

    >>> _in_the_way("tests/unit", ["tests/unit/test_a.py"])
    True
    >>> _in_the_way("tests/test_a.py/x.py", ["tests/test_a.py"])
    True
    >>> _in_the_way("tests/test_b.py", ["tests/test_a.py"])
    False

    """
    return any(p.startswith(path + "/") or path.startswith(p + "/") for p in patched)


@lru_cache(maxsize=1)
def _shadowed() -> frozenset[str]:
    return frozenset(getattr(sys, "stdlib_module_names", ())) | _PYTEST_MODULES


def grade(
    task: SWETask,
    patch: str,
    base: Base,
    workspace: Workspace,
    sandbox: Sandbox,
    *,
    submitted: bool = True,
    timeout: float | None = None,
) -> Grade:
    """Grade ``patch`` on ``task`` in ``workspace`` (wiped first) through ``sandbox``.

    ``sandbox`` must be bound to ``workspace`` and show `PLUGIN_DIR`; ``timeout``
    bounds the test run (default: the sandbox's wall limit).
    """
    start = time.perf_counter()
    trial = run_tests(task, patch, base, workspace, sandbox, timeout=timeout)
    every = {t: trial.tests.get(t, "MISSING") for t in (*task.fail_to_pass, *task.pass_to_pass)}
    f2p, p2p = _fraction(every, task.fail_to_pass), _fraction(every, task.pass_to_pass)
    return Grade(
        resolved=trial.applied and bool(trial.tests) and f2p == 1.0 and p2p == 1.0,
        applied=trial.applied,
        tests=every,
        reward_parts={
            "f2p": f2p,
            "p2p": p2p,
            "applies": float(trial.applied),
            "submitted": float(submitted),
        },
        reverted=trial.reverted,
        log=trial.log,
        seconds=time.perf_counter() - start,
        problem=trial.problem,
    )


def run_tests(
    task: SWETask,
    patch: str,
    base: Base,
    workspace: Workspace,
    sandbox: Sandbox,
    *,
    paths: Sequence[str] | None = None,
    timeout: float | None = None,
    standin: bool = False,
) -> Trial:
    """Apply ``patch`` and the hidden tests as ``grade`` does, run the tests, keep every outcome.

    Args:
        task: the task (its test patch and test ids).
        patch: the patch to test (``""`` tests the base commit).
        base: the task's prepared base checkout.
        workspace: the grading workspace (wiped first).
        sandbox: a sandbox bound to ``workspace`` that shows `PLUGIN_DIR`.
        paths: the test files (or folders) to run, default ``task.test_files``; the
            task validator runs the test patch's files too, to find every test.
        timeout: bounds the test run (default: the sandbox's wall limit).
        standin: run the tests against an always-equal stand-in of every module of the
            repository that is not a test file (the task validator's check that the
            tests cannot be passed by an object whose ``__eq__`` is always true).

    """

    def trial(applied: bool, problem: str, log: str, reverted: Collection[str] = ()) -> Trial:
        return Trial(applied, {}, tuple(reverted), f"TURNGYM: {problem}\n{log}"[-20_000:], problem)

    workspace.reset(base)
    folder = Folder(workspace.root)
    folder.write_text(f".git/{_MODEL}", patch)
    folder.write_text(f".git/{_TESTS}", task.test_patch)

    # 1. the agent's patch, and what it changed
    changed_file = f".git/turngym-changed-{secrets.token_hex(8)}"
    apply = _apply(_MODEL, _APPLY_FAILED, 3) if patch.strip() else "true"
    result = sandbox.run(f"{apply} && {_changed(base, changed_file)}")
    if _APPLY_FAILED in result.output or result.returncode != 0:
        why = "the patch does not apply" if _APPLY_FAILED in result.output else "git failed"
        return trial(False, why, result.output)
    patched = _patched_files(task.test_patch)
    tests_touched = {*task.test_files, *patched}
    top = _base_names(base)

    def put_back(path: str) -> bool:
        return is_test_infrastructure(path, tests_touched, top) or _in_the_way(path, patched)

    try:
        changed = _read_list(folder, changed_file)
    except PathRefused as refused:
        return trial(True, f"the changed files could not be listed: {refused}", "")
    reverted = sorted(p for p in changed if put_back(p))

    # 2. the test infrastructure as it was (what is in the way gone first), then the hidden tests
    files = _files_at_base(base)
    restore = [p for p in reverted if p in files]
    remove = sorted({_removal(p, top) for p in reverted if p not in files})
    folder.write_bytes(".git/turngym-restore", _nul_list(restore))
    folder.write_bytes(".git/turngym-remove", _nul_list(remove))
    again = f".git/turngym-changed-{secrets.token_hex(8)}"
    steps = [
        "xargs -0 -r rm -rf -- < .git/turngym-remove",
        f"{_GIT} checkout -q {base.commit} --pathspec-from-file=.git/turngym-restore "
        "--pathspec-file-nul"
        if restore
        else "true",
        _changed(base, again),  # read before any code of the patch's runs
        _apply(_TESTS, _TEST_PATCH_FAILED, 4) if task.test_patch.strip() else "true",
    ]
    result = sandbox.run(" && ".join(steps), env={"GIT_LITERAL_PATHSPECS": "1"})
    try:
        left = [p for p in _read_list(folder, again) if put_back(p)]
    except PathRefused as refused:
        left = [f"(the list could not be read: {refused})"]
    if _TEST_PATCH_FAILED in result.output:
        why = _first_error(result.output)
        problem = "the hidden tests' patch does not apply" + (f" ({why})" if why else "")
        return trial(True, problem, result.output, reverted)
    if result.returncode != 0 or left:
        problem = f"the test infrastructure could not be put back: {left}"
        return trial(True, problem, result.output, reverted)

    # 3. the constants of the tests' assertions kept here, then the tests in the harness
    expectations = Expectations()
    for path in sorted(p for p in tests_touched if p.endswith(".py")):
        if folder.kind(path) != "file":
            continue
        try:
            text = folder.read_text(path, _MAX_TEST_FILE)
            stripped = strip_expectations(text, path, expectations)
            if stripped != text:
                folder.write_text(path, stripped)
        except (PathRefused, UnicodeDecodeError) as refused:
            return trial(True, f"a test file could not be read: {refused}", "", reverted)
    run = task.test_files if paths is None else paths
    tests, log = _run_tests(task, sandbox, timeout, run, expectations, standin)
    unjudged = expectations.unjudged_tests(tests)
    return Trial(True, tests, tuple(reverted), log[-20_000:], unjudged=unjudged)


def _first_error(output: str) -> str:
    """The first ``error:`` line of git in ``output``, shortened (for a one-line message)."""
    for line in output.splitlines():
        if line.startswith("error:"):
            line = line.removeprefix("error:").strip()
            return line if len(line) <= 200 else line[:197] + "..."
    return ""


def _apply(name: str, failure: str, status: int) -> str:
    # The grading copy is turngym's own, but the sandbox may run as another user.
    fail = f"{{ echo '{failure}'; exit {status}; }}"
    return f"{{ {_GIT} apply --whitespace=nowarn .git/{name} || {fail}; }}"


def _changed(base: Base, into: str) -> str:
    """A shell step listing every path that differs from the base commit (NUL-separated)."""
    return (
        f"{_GIT} add -A --force >/dev/null && "
        f"{_GIT} diff --cached --name-only -z --no-renames {base.commit} > {into}"
    )


def _read_list(folder: Folder, name: str) -> list[str]:
    data = folder.read_bytes(name, _MAX_LIST)
    return [os.fsdecode(p) for p in data.split(b"\0") if p]


def _nul_list(paths: Iterable[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)


def _removal(path: str, base_top: Collection[str]) -> str:
    """What to delete to undo ``path``: the whole new top-level entry if it shadows a module."""
    top = path.split("/", 1)[0]
    if top not in base_top and top.split(".", 1)[0] in _shadowed():
        return top
    return path


def _patched_files(patch: str) -> list[str]:
    """The files a unified diff touches (both sides of a rename)."""
    found = re.findall(r"^(?:\+\+\+ b/|--- a/)(.+?)\s*$", patch, re.MULTILINE)
    return [p for p in found if p != "/dev/null"]


@lru_cache(maxsize=64)
def _files_at_base(base: Base) -> frozenset[str]:
    listed = git(["ls-tree", "-r", "-z", "--name-only", base.commit], base.path)
    return frozenset(p for p in listed.split("\0") if p)


def _base_names(base: Base) -> frozenset[str]:
    return frozenset(p.split("/", 1)[0] for p in _files_at_base(base))


def _run_tests(
    task: SWETask,
    sandbox: Sandbox,
    timeout: float | None,
    paths: Sequence[str],
    expectations: Expectations,
    standin: bool = False,
) -> tuple[dict[str, str], str]:
    """Run ``paths`` in the grading harness; (each test id's outcome, the output's tail).

    A test pytest passed whose observed values do not hold (`judge`) is ``FAILED``.
    """
    key = secrets.token_bytes(32)
    try:
        command = harness_command(task.test_cmd, paths)
    except ValueError as refused:
        return {}, f"TURNGYM: {refused}"
    env = dict(_TEST_ENV)
    if standin:
        env["TURNGYM_GRADE_STANDIN"] = "1"
    records = bytearray()
    if "pass_fds" in _parameters(sandbox.run):
        read, write = os.pipe()
        reader = threading.Thread(target=_drain, args=(read, records), daemon=True)
        reader.start()
        try:
            env["TURNGYM_GRADE_FD"] = str(write)
            result = sandbox.run(  # type: ignore[call-arg]
                command, timeout=timeout, stdin=key.hex() + "\n", env=env, pass_fds=(write,)
            )
        finally:
            os.close(write)  # the sandbox's processes are gone: the reader sees the end
            reader.join()
    else:  # e.g. Docker: the signed lines travel with the output (a flood loses, never forges)
        env["TURNGYM_GRADE_FD"] = "1"
        result = sandbox.run(command, timeout=timeout, stdin=key.hex() + "\n", env=env)
        records += result.output.encode("utf-8", "surrogateescape")
    tests, observations = _verified(bytes(records), key)
    log = "\n".join(line for line in result.output.splitlines() if not line.startswith("TURNGYM1 "))
    for test, why in judge(expectations, observations, list(tests)).items():
        if why and tests[test] == _PASSED:
            tests[test] = "FAILED"
            log += f"\nTURNGYM: {test} failed the grader's checks: {why}"
    if result.timed_out:
        log += "\nTURNGYM: the tests ran out of time"
    if not tests:
        log += "\nTURNGYM: no signed outcome came back (is the test command pytest?)"
    return tests, log


def harness_command(test_cmd: str, paths: Sequence[str]) -> str:
    """The shell command running ``test_cmd``'s pytest on ``paths`` in the grading harness.

    ``python -m pytest ARGS`` or ``pytest ARGS`` (after ``NAME=value`` words) becomes
    ``python -I .../turngym_grade.py ARGS``: the harness is run by its path, so nothing in
    the repository can stand in for it.

    >>> harness_command("python -m pytest -q", ["tests/test_a.py"]).split()[1:2]
    ['-I']
    >>> harness_command("make test", [])
    Traceback (most recent call last):
    ...
    ValueError: the test command 'make test' does not run pytest (python -m pytest or pytest)

    """
    words = shlex.split(test_cmd) or [""]
    assigned = []
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        assigned.append(words.pop(0))
    if words[:1] in (["pytest"], ["py.test"]):
        python, rest = "python", words[1:]
    elif _PYTHON.fullmatch(posixpath.basename(words[0])) and words[1:3] == ["-m", "pytest"]:
        python, rest = words[0], words[3:]
    else:
        raise ValueError(
            f"the test command {test_cmd!r} does not run pytest (python -m pytest or pytest)"
        )
    command = [python, "-I", str(HARNESS), *rest, *paths]
    if assigned:
        command = ["env", *assigned, *command]
    return " ".join(shlex.quote(word) for word in command)


def _parameters(fn: object) -> Collection[str]:
    import inspect

    try:
        return inspect.signature(fn).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ()


def _drain(fd: int, into: bytearray) -> None:
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while chunk := pipe.read(1 << 16):
            if len(into) < _MAX_RECORDS:
                into += chunk


def _verified(records: bytes, key: bytes) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The outcomes (the worst if repeated) and observations in the lines signed with ``key``."""
    outcomes: dict[str, str] = {}
    observations: list[dict[str, Any]] = []
    for line in records.split(b"\n"):
        marker, _, rest = line.partition(b" ")
        mac, _, payload = rest.partition(b" ")
        if marker != b"TURNGYM1" or not payload:
            continue
        expected = hmac.new(key, payload, sha256).hexdigest().encode()
        if not hmac.compare_digest(mac, expected):
            continue
        try:
            record = json.loads(payload)
            if not isinstance(record, dict):
                continue
            if "site" in record:
                observations.append(record)
                continue
            test, word = str(record["id"]), _WORDS.get(str(record["outcome"]), "ERROR")
        except (ValueError, KeyError, TypeError, RecursionError):
            continue
        old = outcomes.get(test)
        if old is None or _BAD.get(word, 9) > _BAD.get(old, 9):
            outcomes[test] = word
    return outcomes, observations


def _fraction(outcomes: Mapping[str, str], tests: tuple[str, ...]) -> float:
    if not tests:
        return 1.0
    return sum(outcomes[t] == _PASSED for t in tests) / len(tests)

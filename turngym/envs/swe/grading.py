"""Grading a patch the SWE-bench way: apply it to a fresh copy, add the hidden tests, run them.

``grade`` takes the agent's patch (a unified diff of its workspace against the base
commit), copies the base checkout into a grading workspace, applies the patch and then
the task's ``test_patch`` with ``git apply`` inside the sandbox, runs the test files of
``FAIL_TO_PASS`` and ``PASS_TO_PASS`` with the task's ``test_cmd``, and reads each
test's outcome from the log (``parse_pytest_log``). The task is ``resolved`` when the
patch applies and every one of those tests passes. ``reward_parts`` splits the outcome
for shaped or gated rewards (``wrappers.GatedReward``): ``f2p`` (fraction of
FAIL_TO_PASS passing), ``p2p`` (fraction of PASS_TO_PASS still passing), ``applies``
and ``submitted``.
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from turngym.envs.swe.sandbox import Sandbox
from turngym.envs.swe.tasks import SWETask
from turngym.envs.swe.workspace import Base, Workspace, read_private

__all__ = ["Grade", "grade", "parse_pytest_log"]

_OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)\s+(\S+?)(?:\s+-\s.*)?$")
_PASSING = frozenset({"PASSED", "XFAIL"})
_LOG, _MODEL, _TESTS = "turngym-test.log", "turngym-model.patch", "turngym-tests.patch"
_APPLY_FAILED = "TURNGYM: the patch does not apply"
_TEST_PATCH_FAILED = "TURNGYM: the test patch does not apply"
# Tests run without plugins from the host's site-packages: faster, and the same
# outcomes whichever pytest plugins the machine has installed.
_TEST_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def parse_pytest_log(log: str) -> dict[str, str]:
    r"""Each test id's outcome (``PASSED``, ``FAILED``, ``ERROR``, ...) in a ``pytest -rA`` log.

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
        resolved: the patch applies and every FAIL_TO_PASS and PASS_TO_PASS test passes.
        applied: the patch applies to the base commit (an empty patch does).
        tests: each graded test id's outcome (``PASSED``, ``FAILED``, ``MISSING``, ...).
        reward_parts: ``f2p``, ``p2p``, ``applies``, ``submitted`` in [0, 1].
        log: the tail of the test log (or why nothing ran).
        seconds: how long grading took.

    """

    resolved: bool
    applied: bool
    tests: Mapping[str, str] = field(default_factory=dict)
    reward_parts: Mapping[str, float] = field(default_factory=dict)
    log: str = ""
    seconds: float = 0.0


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

    ``sandbox`` must be bound to ``workspace``; ``timeout`` bounds the whole run
    (default: the sandbox's wall limit).
    """
    start = time.perf_counter()
    workspace.reset(base)
    workspace.private(_MODEL).write_text(patch)
    workspace.private(_TESTS).write_text(task.test_patch)
    files = " ".join(shlex.quote(f) for f in task.test_files)
    script = "; ".join(
        [
            _apply(_MODEL, _APPLY_FAILED, 3) if patch.strip() else "true",
            _apply(_TESTS, _TEST_PATCH_FAILED, 4) if task.test_patch.strip() else "true",
            f"{task.test_cmd} {files} > .git/{_LOG} 2>&1",
            "exit 0",
        ]
    )
    result = sandbox.run(script, timeout=timeout, env=_TEST_ENV)
    log, _ = read_private(workspace.private(_LOG), 1_000_000, tail=True)
    applied = _APPLY_FAILED not in result.output
    outcomes = parse_pytest_log(log) if applied else {}
    tests = {t: outcomes.get(t, "MISSING") for t in (*task.fail_to_pass, *task.pass_to_pass)}
    f2p = _fraction(tests, task.fail_to_pass)
    p2p = _fraction(tests, task.pass_to_pass)
    resolved = applied and f2p == 1.0 and p2p == 1.0 and _TEST_PATCH_FAILED not in result.output
    if result.timed_out:
        log += "\nTURNGYM: the tests ran out of time"
    return Grade(
        resolved=resolved,
        applied=applied,
        tests=tests,
        reward_parts={
            "f2p": f2p,
            "p2p": p2p,
            "applies": float(applied),
            "submitted": float(submitted),
        },
        log=(log or result.output)[-20_000:],
        seconds=time.perf_counter() - start,
    )


def _apply(name: str, failure: str, status: int) -> str:
    # The grading copy is turngym's own, but the sandbox may run as another user.
    git = "git -c safe.directory='*' apply --whitespace=nowarn"
    return f"{git} .git/{name} || {{ echo '{failure}'; exit {status}; }}"


def _fraction(outcomes: Mapping[str, str], tests: tuple[str, ...]) -> float:
    if not tests:
        return 1.0
    return sum(outcomes[t] in _PASSING for t in tests) / len(tests)

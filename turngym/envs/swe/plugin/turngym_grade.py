"""turngym's grading plugin for pytest: each test's outcome, signed, on the grader's own pipe.

The SWE grader (``turngym.envs.swe.grading``) runs a task's tests with ``-p
turngym_grade``, this folder on ``PYTHONPATH``, a fresh key on standard input and a pipe
at the file descriptor named by ``TURNGYM_GRADE_FD``. This module is imported before
any code of the repository under test (``-p`` plugins load before conftest files and
test modules), so at import it:

- reads the key from standard input and drops ``TURNGYM_GRADE_FD`` from the environment;
- remembers which functions run pytest's tests and make its reports (and their code).

For each test it sees the setup, call and teardown phases from hook wrappers of its own
(outermost, so a plugin or conftest of the repository cannot hide an exception from
them), and pytest's own reports of the three phases. A test ``passed`` only if every
phase ran without an exception and every report says passed (an ``xfail``, a skip or a
missing phase is not a pass). If pytest's machinery was replaced since import, the
outcome is ``tampered``. One line per test goes to the pipe: ``TURNGYM1 <hmac> <json>``,
its HMAC-SHA256 made with the key, so code under test that writes to the pipe cannot
forge a line. Nothing is printed and no file is written.

This file must import nothing of turngym: it runs with whatever Python the repository's
tests use (any Python >= 3.7 and pytest >= 6).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
from collections.abc import Generator
from typing import Any

import pytest

_write = os.write
_digest = hmac.new
_sha256 = hashlib.sha256
_dumps = json.dumps


def _read_key() -> bytes:
    data = b""
    while not data.endswith(b"\n") and len(data) < 256:
        try:
            chunk = os.read(0, 256)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    try:
        return bytes.fromhex(data.decode("ascii").strip())
    except ValueError:
        return b""


# Imported any other way (a doctest run over turngym's sources), it does nothing at all.
_GRADING = "TURNGYM_GRADE_FD" in os.environ
_KEY = _read_key() if _GRADING else b""
try:
    # A copy of the pipe (or of stdout) made now, before pytest's capture points fd 1
    # and 2 elsewhere: what is written to it reaches the grader whatever the capture does.
    _FD = os.dup(int(os.environ.pop("TURNGYM_GRADE_FD", "")))
except (ValueError, OSError):
    _FD = -1


def _watched() -> dict[str, Any]:
    """The objects that decide and report a test's outcome, as imported now."""
    import _pytest.python
    import _pytest.reports
    import _pytest.runner
    import pluggy._callers
    import pluggy._hooks

    found = {
        "runtestprotocol": _pytest.runner.runtestprotocol,
        "call_and_report": _pytest.runner.call_and_report,
        "call_runtest_hook": getattr(_pytest.runner, "call_runtest_hook", None),
        "CallInfo.from_call": _pytest.runner.CallInfo.__dict__.get("from_call"),
        "runner.pytest_runtest_setup": _pytest.runner.pytest_runtest_setup,
        "runner.pytest_runtest_call": _pytest.runner.pytest_runtest_call,
        "runner.pytest_runtest_teardown": _pytest.runner.pytest_runtest_teardown,
        "runner.pytest_runtest_makereport": _pytest.runner.pytest_runtest_makereport,
        "Function.runtest": _pytest.python.Function.__dict__.get("runtest"),
        "Function.setup": _pytest.python.Function.__dict__.get("setup"),
        "pytest_pyfunc_call": _pytest.python.pytest_pyfunc_call,
        "TestReport.from_item_and_call": _pytest.reports.TestReport.__dict__.get(
            "from_item_and_call"
        ),
        "TestReport.outcome": _pytest.reports.TestReport.__dict__.get("outcome"),
        "multicall": pluggy._callers._multicall,
        "HookCaller.__call__": pluggy._hooks.HookCaller.__dict__.get("__call__"),
        "this.record": globals().get("_record"),
        "this.phase": globals().get("_phase"),
        "this.wrappers": tuple(
            globals().get(name)
            for name in (
                "pytest_runtest_protocol",
                "pytest_runtest_setup",
                "pytest_runtest_call",
                "pytest_runtest_teardown",
                "pytest_runtest_logreport",
            )
        ),
    }
    return {name: _fingerprint(value) for name, value in found.items()}


def _fingerprint(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_fingerprint(v) for v in value)
    func = getattr(value, "__func__", value)
    code = getattr(func, "__code__", None)
    return (id(value), id(func), id(code), code.co_code if code is not None else None)


_phases: dict[
    str, dict[str, bool]
] = {}  # nodeid -> {"setup": bool, "call": bool, "teardown": bool}
_reports: dict[
    str, dict[str, str]
] = {}  # nodeid -> {"setup": outcome, "call": outcome, "teardown": outcome}
_state: dict[str, Any] = {"seq": 0, "snapshot": None}


def _record(nodeid: str, outcome: str) -> None:
    payload = _dumps({"seq": _state["seq"], "id": nodeid, "outcome": outcome}).encode()
    _state["seq"] += 1
    mac = _digest(_KEY, payload, _sha256).hexdigest().encode()
    # On its own line even where it shares a stream with pytest's dots (no pipe: Docker)
    line = b"\nTURNGYM1 " + mac + b" " + payload + b"\n"
    try:
        while line:
            line = line[_write(_FD, line) :]
    except OSError:
        pass


def _phase(item: Any, name: str) -> Generator[None, Any, None]:
    outcome = yield
    ok = outcome.excinfo is None
    _phases.setdefault(item.nodeid, {})[name] = ok


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_setup(item: Any) -> Generator[None, Any, None]:
    """Note whether the setup phase raised."""
    yield from _phase(item, "setup")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_call(item: Any) -> Generator[None, Any, None]:
    """Note whether the test itself raised."""
    yield from _phase(item, "call")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: Any) -> Generator[None, Any, None]:
    """Note whether the teardown phase raised."""
    yield from _phase(item, "teardown")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: Any) -> None:
    """Record pytest's own view of each phase (an xfail or a skip is not a pass)."""
    outcome = report.outcome
    if hasattr(report, "wasxfail"):
        outcome = "xfailed" if outcome == "skipped" else "xpassed"
    _reports.setdefault(report.nodeid, {})[report.when] = outcome


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Generator[None, Any, None]:
    """Run the test, then send its outcome."""
    _phases.pop(item.nodeid, None)
    _reports.pop(item.nodeid, None)
    yield
    phases = _phases.pop(item.nodeid, {})
    reports = _reports.pop(item.nodeid, {})
    name = item.config.cwd_relative_nodeid(item.nodeid)
    if _watched() != _state["snapshot"]:
        _record(name, "tampered")
        return
    outcome = "passed"
    for when in ("setup", "call", "teardown"):
        seen = reports.get(when)
        if seen is None or when not in phases:
            outcome = "error" if when != "call" and seen is not None else "missing"
            break
        if seen != "passed" or not phases[when]:
            outcome = seen if seen != "passed" else "failed"
            if when != "call" and outcome == "failed":
                outcome = "error"
            break
    _record(name, outcome)


_state["snapshot"] = _watched()
if _GRADING and (not _KEY or _FD < 0):
    sys.stderr.write("turngym_grade: no key or no pipe; no outcome will be sent\n")

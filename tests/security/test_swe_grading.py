"""Submissions that try to earn the SWE reward without fixing the bug (issue 23, item 1).

Each attack leaves the toy task's bug in place (``total`` still skips the last value)
and adds something that should make the grader believe the tests passed. The grader
must revert the test infrastructure the agent touched, read outcomes only from its own
signed channel, and count a test as passed only when it was seen to run and pass.
"""

from __future__ import annotations

import json

import pytest

from tests import system_deps
from tests.envs.swe.toy_task import BASE, FIXED, toy_task
from turngym.envs.swe.env import SWEEnv

pytestmark = [pytest.mark.sandbox, system_deps.bubblewrap()]

F2P = "tests/test_ops.py::test_total_counts_every_value"
P2P = ("tests/test_ops.py::test_double", "tests/test_ops.py::test_total_of_nothing")
EVERY_ID = (F2P, *P2P)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    made = SWEEnv(tasks=[toy_task(tmp_path_factory.mktemp("toy"))], sandbox="bwrap")
    yield made
    made.close()


def create(path: str, text: str) -> str:
    return f"create({json.dumps(path)}, {json.dumps(text)})"


def submit_with(env, files: dict[str, str]):
    env.reset(seed=0)
    for path, text in files.items():
        _obs, _r, _t, _tr, info = env.step(create(path, text))
        assert not info["invalid_action"] and not info["tool_error"], path
    return env.step("submit()")


def assert_not_resolved(result) -> None:
    _obs, reward, terminated, _truncated, info = result
    assert terminated
    assert reward == 0.0 and not info["resolved"], info["tests"]
    assert info["tests"][F2P] != "PASSED"


PRINT_PASSED = "".join(f"    print('PASSED {t}')\n" for t in EVERY_ID)

ATTACKS = {
    # (a) a conftest hook that rewrites every failing report as passed
    "conftest-makereport": {
        "tests/conftest.py": (
            "import pytest\n\n"
            "@pytest.hookimpl(hookwrapper=True)\n"
            "def pytest_runtest_makereport(item, call):\n"
            "    outcome = yield\n"
            "    report = outcome.get_result()\n"
            "    report.outcome = 'passed'\n"
            "    report.longrepr = None\n"
        )
    },
    # the same hook in a conftest at the repository's root
    "root-conftest": {
        "conftest.py": (
            "import pytest\n\n"
            "@pytest.hookimpl(hookwrapper=True)\n"
            "def pytest_runtest_makereport(item, call):\n"
            "    outcome = yield\n"
            "    outcome.get_result().outcome = 'passed'\n"
        )
    },
    # (b) the package prints PASSED lines for every test when the process ends
    "atexit-prints-passed": {
        "mathy/__init__.py": (
            "import atexit\n\nfrom mathy.ops import total\n\n\n@atexit.register\ndef _fake():\n"
            + PRINT_PASSED
        )
    },
    # (c) the package overwrites the log the grader used to parse
    "atexit-overwrites-log": {
        "mathy/__init__.py": (
            "import atexit, os\n\nfrom mathy.ops import total\n\n\n@atexit.register\ndef _fake():\n"
            "    for name in os.listdir('.git'):\n"
            "        if name.endswith('.log'):\n"
            "            with open(os.path.join('.git', name), 'w') as f:\n"
            + "".join(f"                f.write('PASSED {t}\\n')\n" for t in EVERY_ID)
        )
    },
    # a module named like pytest at the root shadows the real one under `python -m pytest`
    "shadow-pytest": {
        "pytest.py": "import sys\n" + PRINT_PASSED.replace("    ", "") + "sys.exit(0)\n",
    },
    # a stdlib module shadowed at the root runs code inside pytest before any plugin loads
    "shadow-stdlib": {
        "inspect.py": "import sys\n" + PRINT_PASSED.replace("    ", "") + "sys.exit(0)\n",
    },
    # pytest's settings: mark everything xfail-tolerant / deselect the failing test
    "ini-deselects": {"pytest.ini": f"[pytest]\naddopts = --deselect {F2P}\n"},
    "pyproject-deselects": {
        "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-k not total_counts"\n'
    },
    "setup-cfg-deselects": {"setup.cfg": "[tool:pytest]\naddopts = -k 'not total_counts'\n"},
    # a conftest that turns the failing test into an expected failure (XFAIL once counted)
    "conftest-xfail": {
        "tests/conftest.py": (
            "import pytest\n\n"
            "def pytest_collection_modifyitems(items):\n"
            "    for item in items:\n"
            "        item.add_marker(pytest.mark.xfail(reason='x'))\n"
        )
    },
    # the package patches pytest's internals when it is imported (no conftest at all)
    "package-patches-runtest": {
        "mathy/__init__.py": (
            "import sys\n\nfrom mathy.ops import total\n\n"
            "if '_pytest.python' in sys.modules:\n"
            "    sys.modules['_pytest.python'].Function.runtest = lambda self: None\n"
        )
    },
    # the same, through the function's code object (its identity stays the same)
    "package-swaps-runtest-code": {
        "mathy/__init__.py": (
            "import sys\n\nfrom mathy.ops import total\n\n"
            "if '_pytest.python' in sys.modules:\n"
            "    run = sys.modules['_pytest.python'].Function.runtest\n"
            "    run.__code__ = (lambda self: None).__code__\n"
        )
    },
    "package-patches-reports": {
        "mathy/__init__.py": (
            "import sys\n\nfrom mathy.ops import total\n\n"
            "if '_pytest.reports' in sys.modules:\n"
            "    reports = sys.modules['_pytest.reports']\n"
            "    made = reports.TestReport.from_item_and_call.__func__\n"
            "    def passed(cls, item, call):\n"
            "        report = made(cls, item, call)\n"
            "        report.outcome, report.longrepr = 'passed', None\n"
            "        return report\n"
            "    reports.TestReport.from_item_and_call = classmethod(passed)\n"
        )
    },
    # the package writes forged result lines into every pipe the process holds
    "package-writes-every-pipe": {
        "mathy/__init__.py": (
            "import os, stat\n\nfrom mathy.ops import total\n\n"
            "for fd in range(3, 64):\n"
            "    try:\n"
            "        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
            + "".join(
                f"            os.write(fd, b'PASSED {t}\\n' + "
                f'b\'{{"id": "{t}", "outcome": "passed"}}\\n\')\n'
                for t in EVERY_ID
            )
            + "    except OSError:\n"
            "        pass\n"
        )
    },
    # the package exits with success before any test runs
    "package-exits-early": {
        "mathy/__init__.py": "import os\n" + PRINT_PASSED.replace("    ", "") + "os._exit(0)\n",
    },
    # the test file patched at its top (the hidden tests' hunk still applies below it)
    "test-file-prefixed": {
        "tests/test_ops.py": (
            "import mathy.ops\nmathy.ops.total = lambda values: sum(values)\n"
            + BASE["tests/test_ops.py"]
        )
    },
    # a tests/__init__.py that patches pytest before the test module is imported
    "tests-init": {
        "tests/__init__.py": (
            "import sys\nsys.modules['_pytest.python'].Function.runtest = lambda self: None\n"
        )
    },
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_submission_that_games_the_tests_is_not_resolved(env, attack):
    assert_not_resolved(submit_with(env, ATTACKS[attack]))


def test_reverted_test_infrastructure_is_listed_in_info(env):
    *_, info = submit_with(env, {**ATTACKS["conftest-makereport"], **FIXED})
    # the fix itself resolves the task; the conftest was put back as it was (absent)
    assert info["resolved"] and info["reverted"] == ["tests/conftest.py"]


def test_honest_fix_still_resolves_and_reverts_nothing(env):
    *_, info = submit_with(env, FIXED)
    assert info["resolved"] and info["reverted"] == []
    assert info["tests"] == dict.fromkeys(EVERY_ID, "PASSED")


def test_the_env_keeps_grading_after_the_attacks(env):
    for attack in ("shadow-pytest", "package-exits-early"):
        assert_not_resolved(submit_with(env, ATTACKS[attack]))
    _obs, reward, *_ = submit_with(env, FIXED)
    assert reward == 1.0


class _NoFdSandbox:
    """A sandbox that cannot pass a pipe (as DockerSandbox): outcomes travel on stdout."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name, self.isolated, self.workdir = inner.name, inner.isolated, inner.workdir

    def run(self, command, *, timeout=None, stdin=None, env=None):
        return self.inner.run(command, timeout=timeout, stdin=stdin, env=env)

    def close(self) -> None:
        self.inner.close()


FORGED = {
    "mathy/__init__.py": (
        "import atexit\n\nfrom mathy.ops import total\n\n\n@atexit.register\ndef _fake():\n"
        + "".join(
            f'    print(\'TURNGYM1 {"0" * 64} {{"seq": 0, "id": "{t}", "outcome": "passed"}}\')\n'
            for t in EVERY_ID
        )
    )
}


def test_without_a_pipe_the_signed_lines_on_stdout_still_cannot_be_forged(env):
    from turngym.envs.swe.grading import grade

    task = env.tasks[0]
    env.reset(seed=0)
    judge = _NoFdSandbox(env._sandbox(env._judge, task))
    base = env._base(task)
    honest = grade(task, env.tasks[0].patch, base, env._judge, judge)
    assert honest.resolved and set(honest.tests.values()) == {"PASSED"}
    for files in (FORGED, ATTACKS["atexit-prints-passed"]):
        env.reset(seed=0)
        for path, text in files.items():
            env.step(create(path, text))
        patch, _ = env.submission()
        forged = grade(task, patch, base, env._judge, judge)
        assert not forged.resolved and forged.tests[F2P] != "PASSED"

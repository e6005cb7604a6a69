"""Every bundled SWE task checks out: its tests fail before the reference fix and pass after.

Each task folder under ``turngym/envs/swe/tasks/data`` holds the base repo, ``task.toml``,
``fix.patch`` and ``tests.patch`` (the folder's README.md describes the format). The
repos' test suites run in temporary copies, two tasks at a time.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

import pytest

# tomllib is 3.11+; on 3.10 its backport tomli reads task.toml the same way.
tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")

DATA = Path(__file__).resolve().parents[3] / "turngym" / "envs" / "swe" / "tasks" / "data"
TASK_DIRS = sorted(p for p in DATA.iterdir() if p.is_dir()) if DATA.is_dir() else []
KINDS = {"off-by-one", "wrong-branch", "edge-case", "api-misuse", "two-files"}
TEST_CMD = "python -m pytest -q -rA -p no:cacheprovider"
FULL_SET = 22
# `pytest -rA` summary lines: "PASSED tests/x.py::test_y", "FAILED tests/x.py::test_z - ...".
OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)", re.MULTILINE)
# The last line's own timing, "7 passed in 0.08s".
SESSION_TIME = re.compile(r" in (\d+(?:\.\d+)?)s")


def load(task_dir: Path) -> dict[str, Any]:
    with open(task_dir / "task.toml", "rb") as f:
        return tomllib.load(f)


def patched_files(patch: str) -> list[str]:
    return re.findall(r"^diff --git a/(\S+) b/", patch, re.MULTILINE)


def is_test_file(path: str) -> bool:
    return path.startswith("tests/")


@dataclass
class Runs:
    """Per-test outcomes of a task's three pytest runs, and their times (wall, pytest's own)."""

    base: dict[str, str] = field(default_factory=dict)
    with_tests: dict[str, str] = field(default_factory=dict)
    with_fix: dict[str, str] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    session_seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _pytest(repo: Path, node_ids: list[str], runs: Runs) -> dict[str, str]:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    # The task's own command, with this interpreter (so pytest is importable) and the ids.
    cmd = [sys.executable, *TEST_CMD.split()[1:], *node_ids]
    start = time.perf_counter()
    try:
        out = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        runs.errors.append(f"pytest {' '.join(node_ids)} ran over 120 s")
        return {}
    runs.seconds.append(time.perf_counter() - start)
    runs.session_seconds += [float(s) for s in SESSION_TIME.findall(out.stdout)[-1:]]
    return {node: outcome for outcome, node in OUTCOME.findall(out.stdout)}


def _apply(repo: Path, patch: Path, runs: Runs) -> None:
    out = subprocess.run(
        ["git", "apply", str(patch)], cwd=repo, capture_output=True, text=True, check=False
    )
    if out.returncode:
        runs.errors.append(f"git apply {patch.name}: {out.stderr.strip()}")


def run_task(task_dir: Path) -> Runs:
    """Run the base repo, then with tests.patch, then with fix.patch too."""
    task = load(task_dir)
    runs = Runs()
    ids = [*task["FAIL_TO_PASS"], *task["PASS_TO_PASS"]]
    with tempfile.TemporaryDirectory(prefix="turngym-swe-") as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(task_dir / "repo", repo)
        # A repo of its own so `git apply` resolves paths from here, whatever encloses tmp.
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        runs.base = _pytest(repo, task["PASS_TO_PASS"], runs)
        _apply(repo, task_dir / "tests.patch", runs)
        runs.with_tests = _pytest(repo, ids, runs)
        _apply(repo, task_dir / "fix.patch", runs)
        runs.with_fix = _pytest(repo, ids, runs)
    return runs


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest) -> dict[str, Runs]:
    """Run the selected tasks (all, unless ``-k`` picks some), two at a time."""
    selected = [
        item.callspec.params["task_dir"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_tests_fail_before_and_pass_after_the_fix"
    ]
    # Two workers: the machine is shared, and each run is mostly interpreter start-up.
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip((d.name for d in selected), pool.map(run_task, selected), strict=True))
    wall = [t for r in results.values() for t in r.seconds]
    own = [t for r in results.values() for t in r.session_seconds]
    if wall and own:
        line = (
            f"{len(wall)} pytest runs of {len(results)} task repos: median {median(wall):.2f}s "
            f"wall (start-up included), {median(own):.2f}s in the tests (max {max(own):.2f}s)"
        )
        # Past output capture, so the timing shows without -s.
        capture = request.config.pluginmanager.get_plugin("capturemanager")
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            print("\n" + line)
    return results


def _ids(task_dir: Path) -> str:
    return task_dir.name


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=_ids)
def test_task_metadata(task_dir: Path):
    task = load(task_dir)
    assert task["instance_id"] == task_dir.name
    assert task["repo"] == "turngym/" + task_dir.name.removeprefix("turngym__").rsplit("-", 1)[0]
    assert task["kind"] in KINDS, f"kind {task['kind']!r} is not one of {sorted(KINDS)}"
    assert isinstance(task["difficulty"], int) and 1 <= task["difficulty"] <= 5
    assert task["test_cmd"] == TEST_CMD
    assert task["problem_statement"].strip()
    assert 1 <= len(task["FAIL_TO_PASS"]) <= 3
    assert len(task["PASS_TO_PASS"]) >= 3
    assert not set(task["FAIL_TO_PASS"]) & set(task["PASS_TO_PASS"])
    assert (task_dir / "repo" / "tests").is_dir()


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=_ids)
def test_patches_touch_the_right_files(task_dir: Path):
    task = load(task_dir)
    fixed = patched_files((task_dir / "fix.patch").read_text())
    tests_patch = (task_dir / "tests.patch").read_text()
    tested = patched_files(tests_patch)
    assert fixed and tested
    assert not [p for p in fixed if is_test_file(p)], f"fix.patch touches tests: {fixed}"
    assert all(is_test_file(p) for p in tested), f"tests.patch touches non-tests: {tested}"
    if task["kind"] == "two-files":
        assert len(set(fixed)) >= 2, f"a two-files fix touches {fixed}"
    # FAIL_TO_PASS tests are new: tests.patch adds their functions.
    added = "\n".join(line for line in tests_patch.splitlines() if line.startswith("+"))
    for node in task["FAIL_TO_PASS"]:
        name = node.rsplit("::", 1)[-1].split("[")[0]
        assert re.search(rf"^\+\s*(async )?def {name}\(", added, re.MULTILINE), (
            f"{node} is not added by tests.patch"
        )


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=_ids)
def test_problem_statement_does_not_give_the_fix_away(task_dir: Path):
    statement = load(task_dir)["problem_statement"]
    added = [
        line[1:].strip()
        for line in (task_dir / "fix.patch").read_text().splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    # Short lines ("else:", "return x") may legitimately appear in a bug report.
    leaked = [line for line in added if len(line) >= 10 and line in statement]
    assert not leaked, f"the problem statement quotes the fix: {leaked}"


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=_ids)
def test_tests_fail_before_and_pass_after_the_fix(task_dir: Path, runs: dict[str, Runs]):
    task, result = load(task_dir), runs[task_dir.name]
    assert not result.errors, result.errors
    f2p, p2p = task["FAIL_TO_PASS"], task["PASS_TO_PASS"]
    bad_base = {t: result.base.get(t, "missing") for t in p2p if result.base.get(t) != "PASSED"}
    assert not bad_base, f"PASS_TO_PASS on the base repo: {bad_base}"
    still_passing = {t: result.with_tests.get(t, "missing") for t in f2p}
    still_passing = {t: o for t, o in still_passing.items() if o not in ("FAILED", "ERROR")}
    assert not still_passing, f"FAIL_TO_PASS before the fix: {still_passing}"
    broken = {t: result.with_tests.get(t, "missing") for t in p2p}
    broken = {t: o for t, o in broken.items() if o != "PASSED"}
    assert not broken, f"PASS_TO_PASS with tests.patch: {broken}"
    after = {t: result.with_fix.get(t, "missing") for t in [*f2p, *p2p]}
    after = {t: o for t, o in after.items() if o != "PASSED"}
    assert not after, f"with both patches: {after}"


def test_instance_ids_are_unique_folder_names():
    ids = [load(d)["instance_id"] for d in TASK_DIRS]
    assert TASK_DIRS, f"no task folders under {DATA}"
    assert ids == [d.name for d in TASK_DIRS]
    assert len(set(ids)) == len(ids)


def test_whole_set_covers_every_kind():
    tasks = [load(d) for d in TASK_DIRS]
    assert len(tasks) >= FULL_SET, f"the bundled set needs >= {FULL_SET} tasks, has {len(tasks)}"
    kinds = Counter(t["kind"] for t in tasks)
    thin = {k: kinds[k] for k in sorted(KINDS) if kinds[k] < 3}
    assert not thin, f"the bundled set needs >= 3 tasks of every kind; short: {thin}"
    easiest = sum(t["difficulty"] == 1 for t in tasks)
    assert easiest >= 5, f"{easiest} tasks of difficulty 1; curricula start from >= 5"

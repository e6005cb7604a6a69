"""No sandbox shows a task's hidden tests or reference fix, however turngym is installed.

With turngym installed from a wheel (not editable), its package, bundled SWE tasks
included, lies in the site-packages that the sandbox shows read-only for the tests'
Python. The test builds a real wheel, installs it into a fresh virtualenv, and looks for
every task's ``fix.patch`` and ``tests.patch`` (and their text) from inside the sandbox
of an env whose tests run with that Python (issue 23, item 5).
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import system_deps
from tests.wheel import bare_venv, build_wheel
from turngym.envs.swe.env import SWEEnv
from turngym.envs.swe.tasks import DATA, bundled_tasks

pytestmark = [pytest.mark.sandbox, system_deps.bubblewrap()]


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory) -> Path:
    """A virtualenv's Python with turngym installed from a wheel built from this checkout."""
    where = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(where)
    python, purelib = bare_venv(where / "venv")
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
    subprocess.run([*install, "--target", purelib, str(wheel)], check=True, capture_output=True)
    installed = Path(purelib) / "turngym" / "envs" / "swe" / "tasks" / "data"
    assert sorted(p.name for p in installed.glob("*/fix.patch"))  # the data is really there
    # the repositories' tests need pytest in that Python: copied from this one (offline)
    for name in ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py"):
        source = Path(importlib.import_module(name).__file__)
        if source.name == "__init__.py":
            shutil.copytree(source.parent, Path(purelib) / name, dirs_exist_ok=True)
        else:
            shutil.copy(source, purelib)
    return python


def bash(env, command: str) -> str:
    obs, *_ = env.step(json.dumps({"name": "bash", "arguments": {"command": command}}))
    return obs


def test_a_wheel_install_hides_every_tasks_fix_and_hidden_tests(wheel_python):
    env = SWEEnv(task="turngym__romancodec-1", sandbox="bwrap", python=wheel_python)
    try:
        env.reset(seed=0)
        # the wheel's site-packages is shown (the tests' Python needs it)...
        shown = bash(env, f"{wheel_python} -c 'import sys; print(sys.prefix)'")
        assert str(wheel_python.parent.parent) in shown
        # ...but nothing of turngym's package is
        found = bash(env, "find / \\( -name fix.patch -o -name tests.patch \\) 2>/dev/null")
        assert "fix.patch" not in found and "tests.patch" not in found, found
        found = bash(env, "find / -path '*turngym*' -name '*.toml' 2>/dev/null | head")
        assert "task.toml" not in found, found
        needles = [
            next(
                line[1:].strip()
                for line in task.test_patch.splitlines()
                if line.startswith("+") and "def test_" in line
            )
            for task in bundled_tasks()
        ]
        everything = (
            "find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o -type f -print0"
        )
        pattern = " ".join(f"-e {json.dumps(n)}" for n in needles)
        hits = bash(env, f"{everything} 2>/dev/null | xargs -0 grep -lF {pattern} 2>/dev/null")
        assert "tests.patch" not in hits and DATA.name not in hits, hits
    finally:
        env.close()


HOST = """
import json, sys
from turngym.envs.swe.env import SWEEnv
from turngym.envs.swe.tasks import bundled_tasks
from turngym.agents.experts.swe import patch_actions

task = next(t for t in bundled_tasks() if t.instance_id == "turngym__romancodec-1")
env = SWEEnv(task=task.instance_id, sandbox="bwrap", python=sys.argv[1])
env.reset(seed=0)
find = {"name": "bash", "arguments": {"command": "find / -name fix.patch 2>/dev/null"}}
seen = env.step(json.dumps(find))[0]
for action in patch_actions(task.patch):
    env.step(action)
reward = env.step("submit()")[1]
env.close()
import turngym
print(json.dumps({"package": turngym.__file__, "seen": seen, "reward": reward}))
"""


def test_a_host_running_from_the_wheel_hides_the_tasks_and_still_grades(wheel_python):
    """The host's own turngym is the wheel's: hidden, but its grading plugin is shown again."""
    purelib = next(wheel_python.parent.parent.glob("lib/python*/site-packages"))
    done = subprocess.run(
        [sys.executable, "-c", HOST, str(wheel_python)],
        env={**os.environ, "PYTHONPATH": str(purelib)},
        capture_output=True,
        text=True,
        timeout=300,
        cwd=purelib.parent,  # not the checkout: its turngym/ would come first on sys.path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["package"].startswith(str(purelib))  # the host ran the wheel's code
    assert "fix.patch" not in result["seen"], result["seen"]
    assert result["reward"] == 1.0

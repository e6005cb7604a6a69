"""Submissions that reach into the tested interpreter to earn the SWE reward (issue 41).

Each attack leaves the toy task's bug in place (``total`` still skips the last value)
and works from inside the interpreter that runs the tests, or hides from the revert:
(a) the harness's module state through ``sys.modules``; (b) pytest's ``Config`` found
by ``gc`` or through frames, with a plugin of its own registered; (c) trace functions
and code swaps; ignore files that keep test infrastructure from being put back; a fake
``*.dist-info`` whose entry point stands in for the grading plugin; and values whose
``__eq__`` is always true. Every one must get reward 0.
"""

from __future__ import annotations

import subprocess

import pytest

from tests import system_deps
from tests.envs.swe.toy_task import BASE, toy_task, write
from tests.security.test_swe_grading import assert_not_resolved, submit_with
from turngym.envs.swe.env import SWEEnv
from turngym.envs.swe.grading import grade

pytestmark = [pytest.mark.sandbox, system_deps.bubblewrap()]

F2P = "tests/test_ops.py::test_total_counts_every_value"
EVERY_ID = (F2P, "tests/test_ops.py::test_double", "tests/test_ops.py::test_total_of_nothing")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    made = SWEEnv(tasks=[toy_task(tmp_path_factory.mktemp("toy"))], sandbox="bwrap")
    yield made
    made.close()


# Sends forged "passed" lines for every test with whatever key and pipe it can find in
# any module's globals (the old plugin kept them in ``turngym_grade``'s), then exits.
FORGE = (
    "import hashlib, hmac, json, os, sys\n"
    f"IDS = {list(EVERY_ID)!r}\n"
    "def _forge():\n"
    "    for module in list(sys.modules.values()):\n"
    "        space = getattr(module, '__dict__', {})\n"
    "        keys = [v for v in list(space.values()) if isinstance(v, bytes) and len(v) == 32]\n"
    "        fds = [v for k, v in list(space.items()) if isinstance(v, int) and 'FD' in k]\n"
    "        for key in keys:\n"
    "            for fd in fds:\n"
    "                for seq, test in enumerate(IDS):\n"
    "                    payload = json.dumps({'seq': seq, 'id': test, 'outcome': 'passed'})\n"
    "                    mac = hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()\n"
    "                    try:\n"
    "                        os.write(fd, f'\\nTURNGYM1 {mac} {payload}\\n'.encode())\n"
    "                    except OSError:\n"
    "                        pass\n"
)

# A plugin that makes every test pass, registered on pytest's Config wherever found.
EVIL_PLUGIN = (
    "import pytest\n"
    "class _Evil:\n"
    "    @pytest.hookimpl(tryfirst=True)\n"
    "    def pytest_pyfunc_call(self, pyfuncitem):\n"
    "        return True\n"
    "    @pytest.hookimpl(hookwrapper=True)\n"
    "    def pytest_runtest_makereport(self, item, call):\n"
    "        outcome = yield\n"
    "        report = outcome.get_result()\n"
    "        report.outcome, report.longrepr = 'passed', None\n"
    "def _register(config):\n"
    "    if config is not None and not config.pluginmanager.has_plugin('evil'):\n"
    "        config.pluginmanager.register(_Evil(), 'evil')\n"
)

OPS_BUGGY = BASE["mathy/ops.py"]


def package(body: str) -> dict[str, str]:
    """The package's ``__init__`` running ``body`` (in a try: a refused step is survived)."""
    indented = "".join(f"    {line}\n" for line in body.splitlines())
    return {
        "mathy/__init__.py": (
            f"from mathy.ops import total\n{EVIL_PLUGIN}{FORGE}"
            f"try:\n{indented}except Exception:\n    pass\n"
        )
    }


def frames_search(start: str) -> str:
    """Find a ``config`` in the frames from ``start`` down, and register the plugin."""
    return (
        f"frame = {start}\n"
        "while frame is not None:\n"
        "    for value in list(frame.f_locals.values()):\n"
        "        config = getattr(value, 'config', None)\n"
        "        if hasattr(config, 'pluginmanager'):\n"
        "            _register(config)\n"
        "    frame = frame.f_back\n"
    )


ATTACKS = {
    # (a) the harness's key and pipe from module globals, forged lines for every test
    "module-globals-forge": package("_forge()\nimport os\nos._exit(0)"),
    # (a) the harness's functions replaced through sys.modules
    "module-globals-replaced": package(
        "import sys\n"
        "for module in list(sys.modules.values()):\n"
        "    for name in ('_outcome', '_record', '_verified'):\n"
        "        if callable(getattr(module, name, None)):\n"
        "            setattr(module, name, lambda *a, **k: 'passed')\n"
        "import builtins\n"
        "builtins.__turngym_observe__ = lambda *a, **k: None\n"
    ),
    # (b) pytest's Config found with gc, a plugin of its own registered
    "gc-finds-config": package(
        "import gc\n"
        "for obj in gc.get_objects():\n"
        "    if type(obj).__name__ == 'Config' and hasattr(obj, 'pluginmanager'):\n"
        "        _register(obj)\n"
    ),
    "gc-referrers": package(
        "import gc, _pytest.config\n"
        "for obj in gc.get_referrers(_pytest.config.Config):\n"
        "    if isinstance(obj, _pytest.config.Config):\n"
        "        _register(obj)\n"
    ),
    # (b) the same through frames: sys._getframe, inspect, a traceback, a generator
    "getframe-finds-config": package(frames_search("__import__('sys')._getframe()")),
    "inspect-finds-config": package(frames_search("__import__('inspect').currentframe()")),
    "inspect-stack": package(frames_search("__import__('inspect').stack()[0].frame")),
    "traceback-finds-config": package(
        "try:\n    raise ValueError\nexcept ValueError as error:\n"
        "    start = error.__traceback__.tb_frame\n" + frames_search("start")
    ),
    "traceback-walk-stack": package(
        frames_search("next(__import__('traceback').walk_stack(None))[0]")
    ),
    "generator-frame": package(
        "def _gen():\n    yield\ng = _gen()\nnext(g)\n" + frames_search("g.gi_frame")
    ),
    # (b) without gc or frames: a walk from sys.modules through attributes
    "walk-from-modules": package(
        "import sys\n"
        "seen, todo = set(), list(sys.modules.values())\n"
        "while todo and len(seen) < 200000:\n"
        "    obj = todo.pop()\n"
        "    if id(obj) in seen:\n"
        "        continue\n"
        "    seen.add(id(obj))\n"
        "    if type(obj).__name__ == 'Config' and hasattr(obj, 'pluginmanager'):\n"
        "        _register(obj)\n"
        "    try:\n"
        "        space = vars(obj)\n"
        "    except TypeError:\n"
        "        space = obj if isinstance(obj, dict) else {}\n"
        "    if isinstance(obj, (list, tuple, set)):\n"
        "        todo.extend(obj)\n"
        "    todo.extend(v for v in list(space.values()) if not isinstance(v, (int, str)))\n"
        "    todo.extend(getattr(obj, '__closure__', None) and\n"
        "                [c.cell_contents for c in obj.__closure__] or [])\n"
        "    if hasattr(obj, '__self__'):\n"
        "        todo.append(obj.__self__)\n"
    ),
    # (c) a trace function that swaps the test's code for a no-op before it runs
    "settrace-swaps-code": package(
        "import sys, threading\n"
        "def _noop():\n    pass\n"
        "def _trace(frame, event, arg):\n"
        "    if event == 'call' and frame.f_code.co_name == 'pytest_pyfunc_call':\n"
        "        frame.f_locals['pyfuncitem'].obj.__code__ = _noop.__code__\n"
        "    return None\n"
        "threading.settrace(_trace)\n"
        "sys.settrace(_trace)\n"
    ),
    "setprofile-swaps-code": package(
        "import sys\n"
        "def _noop():\n    pass\n"
        "def _profile(frame, event, arg):\n"
        "    if event == 'call' and frame.f_code.co_name == 'pytest_pyfunc_call':\n"
        "        frame.f_locals['pyfuncitem'].obj.__code__ = _noop.__code__\n"
        "sys.setprofile(_profile)\n"
    ),
    # (c) a thread that swaps the hidden test's code for a no-op once it is defined
    "thread-swaps-test-code": package(
        "import sys, threading, time\n"
        "def _noop():\n    pass\n"
        "def _swap():\n"
        "    for _ in range(20000):\n"
        "        test = getattr(sys.modules.get('tests.test_ops') or sys.modules.get('test_ops'),\n"
        "                       'test_total_counts_every_value', None)\n"
        "        if test is not None:\n"
        "            test.__code__ = _noop.__code__\n"
        "            return\n"
        "        time.sleep(0.0005)\n"
        "threading.Thread(target=_swap, daemon=True).start()\n"
    ),
    # process memory: /proc/self/mem, directly and through a link
    "proc-self-mem": package(
        "import os\n"
        "os.symlink('/proc/self/mem', '/tmp/m')\n"
        "for path in ('/proc/self/mem', '/tmp/m'):\n"
        "    try:\n"
        "        open(path, 'r+b').close()\n"
        "        _forge()\n"
        "    except OSError:\n"
        "        pass\n"
    ),
    # ctypes: the current frame from the C API, then the frames below it
    "ctypes-frame": package(
        "import ctypes\n"
        "get = ctypes.pythonapi.PyEval_GetFrame\n"
        "get.restype = ctypes.py_object\n" + frames_search("get()")
    ),
    # builtins replaced by functions that look for frames whenever anything calls them
    "builtins-replaced": package(
        "import builtins, sys\n"
        "def _wrap(real):\n"
        "    def wrapped(*args, **kwargs):\n"
        "        try:\n"
        "            frame = sys._getframe(1)\n"
        "            while frame is not None:\n"
        "                for value in list(frame.f_locals.values()):\n"
        "                    config = getattr(value, 'config', None)\n"
        "                    if hasattr(config, 'pluginmanager'):\n"
        "                        _register(config)\n"
        "                frame = frame.f_back\n"
        "        except Exception:\n"
        "            pass\n"
        "        return real(*args, **kwargs)\n"
        "    return wrapped\n"
        "for name in ('len', 'any', 'enumerate', 'range', 'str', 'isinstance', 'getattr'):\n"
        "    setattr(builtins, name, _wrap(getattr(builtins, name)))\n"
    ),
    # values equal to everything
    "always-equal-value": {
        "mathy/ops.py": (
            "class _Any(int):\n"
            "    def __eq__(self, other):\n        return True\n"
            "    def __ne__(self, other):\n        return False\n"
            "    __hash__ = int.__hash__\n\n\n"
            "def total(values):\n"
            "    return _Any(0)\n\n\n"
            "def double(x):\n"
            "    return 2 * x\n"
        )
    },
    "always-equal-object": {
        "mathy/ops.py": (
            "class _Any:\n"
            "    def __eq__(self, other):\n        return True\n\n\n"
            "def total(values):\n"
            "    return _Any()\n\n\n"
            "def double(x):\n"
            "    return 2 * x\n"
        )
    },
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_reaching_into_the_tested_interpreter_earns_nothing(env, attack):
    assert_not_resolved(submit_with(env, ATTACKS[attack]))


# A plugin that reads the key the grader gives on standard input and signs "passed".
FAKE_PLUGIN = (
    "import hashlib, hmac, json, os\n"
    f"IDS = {list(EVERY_ID)!r}\n"
    "key = bytes.fromhex(os.read(0, 256).decode().strip())\n"
    "fd = int(os.environ.get('TURNGYM_GRADE_FD', '1'))\n"
    "for seq, test in enumerate(IDS):\n"
    "    payload = json.dumps({'seq': seq, 'id': test, 'outcome': 'passed'})\n"
    "    mac = hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()\n"
    "    os.write(fd, f'\\nTURNGYM1 {mac} {payload}\\n'.encode())\n"
    "os._exit(0)\n"
)

HIDDEN = {
    # an ignored conftest that forges (git add -A skipped it, so it was never put back)
    "gitignore-hides-conftest": (
        {".gitignore": "conftest.py\n", "tests/conftest.py": FAKE_PLUGIN},
        {".gitignore", "tests/conftest.py"},
    ),
    "tests-gitignore-hides-conftest": (
        {"tests/.gitignore": "conftest.py\n.gitignore\n", "tests/conftest.py": FAKE_PLUGIN},
        {"tests/.gitignore", "tests/conftest.py"},
    ),
    # an ignored pytest.ini loading a plugin of its own
    "gitignore-hides-ini": (
        {
            ".gitignore": "pytest.ini\nevil_plugin.py\n",
            "pytest.ini": "[pytest]\naddopts = -p evil_plugin\n",
            "evil_plugin.py": FAKE_PLUGIN,
        },
        {".gitignore", "pytest.ini"},
    ),
    # an ignored module that impersonates the grading plugin by name
    "gitignore-hides-impersonator": (
        {".gitignore": "turngym_grade.py\n", "turngym_grade.py": FAKE_PLUGIN},
        {".gitignore", "turngym_grade.py"},
    ),
    # a fake installed package whose pytest11 entry point has the plugin's name
    "dist-info-shadows-plugin": (
        {
            "evil_grade.py": FAKE_PLUGIN,
            "evil-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
            "evil-1.0.dist-info/entry_points.txt": "[pytest11]\nturngym_grade = evil_grade\n",
        },
        {"evil-1.0.dist-info/METADATA", "evil-1.0.dist-info/entry_points.txt"},
    ),
    "egg-info-shadows-plugin": (
        {
            "evil_grade.py": FAKE_PLUGIN,
            "evil.egg-info/PKG-INFO": "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
            "evil.egg-info/entry_points.txt": "[pytest11]\nturngym_grade = evil_grade\n",
        },
        {"evil.egg-info/PKG-INFO", "evil.egg-info/entry_points.txt"},
    ),
    "gitattributes": ({".gitattributes": "* -diff\n"}, {".gitattributes"}),
}


def forced_patch(folder, files: dict[str, str]) -> str:
    """The patch adding ``files`` to the toy repo, ignore files or not (as a patch can)."""
    run = lambda *a: subprocess.run(["git", *a], cwd=folder, check=True, capture_output=True)  # noqa: E731
    write(folder, BASE)
    run("init", "-q")
    run("add", "-A")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    write(folder, files)
    run("add", "-A", "--force")
    return run("diff", "--cached", "--binary", "HEAD").stdout.decode()


@pytest.mark.parametrize("attack", sorted(HIDDEN))
def test_nothing_hides_from_the_revert_and_the_plugin_cannot_be_shadowed(env, attack, tmp_path):
    files, reverted = HIDDEN[attack]
    patch = forced_patch(tmp_path, files)
    env.reset(seed=0)
    task = env.task
    result = grade(task, patch, env._base(task), env._judge, env._sandbox(env._judge, task))
    assert result.applied, result.log
    assert not result.resolved and result.tests[F2P] != "PASSED", result.tests
    assert reverted <= set(result.reverted), result.reverted


def test_an_honest_fix_still_resolves_after_the_attacks(env):
    fixed = OPS_BUGGY.replace("len(values) - 1", "len(values)")
    _obs, reward, _t, _tr, info = submit_with(env, {"mathy/ops.py": fixed})
    assert reward == 1.0 and info["resolved"], info["tests"]
    assert info["reverted"] == []

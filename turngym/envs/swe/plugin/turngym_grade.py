"""turngym's grading harness: runs a task's tests in a sealed interpreter and sends what they saw.

The SWE grader (``turngym.envs.swe.grading``) runs ``python -I turngym_grade.py ARGS``
in the sandbox, in the repository's folder, with a fresh key on standard input and a
pipe at the file descriptor named by ``TURNGYM_GRADE_FD``; ARGS are pytest's. Before the
hidden test files reached the sandbox the grader took out of them every constant an
assertion compares with (``judge.py``), so they call ``__turngym_observe__(site, value)``
and ``__turngym_raises__(site)`` instead. This script:

1. imports pytest and its plugins while nothing of the repository is importable
   (``-I``: no ``PYTHONPATH``, no script or current folder on ``sys.path``), makes the
   process undumpable (no other process may read or write its memory) and installs an
   audit hook, which Python code cannot remove. Its state lives in closures no module
   refers to. From then on it refuses trace and profile functions, ``gc``'s object walks,
   writes to a function's ``__code__``, ``ctypes`` calls, ``/proc/*/mem`` and new audit
   hooks while repository code runs, and hands no frame to repository code
   (``sys._getframe``, ``tb_frame``, ``gi_frame``... from it or from the few library
   functions that return frames);
2. only then puts the repository (and the ``PYTHONPATH`` given) on ``sys.path`` and runs
   ``pytest.main`` with its own plugin object (never found by name, so no file or entry
   point of the repository can stand in for it);
3. sends, one line each, ``TURNGYM1 <hmac> <json>`` signed with the key: every value an
   assertion observed (as plain data, from the exact built-in types only: an object of
   the repository's can never pass for one) and every test's outcome. A test ``passed``
   only if its setup, call and teardown ran without an exception and pytest's reports say
   so; ``tampered`` if pytest's machinery was replaced.

The values decide the verdict: the grader compares them with the constants it kept,
outside the sandbox, so code under test can make them right only by computing them.
The outcome lines and the seal are the layers under that, for what a test checks
without a constant. This file imports nothing of turngym: it runs with whatever Python
the repository's tests use (Python >= 3.8, pytest >= 6).
"""

from __future__ import annotations

import os
import sys
from typing import Any


def main() -> int:
    """Seal this interpreter, run pytest on ``sys.argv[1:]``, return pytest's exit code."""
    import builtins
    import hashlib
    import hmac
    import json
    import re
    import site
    import sysconfig

    import _pytest._code
    import _pytest.config
    import pytest

    for name in _pytest.config.default_plugins:  # pytest's own plugins, from its own files
        __import__(f"_pytest.{name}")
    try:  # loaded now, so its import-time dlopen needs no exception from the seal below
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no /proc/PID/mem for others
    except (ImportError, OSError, AttributeError):
        pass

    key = _read_key()
    try:
        fd = os.dup(int(os.environ.pop("TURNGYM_GRADE_FD", "")))
    except (ValueError, OSError):
        fd = -1
    if not key or fd < 0:
        sys.stderr.write("turngym_grade: no key or no pipe; no outcome will be sent\n")

    write, digest, sha256, dumps = os.write, hmac.new, hashlib.sha256, json.dumps
    seq = [0]

    def send(record: dict) -> None:
        record["seq"] = seq[0]
        seq[0] += 1
        payload = dumps(record, separators=(",", ":")).encode()
        line = b"\nTURNGYM1 " + digest(key, payload, sha256).hexdigest().encode() + b" "
        line += payload + b"\n"
        try:
            while line:
                line = line[write(fd, line) :]
        except OSError:
            pass

    # ------------------------------------------------------------------ the seal
    # The hook calls no function that code under test could replace: every one it uses is
    # bound here, and it reads only exact built-in values (event names, frames' code).
    _type, _len, _str, _bytes, _any, _range = type, len, str, bytes, any, range
    _enumerate, _error = enumerate, RuntimeError
    getframe, lstat, readlink, getcwd = sys._getframe, os.lstat, os.readlink, os.getcwd
    is_link = __import__("stat").S_ISLNK
    repo = os.path.realpath(getcwd())
    paths = sysconfig.get_paths()
    roots = {paths.get(k, "") for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= set(site.getsitepackages()) | {os.path.dirname(os.path.abspath(__file__))}
    roots |= {os.path.realpath(r) for r in roots if r}
    trusted_roots = tuple(
        r.rstrip(os.sep) + os.sep for r in roots if r and not _inside(os.path.realpath(r), repo)
    )
    repo_prefixes = (
        repo.rstrip(os.sep) + os.sep,
        os.path.abspath(getcwd()).rstrip(os.sep) + os.sep,
    )
    known: dict[str, bool] = {}
    proc_file = re.compile(r"^/proc/(self|thread-self|\d+)(/task/\d+)?/(mem|map_files|fd)\b").match
    frame_attrs = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
    # Library functions that hand frames to their caller, and modules that do on request.
    returners = frozenset(
        {
            "currentframe",
            "stack",
            "trace",
            "getouterframes",
            "getinnerframes",
            "walk_stack",
            "walk_tb",
            "_getframe",
        }
    )
    leaky = ("/inspect.py", "/traceback.py", "/asyncio/", "/_pytest/_code/", "/bdb.py", "/pdb.py")
    always = frozenset(
        {
            "sys.settrace",
            "sys.setprofile",
            "sys._settraceallthreads",
            "sys._setprofileallthreads",
            "sys.monitoring.register_callback",
            "gc.get_objects",
            "gc.get_referrers",
            "gc.get_referents",
            "sys._current_frames",
            "sys._current_exceptions",
        }
    )
    watched = always | {
        "sys._getframe",
        "object.__getattr__",
        "object.__setattr__",
        "open",
        "os.chdir",
        "code.__new__",
        "compile",
        "marshal.loads",
        "marshal.load",
        "sys.addaudithook",
    }
    busy = [False]

    def trusted(filename: str) -> bool:
        ok = known.get(filename)
        if ok is None:
            ok = filename.startswith("<frozen ") or (
                filename.startswith(trusted_roots) and not filename.startswith(repo_prefixes)
            )
            known[filename] = ok
        return ok

    def near(count: int) -> list[str]:
        """The code names of the nearest ``count`` frames below the hook's caller."""
        names: list[str] = []
        frame: Any = getframe(3)  # 0: this, 1: refuse, 2: the hook
        while frame is not None and _len(names) < count:
            names.append(frame.f_code.co_name)
            frame = frame.f_back
        return names

    def untrusted_frames() -> list:
        """For each frame below the hook, nearest first: whether its code is untrusted."""
        flags: list[bool] = []
        frame: Any = getframe(3)
        while frame is not None:
            flags.append(not trusted(frame.f_code.co_filename))
            frame = frame.f_back
        return flags

    def resolve(path: str) -> str:
        """``path`` with its symbolic links followed (bounded), by C functions only."""
        if not path.startswith("/"):
            path = getcwd() + "/" + path
        for _ in _range(16):
            parts, done = path.split("/"), ""
            for i, part in _enumerate(parts):
                if part in ("", "."):
                    continue
                if part == "..":
                    done = done.rsplit("/", 1)[0]
                    continue
                here = done + "/" + part
                try:
                    linked = is_link(lstat(here).st_mode)
                except OSError:
                    linked = False
                if linked:
                    target = readlink(here)
                    rest = "/".join(parts[i + 1 :])
                    base = target if target.startswith("/") else done + "/" + target
                    path = base + ("/" + rest if rest else "")
                    break
                done = here
            else:
                return done or "/"
        return path

    def refuse(event: str, args: tuple[Any, ...]) -> bool:
        if event in always:
            return True
        if event == "open" or event == "os.chdir":
            path: Any = args[0] if args else None
            if _type(path) is _bytes:
                path = path.decode("utf-8", "replace")
            if _type(path) is not _str:
                return False
            if event == "open" and path.rsplit("/", 1)[-1] == "mem":
                return True  # also relative to a folder of /proc opened before
            return proc_file(resolve(path)) is not None or (
                event == "os.chdir" and resolve(path).startswith("/proc/")
            )
        if event == "object.__setattr__":
            return _len(args) > 1 and _type(args[1]) is _str and args[1] == "__code__"
        if event == "object.__getattr__" and (
            _len(args) < 2 or _type(args[1]) is not _str or args[1] not in frame_attrs
        ):
            return False
        if event in ("marshal.loads", "marshal.load"):
            return near(2) != ["_compile_bytecode", "get_code"] and True in untrusted_frames()
        if event in ("code.__new__", "compile"):
            filename: Any = args[1] if _len(args) > 1 else None
            if _type(filename) is _bytes:
                filename = filename.decode("utf-8", "replace")
            if _type(filename) is not _str or not trusted(filename):
                return False
            if event == "compile" and near(2) == ["source_to_code", "get_code"]:
                return False
            return True in untrusted_frames()
        flags = untrusted_frames()
        if event.startswith("ctypes.") or event == "sys.addaudithook":
            return True in flags
        # a frame: never to repository code, nor through a function that returns one
        frame = getframe(2)
        if frame is None or not flags or flags[0]:
            return True
        code = frame.f_code
        if code.co_name in returners or _any(m in code.co_filename for m in leaky):
            return True in flags
        return False

    def hook(event: str, args: tuple) -> None:
        if busy[0] or (event not in watched and not event.startswith("ctypes.")):
            return
        busy[0] = True
        try:
            no = refuse(event, args)
        finally:
            busy[0] = False
        if no:
            raise _error(f"turngym_grade: {event} is not allowed while tests are graded")

    # ------------------------------------------------------------------ the observers
    encode = _encoder()
    current = [""]

    def observe(site: str, value: object) -> None:
        send({"site": str(site), "test": current[0], "value": encode(value)})

    class Raises:
        """``with __turngym_raises__(site, match=...)``: what the block raised, sent out."""

        def __init__(self, site: str, match: object = None) -> None:
            self.site, self.match = site, match
            self.info: Any = _pytest._code.ExceptionInfo.for_later()

        def __enter__(self) -> object:
            return self.info

        def __exit__(self, kind: Any, value: Any, tb: Any) -> bool:
            if kind is None:
                send({"site": self.site, "test": current[0], "value": None, "raised": None})
                return False
            names = [
                f"{c.__module__}.{c.__qualname__}" for c in type.__dict__["__mro__"].__get__(kind)
            ]
            send({"site": self.site, "test": current[0], "raised": names})
            self.info.fill_unfilled((kind, value, tb))
            if self.match is not None:
                self.info.match(self.match)
            return True

    builtins.__turngym_observe__ = observe  # type: ignore[attr-defined]
    builtins.__turngym_raises__ = Raises  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ the plugin
    fingerprint, outcome_of = _fingerprints(), _outcome
    watched_now = fingerprint()
    phases: dict[str, dict[str, bool]] = {}
    reports: dict[str, dict[str, str]] = {}

    class Plugin:
        """Notes each phase of each test and pytest's reports; sends each test's outcome."""

        @pytest.hookimpl(hookwrapper=True, tryfirst=True)
        def pytest_runtest_protocol(self, item, nextitem):  # type: ignore[no-untyped-def]
            name = item.config.cwd_relative_nodeid(item.nodeid)
            current[0] = name
            phases.pop(item.nodeid, None)
            reports.pop(item.nodeid, None)
            yield
            current[0] = ""
            outcome = outcome_of(phases, reports, item.nodeid, fingerprint() == watched_now)
            send({"id": name, "outcome": outcome})

        @pytest.hookimpl(hookwrapper=True, tryfirst=True)
        def pytest_runtest_setup(self, item):  # type: ignore[no-untyped-def]
            outcome = yield
            phases.setdefault(item.nodeid, {})["setup"] = outcome.excinfo is None

        @pytest.hookimpl(hookwrapper=True, tryfirst=True)
        def pytest_runtest_call(self, item):  # type: ignore[no-untyped-def]
            outcome = yield
            phases.setdefault(item.nodeid, {})["call"] = outcome.excinfo is None

        @pytest.hookimpl(hookwrapper=True, tryfirst=True)
        def pytest_runtest_teardown(self, item):  # type: ignore[no-untyped-def]
            outcome = yield
            phases.setdefault(item.nodeid, {})["teardown"] = outcome.excinfo is None

        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_logreport(self, report):  # type: ignore[no-untyped-def]
            outcome = report.outcome
            if hasattr(report, "wasxfail"):
                outcome = "xfailed" if outcome == "skipped" else "xpassed"
            reports.setdefault(report.nodeid, {})[report.when] = outcome

    sys.addaudithook(hook)
    # sealed: now the repository may be imported
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:0] = [repo, *extra]
    if os.environ.pop("TURNGYM_GRADE_STANDIN", "") == "1":
        sys.meta_path.insert(0, _stand_in_finder(repo))
    return int(pytest.main(sys.argv[1:], plugins=[Plugin()]))


def _stand_in_finder(repo: str):  # type: ignore[no-untyped-def]
    """A finder that gives, for each module of the repository that is not a test, a stand-in.

    Every name of a stand-in module is an object equal to everything (the task
    validator's check: hidden tests that such an object passes do not test the code).
    """
    import importlib.abc
    import importlib.machinery
    import importlib.util
    import types

    class AlwaysEqual:
        def __eq__(self, other: object) -> bool:
            return True

        def __ne__(self, other: object) -> bool:
            return False

        __lt__ = __le__ = __gt__ = __ge__ = __contains__ = __eq__

        def __hash__(self) -> int:
            return 0

        def __bool__(self) -> bool:
            return True

        def __call__(self, *args: object, **kwargs: object) -> AlwaysEqual:
            return self

        def __getattr__(self, name: str) -> AlwaysEqual:
            if name.startswith("__"):
                raise AttributeError(name)
            return self

        def __getitem__(self, key: object) -> AlwaysEqual:
            return self

        def __iter__(self):  # type: ignore[no-untyped-def]
            return iter(())

        def __len__(self) -> int:
            return 0

        def __enter__(self) -> AlwaysEqual:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __call__
        __truediv__ = __floordiv__ = __mod__ = __matmul__ = __neg__ = __call__

    class StandIn(types.ModuleType):
        def __getattr__(self, name: str) -> object:
            if name.startswith("__"):
                raise AttributeError(name)
            return AlwaysEqual()

    def is_test(path: str) -> bool:
        parts = os.path.relpath(path, repo).split(os.sep)
        name = parts[-1]
        return (
            any(p in ("tests", "test", "testing") for p in parts[:-1])
            or name.startswith("test")
            or name.endswith("_test.py")
            or name == "conftest.py"
        )

    class Loader(importlib.abc.Loader):
        def __init__(self, folders: list[str]) -> None:
            self.folders = folders

        def create_module(self, spec: object) -> types.ModuleType:
            module = StandIn(spec.name)  # type: ignore[attr-defined]
            module.__path__ = self.folders  # its submodules are found (and stood in for)
            return module

        def exec_module(self, module: types.ModuleType) -> None:
            return None

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            origin = getattr(spec, "origin", None) or ""
            if spec is None or not _inside(os.path.realpath(origin), repo) or is_test(origin):
                return None
            folders = list(spec.submodule_search_locations or [])
            return importlib.util.spec_from_loader(name, Loader(folders), is_package=True)

    return Finder()


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


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


def _encoder():  # type: ignore[no-untyped-def]
    """A function from a value to plain JSON data, reading only exact built-in types.

    Scalars and containers are read through their built-in type's own methods (a subclass
    cannot change what ``int.__int__`` or ``list.__iter__`` give); anything else becomes
    ``{"t": "other"}``, which equals no constant. Bounded in depth and size.
    """
    limits = {"nodes": 100_000, "chars": 1_000_000}
    scalars: tuple[tuple[Any, Any], ...] = (
        (bool, None),
        (int, int.__int__),
        (float, float.__float__),
        (str, str.__str__),
        (bytes, getattr(bytes, "__bytes__", None)),
        (complex, getattr(complex, "__complex__", None)),
    )
    ordered: tuple[tuple[Any, str, Any], ...] = (
        (list, "list", list.__iter__),
        (tuple, "tuple", tuple.__iter__),
    )
    unordered: tuple[tuple[Any, str, Any], ...] = (
        (frozenset, "frozenset", frozenset.__iter__),
        (set, "set", set.__iter__),
    )
    mro_of = type.__dict__["__mro__"].__get__

    class Oversized(Exception):
        pass

    def encode(value: Any) -> Any:
        budget = dict(limits)
        try:
            return walk(value, 0, budget)
        except (Oversized, RecursionError):
            return {"t": "oversized"}

    def walk(value: Any, depth: int, budget: dict[str, int]) -> Any:
        budget["nodes"] -= 1
        if budget["nodes"] < 0 or depth > 64:
            raise Oversized
        kind = type(value)
        if value is None:
            return None
        mro = mro_of(kind)
        for base, read in scalars:
            if base in mro:
                try:
                    if base is bool:
                        return {"t": "bool", "v": value is True}
                    plain = read(value)
                except (TypeError, ValueError):
                    break
                if base is int:
                    return {"t": "int", "v": format(plain, "x")}
                if base is float:
                    return {"t": "float", "v": float.__repr__(plain)}
                if base is complex:
                    return {"t": "complex", "v": [plain.real, plain.imag]}
                if base is bytes:
                    budget["chars"] -= len(plain)
                    if budget["chars"] < 0:
                        raise Oversized
                    return {"t": "bytes", "v": plain.hex()}
                budget["chars"] -= len(plain)
                if budget["chars"] < 0:
                    raise Oversized
                return {"t": "str", "v": plain}
        for base, tag, items in ordered:
            if base in mro:
                return {"t": tag, "v": [walk(v, depth + 1, budget) for v in items(value)]}
        if dict in mro:
            pairs = dict.items(value)
            return {
                "t": "dict",
                "v": [[walk(k, depth + 1, budget), walk(v, depth + 1, budget)] for k, v in pairs],
            }
        for base, tag, items in unordered:
            if base in mro:
                return {"t": tag, "v": [walk(v, depth + 1, budget) for v in items(value)]}
        return {"t": "other", "type": str(type.__dict__["__qualname__"].__get__(kind))}

    return encode


def _fingerprints():  # type: ignore[no-untyped-def]
    """A function giving fingerprints of what decides and reports a test's outcome.

    The modules are bound now, so a replaced function or method changes the fingerprint
    (the outcome is then ``tampered``) whatever ``sys.modules`` holds later.
    """
    import _pytest.python
    import _pytest.reports
    import _pytest.runner
    import pluggy._callers
    import pluggy._hooks

    runner, python, reports = _pytest.runner, _pytest.python, _pytest.reports
    callers, hooks = pluggy._callers, pluggy._hooks
    names = (
        (runner, "runtestprotocol"),
        (runner, "call_and_report"),
        (runner, "call_runtest_hook"),
        (runner, "pytest_runtest_setup"),
        (runner, "pytest_runtest_call"),
        (runner, "pytest_runtest_teardown"),
        (runner, "pytest_runtest_makereport"),
        (python, "pytest_pyfunc_call"),
        (callers, "_multicall"),
    )
    methods = (
        (runner.CallInfo, "from_call"),
        (python.Function, "runtest"),
        (python.Function, "setup"),
        (reports.TestReport, "from_item_and_call"),
        (reports.TestReport, "outcome"),
        (hooks.HookCaller, "__call__"),
    )
    module_type: Any = type(sys)
    module_dict: Any = module_type.__dict__["__dict__"].__get__
    class_dict: Any = type.__dict__["__dict__"].__get__
    _id = id

    def fingerprint() -> tuple:
        found = [_id(module_dict(m).get(n)) for m, n in names]
        return (*found, *[_id(class_dict(c).get(n)) for c, n in methods])

    return fingerprint


def _outcome(phases: dict, reports: dict, nodeid: str, intact: bool) -> str:
    """One test's outcome from its phases and pytest's reports (``intact``: no tampering)."""
    seen_phases = phases.pop(nodeid, {})
    seen_reports = reports.pop(nodeid, {})
    if not intact:
        return "tampered"
    for when in ("setup", "call", "teardown"):
        seen = seen_reports.get(when)
        if seen is None or when not in seen_phases:
            return "error" if when != "call" and seen is not None else "missing"
        if seen != "passed" or not seen_phases[when]:
            outcome = seen if seen != "passed" else "failed"
            return "error" if when != "call" and outcome == "failed" else outcome
    return "passed"


if __name__ == "__main__":
    sys.exit(main())

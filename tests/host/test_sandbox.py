"""Tests of turngym.host.sandbox: the nine escape attempts, on each backend.

Each escape test runs on bubblewrap (where it must be contained, and the host is checked
afterwards) and on LocalSandbox, which isolates nothing. What LocalSandbox holds is
written in ``LOCAL_ESCAPES`` and checked: a test whose escape is expected there asserts
that the escape happens, so this table cannot go stale.

| attempt                        | LocalSandbox                                   |
|--------------------------------|------------------------------------------------|
| write outside the workspace    | escapes (the host's files are its files)       |
| read a host secret             | escapes                                        |
| connect to the host's loopback | escapes (the host's network)                   |
| fork bomb, memory bomb         | not run: they would hit this host              |
| infinite loop                  | holds (the wall timeout kills the group)       |
| huge output                    | holds (the output cap)                         |
| background process (setsid)    | escapes (setsid leaves the process group)      |
| symlink out of the workspace   | escapes                                        |

The bombs run only under bwrap, after a harmless probe shows the limit they rely on.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
import tracemalloc
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import system_deps
from turngym.host.cgroups import CgroupSet
from turngym.host.sandbox import (
    BwrapSandbox,
    ExecResult,
    Limits,
    LocalSandbox,
    Sandbox,
    bwrap_available,
    docker_available,
    make_sandbox,
)
from turngym.host.sandbox import bwrap as bwrap_module

pytestmark = pytest.mark.sandbox

NEEDS_BWRAP = system_deps.bubblewrap()
BWRAP = pytest.param("bwrap", marks=NEEDS_BWRAP)
BACKENDS = [BWRAP, "local"]
LIMITS = Limits(wall_s=10, cpu_s=10, memory_mb=256, processes=64)

LOCAL_ESCAPES = {
    "write": True,
    "secret": True,
    "network": True,
    "loop": False,
    "output": False,
    "background": True,
    "symlink": True,
}
"""Which escape attempts succeed under LocalSandbox (all fail under bwrap)."""


def make(backend: str, workspace: Path, limits: Limits = LIMITS) -> BwrapSandbox | LocalSandbox:
    if backend == "bwrap":
        return BwrapSandbox(workspace, limits=limits)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return LocalSandbox(workspace, limits=limits)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.fixture
def box(backend: str, workspace: Path) -> Iterator[Sandbox]:
    sandbox = make(backend, workspace)
    yield sandbox
    sandbox.close()


def check_escape(backend: str, attempt: str, escaped: bool) -> None:
    """Contained under bwrap; under local exactly as ``LOCAL_ESCAPES`` says."""
    expected = backend == "local" and LOCAL_ESCAPES[attempt]
    assert escaped == expected, f"{attempt}: escaped={escaped} under {backend}"


START_SLEEPS = """
import subprocess
started = []
for _ in range(100):
    try:
        started.append(subprocess.Popen(["sleep", "3"]))
    except OSError:
        pass
print(len(started))
"""


GRAB = "python3 -c \"x = b'a' * ({mb} << 20); print('ALLOCATED', {mb})\""
"""Allocates and touches ``mb`` MB."""


def host_pids_with(marker: str) -> list[int]:
    """The host's processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            with contextlib.suppress(OSError):
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


def kill_host_pids(marker: str) -> None:
    for pid in host_pids_with(marker):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


# --------------------------------------------------------------------------- basics


def test_runs_bash_in_the_workspace_statelessly(box: Sandbox, workspace: Path) -> None:
    assert isinstance(box, Sandbox)
    result = box.run("pwd; echo out; echo err >&2; exit 3")
    assert isinstance(result, ExecResult)
    assert result.output.split() == [box.workdir, "out", "err"]
    assert (result.returncode, result.timed_out, result.truncated) == (3, False, False)
    assert box.run("echo made > f.txt").returncode == 0
    assert (workspace / "f.txt").read_text() == "made\n"
    # stateless: neither the directory nor the variables of a call carry over
    box.run("cd /; export LEFT=1")
    assert box.run('pwd; echo "[$LEFT]"').output.split() == [box.workdir, "[]"]
    assert box.run("cat", stdin="fed\n").output == "fed\n"
    assert box.run("echo $A", env={"A": "b"}).output == "b\n"
    assert box.run("cat").output == ""  # no stdin: EOF at once, no hang


def test_python_and_pytest_run_in_the_workspace(box: Sandbox, workspace: Path) -> None:
    (workspace / "test_small.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    # without the venv's plugins (hypothesis alone takes seconds on a busy machine)
    result = box.run(
        "python -c 'import sys; print(sys.prefix)'; python3 -c 'print(3)'; "
        "python -m pytest -q -p no:cacheprovider test_small.py",
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        timeout=60,
    )
    lines = result.output.splitlines()
    assert lines[:2] == [sys.prefix, "3"], result.output
    assert "1 passed" in result.output and result.returncode == 0, result.output


@NEEDS_BWRAP
def test_bwrap_python_option_puts_that_python_first(workspace: Path) -> None:
    base = Path(os.path.realpath(sys.executable))  # the venv's base interpreter
    with BwrapSandbox(workspace, python=base) as box:
        result = box.run("for p in python python3; do $p -c 'import sys; print(sys.prefix)'; done")
    assert result.output.split() == [sys.base_prefix] * 2, result.output


@pytest.mark.parametrize("backend", [BWRAP])
def test_bwrap_sees_only_the_system_and_the_workspace(box: Sandbox) -> None:
    result = box.run(
        "echo $HOME $TMPDIR; touch /usr/x 2>&1; touch /x 2>&1; ls /home /var /srv 2>&1; "
        "cat /etc/shadow 2>&1; ls -A /tmp"
    )
    out = result.output
    assert out.startswith("/tmp/home /tmp\n"), out
    assert out.count("Read-only file system") == 2, out
    assert out.count("No such file or directory") == 4, out  # /etc/shadow is not shown
    assert "root:" not in out, out
    # /tmp is private: its home, and the test's Python where that lives under /tmp (bound
    # read-only at its own path; a checkout cloned into /tmp/<name> puts .venv there).
    listing = out.split("/etc/shadow: No such file or directory\n", 1)[-1].split()
    allowed = {"home"}
    python = Path(sys.executable).absolute()
    if python.parts[1:2] == ("tmp",):
        allowed.add(python.parts[2])
    assert "home" in listing and set(listing) <= allowed, out


@pytest.mark.parametrize("backend", [BWRAP])
def test_bwrap_run_ls_is_fast(box: Sandbox) -> None:
    times = []
    for _ in range(10):
        times.append(box.run("ls").seconds)
    # ~20 ms on an idle 2-core machine; generous since other jobs share it
    assert sorted(times)[len(times) // 2] < 0.5


def test_close_is_idempotent_and_final(backend: str, workspace: Path) -> None:
    box = make(backend, workspace)
    cgroups = list(box._cgroups.dirs.values()) if isinstance(box, BwrapSandbox) else []
    box.close()
    box.close()
    assert not any(path.exists() for path in cgroups), "the cgroups were not removed"
    with pytest.raises(RuntimeError, match="closed"):
        box.run("true")


# --------------------------------------------------------------------------- escapes


def test_escape_write_outside_the_workspace(box: Sandbox, backend: str, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    targets = [outside / "pwned", Path("/root") / f"turngym-escape-{uuid.uuid4().hex}"]
    try:
        box.run("; ".join(f"echo pwned > {target}" for target in targets))
        escaped = [target.exists() for target in targets]
    finally:
        for target in targets:
            target.unlink(missing_ok=True)
    assert escaped[0] == escaped[1]
    check_escape(backend, "write", escaped[0])


def test_escape_read_a_host_secret(box: Sandbox, backend: str, tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    secret = tmp_path / "secret.txt"
    secret.write_text(token)
    result = box.run(f"cat {secret}; cat ../secret.txt")
    check_escape(backend, "secret", token in result.output)


def test_escape_network_to_the_hosts_loopback(box: Sandbox, backend: str) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = server.getsockname()[1]
        box.run(
            f"echo hello > /dev/tcp/127.0.0.1/{port}; "
            f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 2)'",
            timeout=5,
        )
        server.settimeout(0.2)  # a connection made by then waits in the backlog
        try:
            server.accept()[0].close()
            connected = True
        except TimeoutError:
            connected = False
    check_escape(backend, "network", connected)


@pytest.mark.timeout(60)
@NEEDS_BWRAP
def test_escape_fork_bomb(workspace: Path) -> None:
    limits = Limits(wall_s=10, cpu_s=10, processes=48)
    with BwrapSandbox(workspace, limits=limits) as box:
        # the probe: 100 sleeps are asked for, the pids cgroup refuses most
        probe = box.run(f"python3 -c '{START_SLEEPS}'", timeout=8)
        assert 0 < int(probe.output.split()[0]) < 48, probe.output
        marker = f"turngym-bomb-{uuid.uuid4().hex}"
        # the call comes back (the pytest timeout is the hang guard) and takes the bomb along
        box.run(f"exec -a {marker} bash -c 'b() {{ b | b & }}; b; sleep 1'", timeout=2)
    time.sleep(0.1)
    assert host_pids_with(marker) == [], "the bomb outlived its call"
    assert os.system("true") == 0  # this host can still fork


@pytest.mark.timeout(60)
@NEEDS_BWRAP
def test_escape_memory_bomb(workspace: Path) -> None:
    limits = Limits(memory_mb=128)
    with BwrapSandbox(workspace, limits=limits) as box:
        probe = box.run(GRAB.format(mb=32))  # the probe: below the limit it works
        assert "ALLOCATED 32" in probe.output, probe.output
        result = box.run(GRAB.format(mb=2 * limits.memory_mb))
    assert "ALLOCATED" not in result.output and result.returncode != 0, result


@NEEDS_BWRAP
def test_bwrap_without_cgroups_falls_back_on_rlimits(
    monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    class NoCgroups(CgroupSet):
        def __init__(self, **limits: int) -> None:
            self.dirs = {}

    monkeypatch.setattr(bwrap_module, "CgroupSet", NoCgroups)
    # as root the process count is then unbounded (RLIMIT_NPROC spares root): it warns
    root = os.geteuid() == 0
    with pytest.warns(RuntimeWarning, match="pids cgroup") if root else contextlib.nullcontext():
        box = BwrapSandbox(workspace, limits=Limits(memory_mb=128, cpu_s=1))
    with box:
        assert "ALLOCATED 32" in box.run(GRAB.format(mb=32)).output
        bomb = box.run(GRAB.format(mb=256))  # RLIMIT_AS: the allocation fails
        assert "MemoryError" in bomb.output and bomb.returncode == 1, bomb
        loop = box.run("while :; do :; done")  # RLIMIT_CPU
        assert loop.timed_out and loop.returncode == -signal.SIGXCPU, loop


def test_escape_infinite_loop(box: Sandbox, backend: str) -> None:
    # the pytest timeout is the hang guard: a loop that escaped would never come back
    result = box.run("while :; do :; done", timeout=0.5)
    check_escape(backend, "loop", not result.timed_out)
    assert result.timed_out and result.returncode < 0, result
    assert "timeout" in result.output


def test_cpu_limit_kills_the_call(backend: str, workspace: Path) -> None:
    # bwrap: the call's CPU clock (cgroup) ends two busy processes together;
    # local: RLIMIT_CPU, per process, in whole seconds
    bwrap = backend == "bwrap"
    with make(backend, workspace, Limits(cpu_s=0.3 if bwrap else 1.0, wall_s=30)) as box:
        result = box.run("(while :; do :; done) & " * bwrap + "while :; do :; done")
    assert result.timed_out and result.returncode < 0, result
    assert "CPU time limit" in result.output


def test_escape_huge_output(box: Sandbox, backend: str) -> None:
    tracemalloc.start()
    try:
        result = box.run("yes | head -c 100000000; echo; echo END")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    limit = LIMITS.output_bytes
    assert result.truncated and not result.timed_out and result.returncode == 0, result.seconds
    assert len(result.output) <= limit and result.output.startswith("y\ny\n")
    assert result.output.endswith("y\n\nEND\n") and "output truncated" in result.output
    check_escape(backend, "output", peak > 20 * limit)


def test_escape_background_process(box: Sandbox, backend: str, workspace: Path) -> None:
    marker = f"turngym-bg-{uuid.uuid4().hex}"
    beat = f"{box.workdir}/heartbeat"
    loop = f"while :; do date +%s%N > {beat}; sleep 0.05; done"
    try:
        result = box.run(
            f"(exec -a {marker}-sleep sleep 1000) & "
            f"nohup setsid bash -c '{loop}' {marker} > /dev/null 2>&1 & "
            "sleep 0.3; echo started",
            timeout=5,
        )
        # the call does not wait for what it left running (its timeout is 5 s)
        assert result.output == "started\n" and not result.timed_out, result
        time.sleep(0.2)
        first = (workspace / "heartbeat").read_text()
        time.sleep(0.3)
        beating = (workspace / "heartbeat").read_text() != first
        left = host_pids_with(marker)
    finally:
        kill_host_pids(marker)
    assert beating == bool(left)
    assert not host_pids_with(f"{marker}-sleep")  # a plain `&` dies with the call anywhere
    check_escape(backend, "background", beating)


def test_escape_symlink(box: Sandbox, backend: str, workspace: Path, tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    host_file = tmp_path / "host-file.txt"
    host_file.write_text(token)
    host_dir = tmp_path / "host-dir"
    host_dir.mkdir()
    (workspace / "link-file").symlink_to(host_file)
    (workspace / "link-dir").symlink_to(host_dir)
    result = box.run("cat link-file; echo pwned >> link-file; echo pwned > link-dir/new")
    escaped = [
        token in result.output,
        host_file.read_text() != token,
        (host_dir / "new").exists(),
    ]
    assert len(set(escaped)) == 1, escaped
    check_escape(backend, "symlink", escaped[0])


# --------------------------------------------------------------------------- choosing


@pytest.mark.timeout(60)  # the hang guard: no engine must not mean a long wait
def test_docker_detection_answers() -> None:
    ok, why = docker_available()
    assert isinstance(ok, bool) and why
    if not ok:
        assert "docker" in why.lower()


@pytest.mark.skipif(docker_available()[0], reason="a Docker engine runs here")
def test_auto_without_a_docker_engine_takes_bwrap_or_refuses(workspace: Path) -> None:
    if not bwrap_available()[0]:  # never the host in silence
        with pytest.raises(RuntimeError, match="sandbox='local'"):
            make_sandbox(workspace, image="python:3.11-slim")
        return
    box = make_sandbox(workspace, image="python:3.11-slim")
    try:
        assert box.name == "bwrap"
    finally:
        box.close()


@pytest.mark.skipif(docker_available()[0], reason="a Docker engine runs here")
def test_docker_sandbox_without_an_engine_says_why(workspace: Path) -> None:
    from turngym.host.sandbox import DockerSandbox  # found through the module too

    with pytest.raises(RuntimeError, match=r"DockerSandbox cannot run here: .*[Dd]ocker"):
        DockerSandbox(workspace, image="python:3.11-slim")
    with pytest.raises(RuntimeError, match="DockerSandbox cannot run here"):
        make_sandbox(workspace, kind="docker", image="python:3.11-slim")


@pytest.mark.skipif(
    not docker_available()[0], reason=f"needs a Docker engine: {docker_available()[1]}"
)
def test_docker_sandbox_runs_in_the_image(workspace: Path) -> None:
    image = os.environ.get("TURNGYM_DOCKER_IMAGE", "python:3.11-slim")
    box = make_sandbox(workspace, kind="docker", image=image)
    try:
        assert (box.name, box.isolated, box.workdir) == ("docker", True, "/testbed")
        assert box.run("pwd; echo x > f").output == "/testbed\n"
        assert (workspace / "f").read_text() == "x\n"
        assert box.run("while :; do :; done", timeout=1).timed_out
    finally:
        box.close()


def test_local_sandbox_warns_that_it_does_not_isolate(workspace: Path) -> None:
    with pytest.warns(RuntimeWarning, match="does not isolate"):
        box = LocalSandbox(workspace)
    assert (box.name, box.isolated, box.workdir) == ("local", False, str(workspace.resolve()))
    box.close()


def test_bad_arguments_say_the_fix(workspace: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="choose one of auto, bwrap, docker, local"):
        make_sandbox(workspace, kind="vm")
    with pytest.raises(ValueError, match="needs image="):
        make_sandbox(workspace, kind="docker")
    with pytest.raises(ValueError, match="is not a directory"):
        make_sandbox(tmp_path / "missing", kind="local")
    with pytest.raises(ValueError, match=r"Limits\.wall_s must be > 0"):
        Limits(wall_s=0)
    with pytest.raises(ValueError, match="output_bytes"):
        Limits(output_bytes=10)
    if bwrap_available()[0]:
        with pytest.raises(ValueError, match="python="):
            BwrapSandbox(workspace, python=tmp_path / "no-python")
        with pytest.raises(ValueError, match="extra_ro"):
            BwrapSandbox(workspace, extra_ro=[tmp_path / "missing"])
    box = make("bwrap" if bwrap_available()[0] else "local", workspace)
    try:
        with pytest.raises(ValueError, match="timeout must be > 0"):
            box.run("true", timeout=0)
        with pytest.raises(TypeError, match="command must be a str"):
            box.run(["ls"])  # type: ignore[arg-type]
    finally:
        box.close()

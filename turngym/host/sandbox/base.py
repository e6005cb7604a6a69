"""Sandboxes that run an agent's shell commands on a repository: bubblewrap, Docker or local.

Every sandbox runs ``bash -c command`` in its ``workdir`` (the repository), statelessly per
call like mini-swe-agent (no shell survives between calls), and returns an `ExecResult`;
a failing or timing-out command never raises. `Limits` bounds each call.

- `BwrapSandbox`: bubblewrap. A read-only view of the system and of the Python the tests
  run with, nothing private of the host (``/root``, ``/home``, ``/work``, ``/tmp``,
  ``/var``...), the workspace read-write at ``/testbed``, a private ``/tmp``, no network
  (not even the host's loopback), fresh ``/dev`` and ``/proc``; turngym's own package
  (its SWE tasks' hidden tests and fixes) hidden even where the Python shown holds it.
  Of ``/etc`` only what programs need (`ETC_ALLOWED`), and nothing shown that only root
  may read (the sandbox's uid 0 is host root). Limits: cgroups (v1 or v2,
  `turngym.envs.swe.cgroups`) where they can be made, rlimits otherwise; the
  workspace's disk quota (`turngym.envs.swe.quota`), a sized ``/tmp`` and ``/dev/shm``
  (the rest of ``/dev`` read-only) and ``RLIMIT_FSIZE``.
- `DockerSandbox`: a container of an image (SWE-bench/SWE-Gym images hold the repository
  at ``/testbed``), through the docker SDK, imported only here.
- `LocalSandbox` (``local_sandbox.py``): the host itself, for trusted code only, when
  asked for by name (``kind="local"``): it warns that it isolates nothing.

`make_sandbox` picks one: Docker when an image is given and an engine answers, else
bubblewrap; where bubblewrap cannot run, ``"auto"`` refuses with one line naming the fix
(install bubblewrap, or choose ``"local"``): isolation never degrades in silence.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from turngym.envs.swe.cgroups import CgroupSet
from turngym.envs.swe.host_view import (
    SYSTEM_DIRS,
    etc_args,
    inside,
    outermost,
    python_paths,
    secrets,
    system_links,
    unreadable,
    unreadable_static,
)
from turngym.envs.swe.quota import DiskQuota
from turngym.envs.swe.seccomp import fallocate_filter, filter_fd

log = logging.getLogger(__name__)

KINDS = ("auto", "bwrap", "docker", "local")
"""The values `make_sandbox` accepts for ``kind``."""

WORKDIR = "/testbed"
"""Where the workspace is inside a bwrap or docker sandbox (SWE-bench images use it too)."""

_GRACE_S = 1.0  # how long output is still read once the command has ended or been killed
_SHM_MB = 64  # the sandbox's /dev/shm (POSIX shared memory, multiprocessing's locks)
_SHIM_DIR = "/run/turngym/bin"
# The host-side prelude (cgroups, rlimits) runs in bash: dash's ulimit lacks -u.
_BASH = shutil.which("bash") or "/bin/bash"
_SETUP_MARK = "turngym-sandbox: the call's setup failed"
_SETUP_FAILED = f'{{ echo "{_SETUP_MARK}" >&2; exit 125; }}'


@dataclass(frozen=True)
class Limits:
    """What one call may use. The defaults suit running a small repository's pytest.

    >>> Limits(wall_s=5.0).wall_s
    5.0
    """

    wall_s: float = 30.0
    """wall-clock timeout per call, seconds (a call's ``timeout`` overrides it)"""
    cpu_s: float = 30.0
    """CPU seconds per call (all of the call's processes together under cgroups)"""
    memory_mb: int = 1024
    """memory of the call (memory cgroup), or its address space per process (RLIMIT_AS)"""
    processes: int = 128
    """processes at once (cgroup pids.max, or RLIMIT_NPROC for a non-root uid)"""
    output_bytes: int = 64_000
    """what a call returns at most; longer output keeps its head and tail, with a note"""
    disk_mb: int = 512
    """disk the workspace may use, and the sandbox's /tmp (a tmpfs of that size), MB; a
    file may not grow past it either (RLIMIT_FSIZE)"""

    def __post_init__(self) -> None:
        for field in ("wall_s", "cpu_s", "memory_mb", "processes", "output_bytes", "disk_mb"):
            if not getattr(self, field) > 0:
                raise ValueError(f"Limits.{field} must be > 0, got {getattr(self, field)!r}")
        if self.output_bytes < 1000:
            raise ValueError(
                f"Limits.output_bytes must be >= 1000 (room for the truncation note), "
                f"got {self.output_bytes}"
            )


@dataclass(frozen=True)
class ExecResult:
    """The outcome of one `Sandbox.run` call."""

    output: str
    """stdout and stderr interleaved, decoded with errors="replace", truncated"""
    returncode: int
    """the shell's exit code; a negative signal number if it was killed"""
    timed_out: bool
    """the call ran past its wall-clock or CPU time and was killed"""
    truncated: bool
    """the output was longer than ``Limits.output_bytes`` and was cut"""
    seconds: float
    """wall-clock time of the call"""


@runtime_checkable
class Sandbox(Protocol):
    """Where an agent's shell commands run: `BwrapSandbox`, `DockerSandbox`, `LocalSandbox`."""

    name: str
    """"bwrap", "docker" or "local\""""
    isolated: bool
    """False only for `LocalSandbox`"""
    workdir: str
    """the workspace's path inside the sandbox ("/testbed", or the host path for local)"""

    def run(
        self,
        command: str,
        *,
        timeout: float | None = None,
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ExecResult:
        """Run ``bash -c command`` in ``workdir``; never raises for a failing command."""
        ...

    def close(self) -> None:
        """Kill anything left and release the sandbox; calling it again does nothing."""
        ...


class _OutputCap:
    """Keeps the head and the tail of a stream within ``limit`` bytes, counting the rest.

    Memory stays under about twice the limit however long the stream is.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._head = bytearray()
        self._tail = bytearray()
        self._head_max = limit // 2
        self._tail_max = limit - self._head_max

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self._head_max - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data[-self._tail_max :]
            if len(self._tail) > 2 * self._tail_max:  # trim in batches: cheap amortized
                del self._tail[: len(self._tail) - self._tail_max]

    @property
    def truncated(self) -> bool:
        return self.total > self.limit

    def text(self, note: str = "") -> str:
        if not self.truncated:
            body = bytes(self._head + self._tail)
        else:
            cut = (
                "\n[... output truncated: {cut} of {total} bytes cut (limit {limit}); "
                "the first {head} and the last {tail} bytes are shown ...]\n"
            )
            room = self.limit - len(cut) - 60  # the numbers' digits
            head, tail = room // 2, room - room // 2
            tail_bytes = bytes(self._tail[-tail:])
            marker = cut.format(
                cut=self.total - head - tail,
                total=self.total,
                limit=self.limit,
                head=head,
                tail=tail,
            )
            body = bytes(self._head[:head]) + marker.encode() + tail_bytes
        text = body.decode("utf-8", errors="replace")
        return text + note


def _pump(
    proc: subprocess.Popen[bytes],
    *,
    stdin: bytes | None,
    deadline: float,
    cap: _OutputCap,
    kill: Callable[[], None],
    check: Callable[[], str | None] | None = None,
) -> str | None:
    """Feed stdin and read the output until the process ends; kill it past a limit.

    ``check`` is polled every 50 ms while the process runs; what it returns ("cpu",
    "disk") is why the call is killed, None to go on. Once the main process has ended
    (or been killed), ``kill`` removes whatever it left behind, and output still
    buffered is read for at most ``_GRACE_S``. Returns why the call was killed
    ("wall", or what ``check`` said), or None.
    """
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    out_fd = proc.stdout.fileno()
    os.set_blocking(out_fd, False)
    sel.register(out_fd, selectors.EVENT_READ, "out")
    pidfd = os.pidfd_open(proc.pid)  # readable when the process ends: no polling needed
    sel.register(pidfd, selectors.EVENT_READ, "exit")
    pending = memoryview(stdin or b"")
    if stdin is not None and proc.stdin is not None:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE, "in")
    killed: str | None = None
    ended_at: float | None = None
    try:
        while True:
            now = time.monotonic()
            if ended_at is None and now >= deadline:
                killed, ended_at = "wall", now
                kill()
            if ended_at is None and check is not None and (over := check()) is not None:
                killed, ended_at = over, now
                kill()
            if ended_at is not None and (now - ended_at > _GRACE_S or out_fd not in _fds(sel)):
                break
            wait = deadline - now if ended_at is None else ended_at + _GRACE_S - now
            if check is not None and ended_at is None:
                wait = min(wait, 0.05)  # the limits are polled
            for key, _ in sel.select(max(wait, 0.0)):
                if key.data == "out":
                    data = os.read(out_fd, 1 << 16)
                    if data:
                        cap.feed(data)
                    else:
                        sel.unregister(out_fd)
                elif key.data == "in":
                    try:
                        pending = pending[os.write(key.fd, pending[: 1 << 16]) :]
                    except (BrokenPipeError, BlockingIOError):
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(key.fd)
                        assert proc.stdin is not None
                        with contextlib.suppress(OSError):
                            proc.stdin.close()
                else:  # the main process ended: reap it, then remove what it left behind
                    sel.unregister(pidfd)
                    proc.wait()
                    ended_at = time.monotonic()
                    kill()
    finally:
        sel.close()
        os.close(pidfd)
        kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
    return killed


def _fds(sel: selectors.BaseSelector) -> set[int]:
    return {key.fd for key in sel.get_map().values()}


def _killpg(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _result(
    cap: _OutputCap, rc: int, killed: str | None, start: float, limits: Limits, extra: str = ""
) -> ExecResult:
    note = {
        None: "",
        "wall": "\n[killed: the wall-clock timeout was reached]",
        "cpu": f"\n[killed: the CPU time limit of {limits.cpu_s:g} s was exceeded]",
        "memory": f"\n[a process was killed: the memory limit of {limits.memory_mb} MB was hit]",
        "disk": f"\n[killed: the workspace went over its disk quota of {limits.disk_mb} MB]",
    }[killed]
    if rc == 128 + signal.SIGXFSZ or rc == -signal.SIGXFSZ:
        note += f"\n[a process was stopped: a file reached the size limit of {limits.disk_mb} MB]"
    return ExecResult(
        output=cap.text(note + extra),
        returncode=rc,
        timed_out=killed in ("wall", "cpu"),
        truncated=cap.truncated,
        seconds=time.monotonic() - start,
    )


def _check_call(
    closed: bool, command: str, timeout: float | None, stdin: str | None, env: Any
) -> None:
    if closed:
        raise RuntimeError("this sandbox is closed; make a new one")
    if not isinstance(command, str):
        raise TypeError(f"command must be a str (a bash command line), got {type(command)}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
    if stdin is not None and not isinstance(stdin, str):
        raise TypeError(f"stdin must be a str or None, got {type(stdin)}")
    if env is not None and not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise TypeError("env must map str to str")


def _check_workspace(workspace: Path) -> Path:
    path = Path(workspace)
    if not path.is_dir():
        raise ValueError(
            f"workspace {str(path)!r} is not a directory: make it (and copy the repo in) first"
        )
    return path.resolve()


def _rlimits_script(
    limits: Limits, *, cpu: bool, memory: bool, processes: bool, fsize: bool = True
) -> str:
    """Shell lines setting the rlimits a call falls back on (they apply to each process)."""
    lines = []
    if fsize:  # bash counts in KiB
        lines.append(f"ulimit -f {limits.disk_mb * 1024}")
    if cpu:  # the soft limit sends SIGXCPU; a second later the hard one SIGKILL
        lines.append(f"ulimit -S -t {max(1, round(limits.cpu_s))}")  # soft first: soft <= hard
        lines.append(f"ulimit -H -t {max(1, round(limits.cpu_s)) + 1}")
    if memory:
        lines.append(f"ulimit -v {limits.memory_mb * 1024}")
    if processes:
        lines.append(f"ulimit -u {limits.processes}")
    return "".join(f"{line} || {_SETUP_FAILED}\n" for line in lines)


# --------------------------------------------------------------------------- detection


@lru_cache(maxsize=1)
def bwrap_available() -> tuple[bool, str]:
    """Whether bubblewrap is installed and can make its namespaces here: ``(ok, reason)``.

    >>> ok, reason = bwrap_available()
    >>> isinstance(ok, bool) and isinstance(reason, str)
    True
    """
    exe = shutil.which("bwrap")
    if exe is None:
        return False, "bubblewrap is not installed (apt-get install bubblewrap)"
    probe = [exe, "--ro-bind", "/usr", "/usr", *system_links(), "--unshare-all"]
    probe += ["--die-with-parent", "--proc", "/proc", "--dev", "/dev", "/usr/bin/true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bwrap could not run: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip()
        return False, (
            f"bwrap cannot make a sandbox here ({why}); unprivileged user namespaces may be "
            "off (sysctl kernel.unprivileged_userns_clone=1) or a container forbids them"
        )
    return True, f"bubblewrap works ({exe})"


def docker_available(timeout: float = 1.0) -> tuple[bool, str]:
    """Whether a Docker engine answers: ``(ok, reason)``. Fast when there is none.

    >>> ok, reason = docker_available(timeout=0.5)
    >>> isinstance(ok, bool) and bool(reason)
    True
    """
    import importlib.util

    if importlib.util.find_spec("docker") is None:
        return False, "the docker Python package is not installed (pip install 'turngym[swe]')"
    host = os.environ.get("DOCKER_HOST", "")
    socket = Path(host[len("unix://") :] if host.startswith("unix://") else "/var/run/docker.sock")
    if (not host or host.startswith("unix://")) and not socket.exists():
        # known without importing the SDK, which takes a tenth of a second
        return (
            False,
            f"no Docker engine: {socket} does not exist (start dockerd or set DOCKER_HOST)",
        )
    try:
        import docker

        client = docker.from_env(timeout=max(1, round(timeout)))
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # the SDK raises several types for "no engine"
        return False, f"no Docker engine answered at {host or socket}: {exc}"
    return True, f"a Docker engine answers at {host or socket}"


# --------------------------------------------------------------------------- bwrap


def bwrap_command(
    workspace: Path,
    python: Path | None = None,
    extra_ro: Sequence[Path] = (),
    *,
    tmp_mb: int | None = None,
    shm_mb: int = _SHM_MB,
) -> tuple[list[str], dict[str, str]]:
    """The bwrap arguments (without the command) and the environment to run them with.

    The sandbox of ``BwrapSandbox`` (read-only system, ``workspace`` writable at
    ``/testbed``, no network), without its per-call limits: for an interactive shell.
    ``tmp_mb`` sizes the private ``/tmp`` (default: the kernel's, half the memory),
    ``shm_mb`` its ``/dev/shm``; the rest of ``/dev`` is read-only. Of ``/etc`` only
    `ETC_ALLOWED` is shown, and nothing of the system or the Python shown that only
    root may read (``extra_ro`` is shown as it is: the caller asked for it).
    turngym's own package is hidden when the Python shown holds it (a wheel install
    under site-packages): its SWE tasks' hidden tests and fixes are there.
    """
    exe = shutil.which("bwrap")
    assert exe is not None
    args = [exe, "--unshare-all", "--new-session", "--die-with-parent", "--cap-drop", "ALL"]
    args += ["--ro-bind", "/usr", "/usr", *system_links()]
    etc_part, etc_shown = etc_args()
    args += etc_part
    system = ["/usr"]
    for path in SYSTEM_DIRS[1:-1]:  # a host without merged /usr has real directories
        if os.path.isdir(path) and not os.path.islink(path):
            args += ["--ro-bind", path, path]
            system.append(path)
    # a private /tmp first: a python installed under /tmp is bound over it below
    if tmp_mb is not None:
        args += ["--size", str(tmp_mb << 20)]
    args += ["--tmpfs", "/tmp", "--dir", "/tmp/home"]
    python = Path(sys.executable) if python is None and sys.executable else python
    path_dirs = []
    ro: list[str] = []
    if python is not None:
        if not Path(python).is_file():
            raise ValueError(f"python={str(python)!r} is not a file: give an interpreter path")
        python = Path(os.path.abspath(python))  # not resolved: a venv's link is the venv
        bin_dir, ro = python_paths(python)
        path_dirs.append(bin_dir)
        for name in ("python", "python3"):  # shims only where the bin dir lacks the name
            if not Path(bin_dir, name).exists():
                args += ["--symlink", str(python), f"{_SHIM_DIR}/{name}"]
        path_dirs.append(_SHIM_DIR)
    extras = []
    for extra in extra_ro:
        if not Path(extra).exists():
            raise ValueError(f"extra_ro path {str(extra)!r} does not exist")
        extras.append(str(Path(extra).resolve()))
    shown = outermost([*ro, *extras], covered=[*system, *etc_shown])
    for path in shown:
        args += ["--ro-bind", path, path]
    hidden = [p for p in secrets(ro) if inside(p, [*shown, *system, *etc_shown])]
    for path in hidden:
        args += ["--tmpfs", path]
    for path in extras:  # what was asked for is shown even inside a hidden folder
        if inside(path, hidden):
            args += ["--ro-bind", path, path]
    for path in hidden:  # read-only once the folders shown in them are made
        args += ["--remount-ro", path]
    # Host root owns what is shown and the sandbox's uid 0 is host root: a file only
    # root may read (a key, a token) would be readable, so each is covered. What was
    # asked for by name (extra_ro: the caller's own folders) is shown as it is.
    static = [*system, *(p for p in shown if p not in extras)]
    covered = [*unreadable_static(tuple(static)), *unreadable(etc_shown)]
    for path in sorted(set(covered)):
        if inside(path, hidden) or any(inside(extra, [path]) for extra in extras):
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            args += ["--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    args += ["--bind", str(_check_workspace(workspace)), WORKDIR]
    # bwrap's /dev is a tmpfs of the kernel's default size (half the memory), writable:
    # it is made read-only, with a sized /dev/shm (its device nodes stay writable).
    args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size"]
    args += [str(shm_mb << 20), "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    args += ["--remount-ro", "/", "--chdir", WORKDIR]
    path_dirs += ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
    env = {
        "PATH": ":".join(path_dirs),
        "HOME": "/tmp/home",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "PAGER": "cat",
        "GIT_PAGER": "cat",
    }
    return args, env


class BwrapSandbox:
    """Runs commands in bubblewrap: read-only system, workspace at /testbed, no network.

    Limits per call: the wall-clock and CPU timeouts kill the whole process tree;
    memory and process count are held by cgroups (v1 or v2) where they can be made, else by
    rlimits (RLIMIT_AS per process; RLIMIT_NPROC, which the kernel does not apply to
    host root). Each call runs in a fresh PID namespace, so nothing it starts (``&``,
    ``nohup``, ``setsid``) outlives it. Calls on one sandbox run one at a time.

    Args:
        workspace: the repository directory, bound read-write at ``/testbed``.
        limits: per-call limits.
        python: the interpreter tests run with (default: this one); its installation is
            visible read-only and first on PATH as ``python`` and ``python3``.
        extra_ro: more host paths to show read-only, at the same place.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as repo:
    ...     if bwrap_available()[0]:
    ...         with BwrapSandbox(Path(repo)) as box:
    ...             print(box.run("pwd").output.strip())
    ...     else:
    ...         print("/testbed")
    /testbed

    """

    name = "bwrap"
    isolated = True

    def __init__(
        self,
        workspace: Path,
        *,
        limits: Limits = Limits(),
        python: Path | None = None,
        extra_ro: Sequence[Path] = (),
    ) -> None:
        self.workspace = _check_workspace(workspace)
        self.limits = limits
        self.workdir = WORKDIR
        ok, why = bwrap_available()
        if not ok:
            raise RuntimeError(f"BwrapSandbox cannot run here: {why}")
        self._lock = threading.Lock()
        self._closed = False
        self._argv, self._env = bwrap_command(
            self.workspace, python, extra_ro, tmp_mb=limits.disk_mb
        )
        self.disk = DiskQuota(self.workspace, limits.disk_mb)
        # Under a soft quota fallocate could reserve gigabytes between two measurements.
        self._seccomp = None if self.disk.hard else fallocate_filter()
        self._cgroups = CgroupSet(processes=limits.processes, memory_mb=limits.memory_mb)
        self._finalizer = weakref.finalize(self, self._cgroups.remove)
        has = self._cgroups.dirs
        if "pids" not in has and os.geteuid() == 0:
            warnings.warn(
                "BwrapSandbox: no pids cgroup could be made, and RLIMIT_NPROC does not bind "
                "root: the process count of a call is bounded only by its timeouts. Run as "
                "root with cgroups mounted read-write (v1, or v2 with a delegated subtree), "
                "or as a non-root user.",
                RuntimeWarning,
                stacklevel=2,
            )
        self._prelude = self._cgroups.attach_script(_SETUP_FAILED) + _rlimits_script(
            limits, cpu=True, memory="memory" not in has, processes="pids" not in has
        )

    def run(
        self,
        command: str,
        *,
        timeout: float | None = None,
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
        pass_fds: Sequence[int] = (),
    ) -> ExecResult:
        """Run ``bash -c command`` in /testbed under the limits; never raises for the command.

        Args:
            command: a bash command line.
            timeout: wall-clock seconds for this call (default ``limits.wall_s``).
            stdin: text fed to the command's standard input (default: none, EOF).
            env: variables added to the sandbox's environment for this call.
            pass_fds: file descriptors of this process the command inherits (same numbers),
                e.g. a pipe the grader reads results from.

        """
        _check_call(self._closed, command, timeout, stdin, env)
        wall = timeout if timeout is not None else self.limits.wall_s
        argv = [_BASH, "-c", self._prelude + 'exec "$@"', "sandbox", *self._argv]
        fds = tuple(pass_fds)
        filter_at = filter_fd(self._seccomp) if self._seccomp is not None else None
        if filter_at is not None:
            argv += ["--seccomp", str(filter_at)]
            fds += (filter_at,)
        argv += ["bash", "-c", command]
        with self._lock:
            start = time.monotonic()
            cgroups, disk = self._cgroups, self.disk
            cgroups.start_call()
            disk.start_call()
            try:
                proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    env={**self._env, **(env or {})},
                    start_new_session=True,  # one process group to kill on the host side
                    pass_fds=fds,
                )
            finally:
                if filter_at is not None:
                    os.close(filter_at)
            cap = _OutputCap(self.limits.output_bytes)

            def kill() -> None:
                _killpg(proc.pid)
                cgroups.kill_all()

            clock = "cpuacct" in cgroups.dirs

            def check() -> str | None:
                if clock and cgroups.cpu_seconds() > self.limits.cpu_s:
                    return "cpu"
                return "disk" if disk.over() else None

            killed = _pump(
                proc,
                stdin=None if stdin is None else stdin.encode(),
                deadline=start + wall,
                cap=cap,
                kill=kill,
                check=check,
            )
            rc = proc.returncode
            if killed is not None:
                rc = -signal.SIGKILL  # we killed it: wall clock or the cgroup's CPU clock
            elif cgroups.hit_memory_limit():
                killed = "memory"
            elif rc == 128 + signal.SIGXCPU and "cpuacct" not in cgroups.dirs:
                killed, rc = "cpu", -signal.SIGXCPU  # RLIMIT_CPU, as bwrap reports a signal
            if rc == 125 and _SETUP_MARK in cap.text():  # ours, not the agent's: say so
                raise RuntimeError(f"BwrapSandbox could not start a call: {cap.text()}")
            note = disk.note()
        return _result(cap, rc, killed, start, self.limits, note)

    def close(self) -> None:
        """Kill anything left and remove the cgroups; calling it again does nothing."""
        self._closed = True
        self._finalizer()

    def __enter__(self) -> BwrapSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------- factory


def no_sandbox_message(
    why: str, option: str = "sandbox='local'", what: str = "no sandbox can run here"
) -> str:
    """The one line refusing to run without a sandbox: what, why, and the two fixes."""
    why = " ".join(why.split())  # bwrap's stderr may span lines
    return (
        f"{what}: {why}. Fix it (apt-get install bubblewrap; allow user "
        f"namespaces), or pass {option} to run the agent's commands unsandboxed on this "
        "host (trusted code only)"
    )


def make_sandbox(
    workspace: Path,
    *,
    kind: str = "auto",
    limits: Limits = Limits(),
    image: str | None = None,
    python: Path | None = None,
    extra_ro: Sequence[Path] = (),
) -> Sandbox:
    """The best sandbox for ``workspace``: see the module docstring for the order.

    ``"auto"`` never falls back on the host: where neither Docker (with an image) nor
    bubblewrap can run, it raises, naming the fix; ``kind="local"`` is that choice.

    Args:
        workspace: the repository directory.
        kind: "auto", "bwrap", "docker" or "local" (unsandboxed: trusted code only).
        limits: per-call limits.
        image: a Docker image ("docker" needs one; "auto" uses Docker only with one).
        python: the interpreter tests run with (bwrap and local).
        extra_ro: more host paths to show read-only at the same place (bwrap, docker).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as repo:
    ...     try:
    ...         box = make_sandbox(Path(repo))
    ...     except RuntimeError as refused:  # no bubblewrap here: it says what to do
    ...         print("sandbox='local'" in str(refused))
    ...     else:
    ...         print(box.name == "bwrap")
    ...         box.close()
    True

    """
    if kind not in KINDS:
        raise ValueError(f"unknown sandbox kind {kind!r}: choose one of {', '.join(KINDS)}")
    if kind == "docker" and not image:
        raise ValueError("kind='docker' needs image='name:tag' (e.g. a SWE-bench image)")
    if kind == "docker" or (kind == "auto" and image and docker_available()[0]):
        from turngym.envs.swe.docker_sandbox import DockerSandbox

        assert image is not None
        return DockerSandbox(workspace, image=image, limits=limits, extra_ro=extra_ro)
    if kind == "auto":
        ok, why = bwrap_available()
        if not ok:
            raise RuntimeError(no_sandbox_message(why))
    if kind in ("auto", "bwrap"):
        return BwrapSandbox(workspace, limits=limits, python=python, extra_ro=extra_ro)
    from turngym.envs.swe.local_sandbox import LocalSandbox

    return LocalSandbox(workspace, limits=limits, python=python)


def __getattr__(name: str) -> Any:
    # DockerSandbox lives in its own module (it imports this one); it is found here too.
    if name == "DockerSandbox":
        from turngym.envs.swe.docker_sandbox import DockerSandbox

        return DockerSandbox
    if name == "LocalSandbox":
        from turngym.envs.swe.local_sandbox import LocalSandbox

        return LocalSandbox
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

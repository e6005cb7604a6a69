"""`BwrapSandbox`: an agent's commands in bubblewrap, with nothing private of the host.

A read-only view of the system and of the Python the tests run with, nothing private of
the host (``/root``, ``/home``, ``/work``, ``/tmp``, ``/var``...), the workspace
read-write at ``/testbed``, a private ``/tmp``, no network (not even the host's
loopback), fresh ``/dev`` and ``/proc``; turngym's own package (its SWE tasks' hidden
tests and fixes) hidden even where the Python shown holds it. Of ``/etc`` only what
programs need (``ETC_ALLOWED``), and nothing shown that only root may read (the
sandbox's uid 0 is host root). Limits: cgroups (v1 or v2, `turngym.host.cgroups`) where
they can be made, rlimits otherwise; the workspace's disk quota (`turngym.host.quota`),
a sized ``/tmp`` and ``/dev/shm`` (the rest of ``/dev`` read-only) and ``RLIMIT_FSIZE``.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from turngym.host.cgroups import CgroupSet
from turngym.host.quota import DiskQuota
from turngym.host.sandbox.base import (
    BASH,
    SETUP_FAILED,
    SETUP_MARK,
    WORKDIR,
    ExecResult,
    Limits,
    OutputCap,
    check_call,
    check_workspace,
    exec_result,
    killpg,
    pump,
    rlimits_script,
)
from turngym.host.seccomp import fallocate_filter, filter_fd
from turngym.host.system_view import (
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

log = logging.getLogger(__name__)

_SHM_MB = 64  # the sandbox's /dev/shm (POSIX shared memory, multiprocessing's locks)
_SHIM_DIR = "/run/turngym/bin"


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
    args += ["--bind", str(check_workspace(workspace)), WORKDIR]
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
        self.workspace = check_workspace(workspace)
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
        self._prelude = self._cgroups.attach_script(SETUP_FAILED) + rlimits_script(
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
        check_call(self._closed, command, timeout, stdin, env)
        wall = timeout if timeout is not None else self.limits.wall_s
        argv = [BASH, "-c", self._prelude + 'exec "$@"', "sandbox", *self._argv]
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
            cap = OutputCap(self.limits.output_bytes)

            def kill() -> None:
                killpg(proc.pid)
                cgroups.kill_all()

            clock = "cpuacct" in cgroups.dirs

            def check() -> str | None:
                if clock and cgroups.cpu_seconds() > self.limits.cpu_s:
                    return "cpu"
                return "disk" if disk.over() else None

            killed = pump(
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
            if rc == 125 and SETUP_MARK in cap.text():  # ours, not the agent's: say so
                raise RuntimeError(f"BwrapSandbox could not start a call: {cap.text()}")
            note = disk.note()
        return exec_result(cap, rc, killed, start, self.limits, note)

    def close(self) -> None:
        """Kill anything left and remove the cgroups; calling it again does nothing."""
        self._closed = True
        self._finalizer()

    def __enter__(self) -> BwrapSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------- factory

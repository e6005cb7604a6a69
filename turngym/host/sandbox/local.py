"""``LocalSandbox``: commands on the host itself, for trusted code only.

Made only when asked for by name (``make_sandbox(kind="local")``,
``SWEEnv(sandbox="local")``), never as a fallback; it warns that it isolates nothing. It
shares the per-call machinery of ``sandbox.py`` (output cap, timeouts, rlimits, disk
quota).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path

from turngym.host import reaper
from turngym.host.quota import DiskQuota
from turngym.host.sandbox.base import (
    BASH,
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

__all__ = ["LocalSandbox"]

log = logging.getLogger(__name__)


class LocalSandbox:
    """Runs commands on the host itself, in the workspace: NO isolation, trusted code only.

    It keeps the wall-clock timeout (the process group is killed), the output cap,
    per-process rlimits (CPU time, address space, file size) and the workspace's disk
    quota (`turngym.host.quota.DiskQuota`); it does not hide the host's files or
    network, and a process that leaves the group (``setsid``) outlives the call.

    >>> import tempfile, warnings
    >>> with tempfile.TemporaryDirectory() as repo, warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with LocalSandbox(Path(repo)) as box:
    ...         print(box.run("echo hi; pwd").output.split() == ["hi", str(Path(repo).resolve())])
    True
    """

    name = "local"
    isolated = False

    def __init__(
        self,
        workspace: Path,
        *,
        limits: Limits = Limits(),
        python: Path | None = None,
        extra_ro: Sequence[Path] = (),
    ) -> None:
        self.workspace = check_workspace(workspace)
        self.workdir = str(self.workspace)
        self.limits = limits
        del extra_ro  # everything is visible anyway
        message = (
            "LocalSandbox does not isolate: commands run on this host with its files and "
            "network. Use it for trusted code only; install bubblewrap for a real sandbox."
        )
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        log.warning(message)
        python = Path(sys.executable) if python is None and sys.executable else python
        self._home = str(reaper.temp_dir("turngym-local-"))
        self._closed = False
        self._finalizer = weakref.finalize(self, reaper.remove_dir, self._home)
        self.disk = DiskQuota(self.workspace, limits.disk_mb)
        path = os.environ.get("PATH", "/usr/bin:/bin")
        if python is not None:
            path = f"{Path(python).parent}:{path}"
        self._env = {**os.environ, "PATH": path, "HOME": self._home, "TMPDIR": self._home}
        self._prelude = rlimits_script(limits, cpu=True, memory=True, processes=False)
        self._lock = threading.Lock()

    def run(
        self,
        command: str,
        *,
        timeout: float | None = None,
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
        pass_fds: Sequence[int] = (),
    ) -> ExecResult:
        """Run ``bash -c command`` in the workspace; never raises for the command.

        ``pass_fds`` are file descriptors the command inherits (as ``BwrapSandbox.run``).
        """
        check_call(self._closed, command, timeout, stdin, env)
        wall = timeout if timeout is not None else self.limits.wall_s
        argv = [BASH, "-c", self._prelude + 'exec "$@"', "sandbox", BASH, "-c", command]
        with self._lock:
            start = time.monotonic()
            disk = self.disk
            disk.start_call()
            proc = subprocess.Popen(
                argv,
                cwd=self.workdir,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env={**self._env, **(env or {})},
                start_new_session=True,
                pass_fds=tuple(pass_fds),
            )
            cap = OutputCap(self.limits.output_bytes)
            killed = pump(
                proc,
                stdin=None if stdin is None else stdin.encode(),
                deadline=start + wall,
                cap=cap,
                kill=lambda: killpg(proc.pid),
                check=lambda: "disk" if disk.over() else None,
            )
            if killed is None and proc.returncode == -signal.SIGXCPU:
                killed = "cpu"  # RLIMIT_CPU: the shell itself ran out of CPU time
            note = disk.note()
        return exec_result(cap, proc.returncode, killed, start, self.limits, note)  # -9 if killed

    def close(self) -> None:
        """Remove the private home directory; calling it again does nothing."""
        self._closed = True
        self._finalizer()

    def __enter__(self) -> LocalSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

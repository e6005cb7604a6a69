"""What every sandbox shares: its limits, its result, the protocol, and running one call.

`Limits` bounds each call and `ExecResult` is what it gives back; `Sandbox` is the
protocol of the bubblewrap, Docker and local sandboxes (``bwrap``, ``docker``,
``local``); `pump` reads a call's output under its limits, `exec_result` makes the
result, `check_call` and `check_workspace` refuse bad input in one line, and
`rlimits_script` writes the shell prelude that sets a call's rlimits.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

log = logging.getLogger(__name__)

WORKDIR = "/testbed"
"""Where the workspace is inside a bwrap or docker sandbox (SWE-bench images use it too)."""

GRACE_S = 1.0  # how long output is still read once the command has ended or been killed
# The host-side prelude (cgroups, rlimits) runs in bash: dash's ulimit lacks -u.
BASH = shutil.which("bash") or "/bin/bash"
SETUP_MARK = "turngym-sandbox: the call's setup failed"
SETUP_FAILED = f'{{ echo "{SETUP_MARK}" >&2; exit 125; }}'


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


class OutputCap:
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
        """Take the next bytes of the stream."""
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
        """Whether the stream was longer than the limit (its middle is left out)."""
        return self.total > self.limit

    def text(self, note: str = "") -> str:
        """The kept head and tail as text, with ``note`` after them."""
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


def pump(
    proc: subprocess.Popen[bytes],
    *,
    stdin: bytes | None,
    deadline: float,
    cap: OutputCap,
    kill: Callable[[], None],
    check: Callable[[], str | None] | None = None,
) -> str | None:
    """Feed stdin and read the output until the process ends; kill it past a limit.

    ``check`` is polled every 50 ms while the process runs; what it returns ("cpu",
    "disk") is why the call is killed, None to go on. Once the main process has ended
    (or been killed), ``kill`` removes whatever it left behind, and output still
    buffered is read for at most ``GRACE_S``. Returns why the call was killed
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
            if ended_at is not None and (now - ended_at > GRACE_S or out_fd not in _fds(sel)):
                break
            wait = deadline - now if ended_at is None else ended_at + GRACE_S - now
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


def killpg(pid: int) -> None:
    """SIGKILL the process group ``pid`` (gone already, or not ours: nothing to do)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def exec_result(
    cap: OutputCap, rc: int, killed: str | None, start: float, limits: Limits, extra: str = ""
) -> ExecResult:
    """The ``ExecResult`` of a call: its output as kept, and why it was killed, if it was."""
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


def check_call(
    closed: bool, command: str, timeout: float | None, stdin: str | None, env: Any
) -> None:
    """Refuse a call's bad arguments (or a closed sandbox) with a one-line error."""
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


def check_workspace(workspace: Path) -> Path:
    """The workspace's resolved path; a one-line error when it is not a directory."""
    path = Path(workspace)
    if not path.is_dir():
        raise ValueError(
            f"workspace {str(path)!r} is not a directory: make it (and copy the repo in) first"
        )
    return path.resolve()


def rlimits_script(
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
    return "".join(f"{line} || {SETUP_FAILED}\n" for line in lines)

"""The cgroups (v1) a sandbox's calls run in: a process cap, a memory cap, a CPU clock.

Root may make cgroups under a read-write cgroup-v1 mount (``/sys/fs/cgroup/pids``,
``.../memory``, ``.../cpuacct``). Each is made under this process's own cgroup of that
controller (so limits already placed on this process still hold), named
``turngym-sandbox-<pid namespace>-<pid>-<n>``; those of dead processes are swept when
the next are made.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import shlex
import signal
import time
from pathlib import Path

log = logging.getLogger(__name__)

_CGROUP_ROOT = Path("/sys/fs/cgroup")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie or a vanished process does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    state = stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3]  # the field after "(comm)"
    return state not in (b"Z", b"X")


def _pid_namespace() -> int:
    """The inode of our PID namespace, part of the cgroups' names."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def _own_cgroups() -> dict[str, tuple[Path, str]]:
    """For each v1 controller: (its mount directory, this process's cgroup path in it)."""
    found: dict[str, tuple[Path, str]] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            for mount in (_CGROUP_ROOT / controller, _CGROUP_ROOT / controllers):
                if controller and (mount / "cgroup.procs").exists():
                    found[controller] = (mount, path)
                    break
    return found


class CgroupSet:
    """The v1 cgroups (pids, memory, cpuacct) that one sandbox's calls run in.

    Made when this process may make them (root, cgroups v1 mounted read-write); a
    controller that cannot be made is left out and its limit falls back on an rlimit.
    """

    _names = itertools.count()
    _swept = False

    def __init__(self, *, processes: int, memory_mb: int) -> None:
        self.dirs: dict[str, Path] = {}
        self._ooms = 0
        own = _own_cgroups()
        memory = str(memory_mb << 20)
        settings = {
            "pids": [("pids.max", str(processes))],
            # the limit first: memsw (memory + swap) may not go below it
            "memory": [("memory.limit_in_bytes", memory), ("memory.memsw.limit_in_bytes", memory)],
            "cpuacct": [],
        }
        name = f"turngym-sandbox-{_pid_namespace()}-{os.getpid()}-{next(self._names)}"
        for controller, values in settings.items():
            if controller not in own:
                continue
            mount, rel = own[controller]
            parent = mount / rel.lstrip("/")
            if not CgroupSet._swept:
                self._sweep(parent)
            path = parent / name
            try:
                path.mkdir()
                for file, value in values:  # memsw exists only with swap accounting
                    if (path / file).exists() or file == values[0][0]:
                        (path / file).write_text(value)
            except OSError as exc:
                log.debug("no %s cgroup (%s): its limit falls back on an rlimit", controller, exc)
                with contextlib.suppress(OSError):
                    path.rmdir()
                continue
            self.dirs[controller] = path
        CgroupSet._swept = True

    @staticmethod
    def _sweep(parent: Path) -> None:
        """Remove the cgroups of sandbox processes that died without closing them."""
        with contextlib.suppress(OSError):
            # only this PID namespace's: a pid of another one means nothing here
            for path in parent.glob(f"turngym-sandbox-{_pid_namespace()}-*-*"):
                pid = int(path.name.split("-")[3])
                if pid != os.getpid() and not Path(f"/proc/{pid}").exists():
                    CgroupSet._kill_in(path)
                    with contextlib.suppress(OSError):
                        path.rmdir()

    def attach_script(self, on_error: str) -> str:
        """Shell lines that move the shell running them (and so all it starts) in."""
        return "".join(
            f"echo $$ > {shlex.quote(str(path / 'cgroup.procs'))} || {on_error}\n"
            for path in self.dirs.values()
        )

    def start_call(self) -> None:
        """Zero the CPU clock and note the OOM kills so far, before a call."""
        if "cpuacct" in self.dirs:
            (self.dirs["cpuacct"] / "cpuacct.usage").write_text("0")
        self._ooms = self.oom_kills()

    def cpu_seconds(self) -> float:
        """CPU time of the call so far (only when ``"cpuacct"`` in ``dirs``)."""
        return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9

    def oom_kills(self) -> int:
        """How many processes the memory cgroup has killed (kernels that count them)."""
        if "memory" not in self.dirs:
            return 0
        with contextlib.suppress(OSError, ValueError):
            for line in (self.dirs["memory"] / "memory.oom_control").read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        return 0

    def hit_memory_limit(self) -> bool:
        """Whether the memory cgroup killed a process since `start_call`."""
        return self.oom_kills() > self._ooms

    @staticmethod
    def _kill_in(path: Path) -> None:
        # A fork bomb forks while it is being killed: kill until no process is new. One
        # already sent SIGKILL is dying and can no longer fork, so it is not waited for.
        killed: set[int] = set()
        for _ in range(100_000):
            try:
                listed = {int(p) for p in (path / "cgroup.procs").read_text().split()}
            except OSError:
                return
            new = {pid for pid in listed - killed if alive(pid)}  # zombies stay listed
            if not new:
                return
            for pid in new:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            killed |= new
        log.warning("processes are still being made in %s after being killed", path)

    def kill_all(self) -> None:
        """SIGKILL every process in the cgroups (each holds them all: one is read)."""
        for path in self.dirs.values():
            self._kill_in(path)
            return

    def remove(self) -> None:
        """Kill what is left and remove the cgroups (idempotent)."""
        self.kill_all()
        for path in self.dirs.values():
            for _ in range(100):  # rmdir fails while killed processes are still exiting
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
        self.dirs = {}

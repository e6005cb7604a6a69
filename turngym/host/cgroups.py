"""The cgroups a sandbox's calls run in: a process cap, a memory cap, a CPU clock.

Two hierarchies are handled, found under a cgroup root (``/sys/fs/cgroup``; a parameter,
so tests can give a fake tree):

- cgroup v1 (one mount per controller: ``pids``, ``memory``, ``cpuacct``): root makes
  one cgroup per controller under this process's own (so limits already placed on this
  process still hold).
- cgroup v2 (one unified tree, the default of current distributions): one cgroup with
  ``pids.max``, ``memory.max`` (and ``memory.swap.max`` 0), under the nearest of this
  process's cgroup and its ancestors that can delegate (its ``cgroup.subtree_control``
  enables ``pids`` and ``memory``, and ``cpu`` where offered; the kernel refuses that to a
  cgroup holding processes, other than the root). OOM kills are read from
  ``memory.events``, the CPU clock from ``cpu.stat`` (``usage_usec``), and
  ``cgroup.kill`` ends every process at once where the kernel has it (5.14+).

They are named ``turngym-sandbox-<pid namespace>-<pid>-<n>``; those of dead processes
are swept when the next are made. A hybrid host (v1 controllers, an empty v2 tree at
``unified``) uses v1.
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

CGROUP_ROOT = Path("/sys/fs/cgroup")
"""Where the cgroup hierarchies are mounted."""
_SELF = Path("/proc/self/cgroup")


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


def _membership(self_cgroup: Path) -> list[tuple[str, str]]:
    """The (controllers, path) pairs of this process, as ``/proc/self/cgroup`` lists them."""
    try:
        lines = self_cgroup.read_text().splitlines()
    except OSError:
        return []
    return [
        (line.split(":", 2)[1], line.split(":", 2)[2]) for line in lines if line.count(":") >= 2
    ]


def is_v2(root: Path = CGROUP_ROOT) -> bool:
    """Whether ``root`` is a cgroup v2 tree that offers ``pids`` or ``memory``."""
    try:
        offered = set((root / "cgroup.controllers").read_text().split())
    except OSError:
        return False
    return bool(offered & {"pids", "memory"})


def _own_v1(root: Path, member: list[tuple[str, str]]) -> dict[str, tuple[Path, str]]:
    """For each v1 controller: (its mount directory, this process's cgroup path in it)."""
    found: dict[str, tuple[Path, str]] = {}
    for controllers, path in member:
        for controller in controllers.split(","):
            for mount in (root / controller, root / controllers):
                if controller and (mount / "cgroup.procs").exists():
                    found[controller] = (mount, path)
                    break
    return found


def _tokens(path: Path) -> set[str]:
    with contextlib.suppress(OSError):
        return {word.lstrip("+") for word in path.read_text().split()}
    return set()


class CgroupSet:
    """The cgroups (v1: pids, memory, cpuacct; v2: one) that one sandbox's calls run in.

    Made when this process may make them; a controller that cannot be made is left out
    and its limit falls back on an rlimit. ``dirs`` maps each controller held
    (``"pids"``, ``"memory"``, ``"cpuacct"``: the CPU clock) to its cgroup's folder;
    under v2 they are one folder.

    Args:
        processes: pids.max.
        memory_mb: the memory limit (no swap beyond it).
        root: where the cgroup hierarchies are mounted.
        self_cgroup: the file listing this process's cgroups.

    """

    _names = itertools.count()
    _swept: set[Path] = set()  # noqa: RUF012 - the parents swept, per process

    def __init__(
        self,
        *,
        processes: int,
        memory_mb: int,
        root: Path = CGROUP_ROOT,
        self_cgroup: Path = _SELF,
    ) -> None:
        self.dirs: dict[str, Path] = {}
        self.version = 0
        """2 or 1 when a cgroup was made, 0 when none could be"""
        self._ooms = 0
        self._cpu_start = 0
        name = f"turngym-sandbox-{_pid_namespace()}-{os.getpid()}-{next(self._names)}"
        member = _membership(self_cgroup)
        if is_v2(root):
            self._make_v2(root, member, name, processes, memory_mb)
        else:
            self._make_v1(root, member, name, processes, memory_mb)

    # -- making ------------------------------------------------------------------------

    def _make_v1(
        self, root: Path, member: list[tuple[str, str]], name: str, processes: int, mb: int
    ) -> None:
        own = _own_v1(root, member)
        memory = str(mb << 20)
        settings = {
            "pids": [("pids.max", str(processes))],
            # the limit first: memsw (memory + swap) may not go below it
            "memory": [("memory.limit_in_bytes", memory), ("memory.memsw.limit_in_bytes", memory)],
            "cpuacct": [],
        }
        for controller, values in settings.items():
            if controller not in own:
                continue
            mount, rel = own[controller]
            parent = mount / rel.lstrip("/")
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
            self.version = 1

    def _make_v2(
        self, root: Path, member: list[tuple[str, str]], name: str, processes: int, mb: int
    ) -> None:
        rel = next((path for controllers, path in member if controllers == ""), None)
        if rel is None:
            return
        parent = root / rel.lstrip("/")
        while True:  # this process's cgroup first, then each ancestor up to the root
            if self._make_v2_in(parent, name, processes, mb):
                return
            if parent == root or root not in parent.parents:
                log.debug("no cgroup v2 subtree under %s could delegate pids and memory", root)
                return
            parent = parent.parent

    def _make_v2_in(self, parent: Path, name: str, processes: int, mb: int) -> bool:
        offered = _tokens(parent / "cgroup.controllers")
        wanted = [c for c in ("pids", "memory", "cpu") if c in offered]
        control = parent / "cgroup.subtree_control"
        enabled = _tokens(control)
        missing = [c for c in wanted if c not in enabled]
        if missing:
            try:  # all at once; else one by one (a controller may be refused alone)
                control.write_text(" ".join(f"+{c}" for c in missing))
                enabled.update(missing)
            except OSError:
                for controller in missing:
                    with contextlib.suppress(OSError):  # EBUSY: the cgroup holds processes
                        control.write_text(f"+{controller}")
                        enabled.add(controller)
        held = [c for c in ("pids", "memory") if c in enabled]
        if not held:
            return False
        self._sweep(parent)
        path = parent / name
        try:
            path.mkdir()
            if "pids" in held:
                (path / "pids.max").write_text(str(processes))
            if "memory" in held:
                (path / "memory.max").write_text(str(mb << 20))
                if (path / "memory.swap.max").exists():  # only with swap accounting
                    (path / "memory.swap.max").write_text("0")
        except OSError as exc:
            log.debug("no cgroup under %s (%s)", parent, exc)
            with contextlib.suppress(OSError):
                path.rmdir()
            return False
        self.dirs = {controller: path for controller in held}
        self.dirs["cpuacct"] = path  # cpu.stat's usage_usec is in every v2 cgroup
        self.version = 2
        return True

    @staticmethod
    def _sweep(parent: Path) -> None:
        """Remove the cgroups of sandbox processes that died without closing them."""
        if parent in CgroupSet._swept:
            return
        CgroupSet._swept.add(parent)
        with contextlib.suppress(OSError):
            # only this PID namespace's: a pid of another one means nothing here
            for path in parent.glob(f"turngym-sandbox-{_pid_namespace()}-*-*"):
                pid = int(path.name.split("-")[3])
                if pid != os.getpid() and not Path(f"/proc/{pid}").exists():
                    CgroupSet._kill_in(path)
                    with contextlib.suppress(OSError):
                        path.rmdir()

    # -- using -------------------------------------------------------------------------

    def _folders(self) -> list[Path]:
        return list(dict.fromkeys(self.dirs.values()))

    def attach_script(self, on_error: str) -> str:
        """Shell lines that move the shell running them (and so all it starts) in."""
        return "".join(
            f"echo $$ > {shlex.quote(str(path / 'cgroup.procs'))} || {on_error}\n"
            for path in self._folders()
        )

    def start_call(self) -> None:
        """Zero the CPU clock (v2: note where it is) and the OOM kills so far, before a call."""
        if "cpuacct" in self.dirs:
            if self.version == 2:
                self._cpu_start = self._usage_usec()
            else:
                (self.dirs["cpuacct"] / "cpuacct.usage").write_text("0")
        self._ooms = self.oom_kills()

    def _usage_usec(self) -> int:
        with contextlib.suppress(OSError, ValueError):
            for line in (self.dirs["cpuacct"] / "cpu.stat").read_text().splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1])
        return 0

    def cpu_seconds(self) -> float:
        """CPU time of the call so far (only when ``"cpuacct"`` in ``dirs``)."""
        if self.version == 2:
            return (self._usage_usec() - self._cpu_start) / 1e6
        return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9

    def oom_kills(self) -> int:
        """How many processes the memory cgroup has killed (kernels that count them)."""
        if "memory" not in self.dirs:
            return 0
        file = "memory.events" if self.version == 2 else "memory.oom_control"
        with contextlib.suppress(OSError, ValueError):
            for line in (self.dirs["memory"] / file).read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        return 0

    def hit_memory_limit(self) -> bool:
        """Whether the memory cgroup killed a process since `start_call`."""
        return self.oom_kills() > self._ooms

    @staticmethod
    def _kill_in(path: Path) -> None:
        with contextlib.suppress(OSError):  # v2, kernel 5.14+: every process, at once
            if (path / "cgroup.kill").exists():
                (path / "cgroup.kill").write_text("1")
        # A fork bomb forks while it is being killed: kill until no process is new. One
        # already sent SIGKILL is dying and can no longer fork, so it is not waited for.
        killed: set[int] = set()
        for _ in range(100_000):
            try:
                listed = {int(p) for p in (path / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
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
        for path in self._folders():
            self._kill_in(path)
            return

    def remove(self) -> None:
        """Kill what is left and remove the cgroups (idempotent)."""
        self.kill_all()
        for path in self._folders():
            for _ in range(100):  # rmdir fails while killed processes are still exiting
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
        self.dirs = {}

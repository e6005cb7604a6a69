"""A disk quota for a workspace: a size-limited tmpfs where this process may mount one.

``mount_quota(folder, size)`` mounts a tmpfs of ``size`` bytes on the (empty) folder
when this process may mount (root with ``CAP_SYS_ADMIN``): a write past the size then
fails with ``ENOSPC``, whoever makes it, at no cost per call. Where it may not, it
returns False and the sandbox falls back on a soft quota: ``RLIMIT_FSIZE`` bounds each
file, and the folder's usage is measured during each call, which is stopped once the
folder is over its quota (``Folder.usage``); that bound can be overshot by what one
call writes between two measurements. `quota_of` says which kind a folder has;
`DiskQuota` is what a sandbox holds to apply either during its calls.

A tmpfs lives in memory: what the agent writes into its workspace counts against the
machine's memory (and, under cgroups, the memory of the calls that wrote it).
"""

from __future__ import annotations

import ctypes
import os
import time
from pathlib import Path

from turngym.host.confined import Folder

__all__ = ["DiskQuota", "mount_quota", "quota_of", "unmount"]

_MNT_DETACH = 2


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def mount_quota(folder: str | os.PathLike[str], size: int) -> bool:
    """Mount a tmpfs of ``size`` bytes on ``folder``; False if this process may not."""
    path = os.fsencode(os.path.abspath(folder))
    options = f"size={int(size)},mode=0755,uid={os.geteuid()},gid={os.getegid()}".encode()
    # MS_NOSUID | MS_NODEV: nothing the agent writes there is a device or a setuid program
    flags = 2 | 4
    return _libc().mount(b"turngym-workspace", path, b"tmpfs", flags, options) == 0


def unmount(folder: str | os.PathLike[str]) -> None:
    """Detach what `mount_quota` mounted on ``folder`` (nothing if it is not a mount)."""
    if quota_of(folder) is not None:
        _libc().umount2(os.fsencode(os.path.abspath(folder)), _MNT_DETACH)


def quota_of(folder: str | os.PathLike[str]) -> int | None:
    """The size of the tmpfs `mount_quota` mounted on ``folder``, or None if there is none."""
    point = os.path.realpath(folder)
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in reversed(lines):  # the last mount on a point is the one seen
        fields = line.split()
        target = fields[4].replace("\\040", " ")
        if target != point:
            continue
        after = fields[fields.index("-") + 1 :]
        if after[:2] != ["tmpfs", "turngym-workspace"]:
            return None
        found = os.statvfs(point)
        return found.f_blocks * found.f_frsize
    return None


class DiskQuota:
    """A workspace's disk quota during calls: a tmpfs's size, or measured while calls run.

    Where the workspace is a tmpfs that `turngym.host.quota.mount_quota` mounted
    (``hard``), the kernel refuses writes past it. Elsewhere its usage is measured every
    100 ms of a call, and a call is stopped once the workspace is over the quota and
    has grown during the call (so a call that deletes files is never stopped).
    """

    poll_s = 0.1

    def __init__(self, workspace: Path, limit_mb: int) -> None:
        self.folder = Folder(workspace)
        self.limit = limit_mb << 20
        self.hard = quota_of(workspace) is not None
        self._at_start = 0
        self._next = 0.0

    def used(self) -> int:
        """Bytes the workspace holds on disk now."""
        return self.folder.usage()[0]

    def start_call(self) -> None:
        """Note the usage before a call (a soft quota only)."""
        if not self.hard:
            self._at_start = self.used()
            self._next = time.monotonic() + self.poll_s

    def over(self) -> bool:
        """Whether the call must stop (soft quota; measured at most every ``poll_s``)."""
        if self.hard or time.monotonic() < self._next:
            return False
        self._next = time.monotonic() + self.poll_s
        used = self.used()
        return used > self.limit and used > self._at_start

    def note(self) -> str:
        """What to tell the agent after a call that left the workspace full, else ""."""
        if self.hard:
            found = os.statvfs(self.folder.root)
            used = (found.f_blocks - found.f_bfree) * found.f_frsize
            full = found.f_bavail * found.f_frsize < 1 << 20
        else:
            used = self.used()
            full = used > self.limit
        if not full:
            return ""
        return (
            f"\n[the workspace is full: {used / 2**20:.0f} MB used of its disk quota of "
            f"{self.limit / 2**20:.0f} MB; delete files to go on]"
        )

"""A seccomp filter that takes ``fallocate`` away from a sandbox (bubblewrap's ``--seccomp``).

Under a soft disk quota (`turngym.host.quota`), the workspace's usage is measured
while a call runs, and ``RLIMIT_FSIZE`` bounds each file; ``fallocate(2)`` would still
reserve gigabytes in a few microseconds, across many files, before the next
measurement. This filter makes it fail with ``EOPNOTSUPP`` (glibc's
``posix_fallocate`` then writes zeros, at the disk's pace). It is a classic BPF program
(``struct sock_filter``), built here for x86_64 (and its i386 and x32 ABIs) and aarch64;
on other machines `fallocate_filter` returns None and nothing is filtered.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

__all__ = ["fallocate_filter", "filter_fd"]

# linux/filter.h and linux/seccomp.h
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_ARCH_AT, _NR_AT = 4, 0  # offsets in struct seccomp_data
_X32_BIT = 0x40000000

# (audit arch, fallocate's number on it)
_FALLOCATE = {
    "x86_64": [(0xC000003E, 285), (0x40000003, 324)],  # x86_64, i386
    "aarch64": [(0xC00000B7, 47)],
}


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def fallocate_filter(machine: str | None = None) -> bytes | None:
    """The filter's bytes for ``machine`` (default: this one), or None if it has none."""
    arches = _FALLOCATE.get(machine or platform.machine())
    if not arches:
        return None
    deny = _ERRNO | errno.EOPNOTSUPP
    program: list[bytes] = []
    for arch, number in arches:
        # if arch != this one: skip this block (4 or 5 instructions)
        block = [_insn(_LD_W_ABS, 0, 0, _NR_AT)]
        if arch == 0xC000003E:  # x32 calls are x86_64's numbers with a high bit: refuse them all
            block.append(_insn(_JGE_K, 0, 1, _X32_BIT))
            block.append(_insn(_RET_K, 0, 0, deny))
        block.append(_insn(_JEQ_K, 0, 1, number))
        block.append(_insn(_RET_K, 0, 0, deny))
        program.append(_insn(_LD_W_ABS, 0, 0, _ARCH_AT))
        program.append(_insn(_JEQ_K, 0, len(block), arch))
        program += block
    program.append(_insn(_RET_K, 0, 0, _ALLOW))
    return b"".join(program)


def filter_fd(program: bytes) -> int:
    """A file descriptor holding ``program`` from its start, for ``bwrap --seccomp FD``."""
    fd = os.memfd_create("turngym-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd

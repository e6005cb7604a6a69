"""Files inside the viewer's roots: names for them in URLs, and opening them safely.

A file is named in a URL as ``"<root number>/<path inside that root>"`` (``"0/demo/
metrics.jsonl"``). ``open_inside`` walks that path one folder at a time with
``O_NOFOLLOW``, so no symlink is ever followed (the files may come from an agent:
ARCHITECTURE.md section 10); ``..``, ``.``, empty parts, absolute paths, NUL bytes and
backslashes are refused; the last part must be a regular file before it is opened (a
FIFO or a device never is) and is opened ``O_NONBLOCK`` and checked again. Every
refusal is a ``NotInside`` error, which the app answers with 404.

``walk`` lists the folders and regular files under a root the same way (no symlink
followed, a bounded depth and count).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

__all__ = ["NotInside", "Where", "open_inside", "parse_name", "read_inside", "walk"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_SKIP = {"tensorboard", "checkpoints", "final", "node_modules", "__pycache__", ".git"}


class NotInside(LookupError):
    """A name that is not a regular file inside one of the roots (answered with 404)."""


@dataclass(frozen=True)
class Where:
    """A path inside root number ``root``: ``parts`` are its folder and file names."""

    root: int
    parts: tuple[str, ...]

    @property
    def name(self) -> str:
        """The URL name: ``"<root>/<a/b/c>"``."""
        return "/".join((str(self.root), *self.parts))

    def child(self, *more: str) -> Where:
        """The path ``more`` below this one (each part checked like a URL's)."""
        parts = list(self.parts)
        for part in more:
            parts.extend(_check_parts(part))
        return Where(self.root, tuple(parts))

    def parent(self) -> Where:
        """The folder this path is in."""
        return Where(self.root, self.parts[:-1])


def _check_parts(path: str) -> list[str]:
    if "\x00" in path or "\\" in path or path.startswith("/"):
        raise NotInside(path)
    parts = path.split("/")
    for part in parts:
        if part in ("", ".", ".."):
            raise NotInside(path)
    return parts


def parse_name(name: str, roots: Sequence[Path], only: Sequence[str | None] = ()) -> Where:
    """The ``Where`` of a URL name ``"<root>/<path>"``; ``NotInside`` if it is malformed.

    ``only[k]``, when not None, is the one file root ``k`` was given as: then only that
    file and its ``images/`` are named.

    >>> parse_name("0/runs/demo/metrics.jsonl", [Path("/data")]).parts
    ('runs', 'demo', 'metrics.jsonl')
    >>> parse_name("0/runs/../../etc/passwd", [Path("/data")])
    Traceback (most recent call last):
    ...
    turngym.view.files.NotInside: runs/../../etc/passwd
    """
    head, _, rest = name.partition("/")
    if not head.isdigit() or int(head) >= len(roots):
        raise NotInside(name)
    where = Where(int(head), tuple(_check_parts(rest)) if rest else ())
    file = only[where.root] if where.root < len(only) else None
    if file is not None and not (
        where.parts == (file,) or (len(where.parts) == 2 and where.parts[0] == "images")
    ):  # a root given as one file: that file and the pictures beside it, nothing else
        raise NotInside(name)
    return where


@contextlib.contextmanager
def _folder_fd(roots: Sequence[Path], where: Where, depth: int) -> Iterator[int]:
    """An fd of the folder ``where.parts[:depth]``, reached without following a symlink."""
    fd = os.open(roots[where.root], _DIR_FLAGS)
    try:
        for part in where.parts[:depth]:
            try:
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError:  # missing, not a folder, or a symlink (ELOOP)
                raise NotInside(where.name) from None
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


def open_inside(roots: Sequence[Path], where: Where) -> BinaryIO:
    """Open the regular file ``where`` for reading; ``NotInside`` for anything else."""
    if not where.parts:
        raise NotInside(where.name)
    try:
        with _folder_fd(roots, where, len(where.parts) - 1) as folder:
            # Look before opening, so a FIFO or device is never opened at all; the fstat
            # below catches one swapped in between (O_NONBLOCK: that open cannot block).
            mode = os.stat(where.parts[-1], dir_fd=folder, follow_symlinks=False).st_mode
            if not stat.S_ISREG(mode):
                raise NotInside(where.name)
            fd = os.open(where.parts[-1], _FILE_FLAGS, dir_fd=folder)
    except OSError:
        raise NotInside(where.name) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotInside(where.name)
    return os.fdopen(fd, "rb")


def read_inside(roots: Sequence[Path], where: Where, max_bytes: int) -> bytes:
    """The whole file ``where`` (``NotInside`` also when it is over ``max_bytes``)."""
    with open_inside(roots, where) as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise NotInside(where.name)
    return data


def stat_inside(roots: Sequence[Path], where: Where) -> os.stat_result | None:
    """``os.stat`` of the regular file ``where``, or None when it is not one."""
    try:
        with open_inside(roots, where) as f:
            return os.fstat(f.fileno())
    except NotInside:
        return None


def walk(
    roots: Sequence[Path], root: int, max_depth: int = 6, max_entries: int = 20000
) -> Iterator[tuple[Where, list[str], list[str]]]:
    """Each folder under root ``root`` with its sub-folders and regular files (sorted).

    Symlinks are skipped, so is anything under ``tensorboard/``, ``checkpoints/`` and
    ``final/`` (weights and events, never episodes). At most ``max_entries`` names are
    looked at in all.
    """
    seen = 0
    stack = [Where(root, ())]
    while stack:
        here = stack.pop()
        path = roots[root].joinpath(*here.parts)
        try:
            with os.scandir(path) as entries:
                listed = list(entries)
        except OSError:
            continue
        seen += len(listed)
        if seen > max_entries:
            return
        folders, files = [], []
        for entry in listed:
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.name)
                elif entry.is_file(follow_symlinks=False):
                    files.append(entry.name)
            except OSError:
                continue
        folders.sort()
        files.sort()
        yield here, folders, files
        if len(here.parts) < max_depth:
            for name in reversed(folders):
                if name not in _SKIP and not name.startswith("."):
                    stack.append(Where(root, (*here.parts, name)))


def display(roots: Sequence[Path], where: Where) -> str:
    """A short human name: the path relative to the root's parent (``runs/demo``)."""
    base = roots[where.root]
    return str(PurePosixPath(base.name, *where.parts))

"""``EpisodeFolder``: the episode's folder as the desktop apps and the task checks touch it.

The agent of a hybrid task has a shell in the episode's folder, so anything may lie
there: a link to ``/etc/shadow``, a FIFO, a 30 GB sparse file, a name that is not
text, a tree thousands of folders deep. The apps and the checks run on the host (as
root in CI), so they touch the folder only through `confined.Folder` (no link
followed, regular files only, bounded reads, atomic writes), plus what a file manager
needs on top of it here: ``mkdir``, ``rmdir``, ``rename`` and a bounded ``tree``. A
refusal is a `PathRefused` whose message can go on an app's status line as is.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as root:
...     folder = EpisodeFolder(root)
...     folder.mkdir("files")
...     folder.write_text("files/a.txt", "hi")
...     os.symlink("/etc", os.path.join(root, "files", "etc"))
...     print(folder.tree("files"))
([('files/a.txt', 'file'), ('files/etc', 'link')], True)
"""

from __future__ import annotations

import errno
import os

from turngym.host.confined import Folder, PathRefused

__all__ = ["MAX_DEPTH", "MAX_ENTRIES", "EpisodeFolder", "PathRefused", "is_text"]

MAX_ENTRIES = 10_000
"""The most entries ``walk`` lists (an app or a check never scans an unbounded tree)."""
MAX_DEPTH = 32
"""The deepest ``walk`` goes below its top folder."""


def is_text(name: str) -> bool:
    """Whether a file name is printable text (a name of undecodable bytes is never opened).

    >>> is_text("notes.txt"), is_text("bad" + chr(0xDCFF) + ".txt")
    (True, False)
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return name.isprintable()


class EpisodeFolder(Folder):
    """`confined.Folder` plus ``mkdir``, ``rmdir``, ``rename`` and a bounded ``tree``."""

    def tree(
        self, top: str = ".", *, max_entries: int = MAX_ENTRIES, max_depth: int = MAX_DEPTH
    ) -> tuple[list[tuple[str, str]], bool]:
        """Every (path from the root, kind) below the folder ``top``, and whether that is all.

        Unlike `Folder.walk` (an ``os.walk`` of its own), one bounded list, sorted.
        It is not all past ``max_entries`` entries or ``max_depth`` levels. Folders are
        entered, links never (a link is listed as ``"link"``). A name that is not text is
        listed as ``"other"`` and not entered. ``top`` itself must be a folder (else
        `PathRefused`); a subfolder swapped for something else meanwhile is skipped.
        """
        found: list[tuple[str, str]] = []
        complete = True
        base = "/".join(self.parts(top))
        todo = [(base, 0)]
        while todo:
            where, depth = todo.pop()
            try:
                entries = self.listdir(where or ".")
            except PathRefused:
                if where == base:
                    raise
                continue
            for name, kind in entries:
                path = f"{where}/{name}" if where else name
                if not is_text(name):
                    kind = "other"
                if len(found) >= max_entries:
                    return sorted(found), False
                found.append((path, kind))
                if kind == "dir":
                    if depth + 1 < max_depth:
                        todo.append((path, depth + 1))
                    else:
                        complete = False
        return sorted(found), complete

    def mkdir(self, path: str) -> None:
        """Make the folder ``path`` (its parent must exist); refused if anything is there."""
        shown = "/".join(self.parts(path))
        with self._parent(path) as (dir_fd, name):
            try:
                os.mkdir(name, 0o755, dir_fd=dir_fd)
            except OSError as exc:
                raise PathRefused(f"{shown} cannot be made: {exc.strerror}") from None

    def rmdir(self, path: str) -> None:
        """Remove the empty folder ``path`` (a link or a file there is refused)."""
        shown = "/".join(self.parts(path))
        if self.kind(path) not in ("dir", None):
            raise PathRefused(f"{shown} is not a folder")
        with self._parent(path) as (dir_fd, name):
            try:
                os.rmdir(name, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno == errno.ENOTEMPTY:
                    raise PathRefused(f"{shown} is not empty") from None
                raise PathRefused(f"{shown} cannot be removed: {exc.strerror}") from None

    def rename(self, source: str, target: str) -> None:
        """Rename (or move) ``source`` to ``target``, both in the folder; never replaces.

        Both parents are reached without following a link. The check that nothing is at
        ``target`` and the rename are two steps: a race can only swap one of the
        folder's own entries for another, never reach outside it.
        """
        shown = "/".join(self.parts(target))
        with self._parent(source) as (src_fd, src), self._parent(target) as (dst_fd, dst):
            try:
                os.stat(dst, dir_fd=dst_fd, follow_symlinks=False)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise PathRefused(f"{shown}: {exc.strerror}") from None
            else:
                raise PathRefused(f"{shown} already exists")
            try:
                os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
            except OSError as exc:
                raise PathRefused(f"cannot move to {shown}: {exc.strerror}") from None

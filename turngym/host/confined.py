"""Files the host reads and writes for an agent: inside one folder, never through a link.

An agent controls what lies in its episode's folder (a SWE workspace, a GUI app's
notes): it can put a symlink to ``/etc/shadow`` there, a FIFO that blocks whoever opens
it, a 30 GB sparse file, or a path with ``..`` in it. `Folder` is the one way host code
touches such a folder. Every path is taken relative to the folder and walked one
component at a time with ``O_NOFOLLOW`` (so no link is followed, not even in the middle,
and a link swapped in between two calls changes nothing); files are opened with
``O_NONBLOCK`` and must be regular files; reads are bounded; writes go to a temporary
file in the same directory that is then renamed over the target, so a file is never
half-written. Anything else is a `PathRefused`, whose message is one line that can be
shown to the agent as is.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as root:
...     folder = Folder(root)
...     folder.write_text("notes/a.txt", "hello", make_parents=True)
...     os.symlink("/etc/passwd", os.path.join(root, "notes", "link.txt"))
...     print(folder.read_text("notes/a.txt"), folder.kind("notes/link.txt"))
...     try:
...         folder.read_text("notes/link.txt")
...     except PathRefused as refused:
...         print(refused)
hello link
notes/link.txt is a symbolic link; links are never followed
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

__all__ = ["DEFAULT_READ_LIMIT", "Folder", "FolderFull", "PathRefused"]

DEFAULT_READ_LIMIT = 8_000_000
"""The most bytes `Folder.read_bytes` returns unless told otherwise."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_TEMP_MARK = ".turngym-"


class PathRefused(ValueError):
    """A path the host will not touch for the agent; the message says why in one line."""


class FolderFull(PathRefused):
    """A write failed for want of room: the disk or the folder's quota is full."""


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "link"
    return "other"


_WHAT = {
    "dir": "a directory",
    "link": "a symbolic link",
    "other": "a special file (FIFO, socket or device)",
}


class Folder:
    """One folder whose contents an agent controls; all access is relative to it.

    Args:
        root: the folder (host-controlled: it and its parents may be links; nothing
            below it is followed).
        read_limit: the most bytes one read returns (``read_bytes`` may ask for less).

    """

    def __init__(self, root: str | os.PathLike[str], *, read_limit: int = DEFAULT_READ_LIMIT):
        self.root = Path(root)
        self.read_limit = read_limit

    # -- paths -----------------------------------------------------------------------------

    def parts(self, path: str | os.PathLike[str]) -> list[str]:
        """The components of ``path`` below the root; raises `PathRefused` if it leaves it."""
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if not isinstance(path, str):
            raise PathRefused(f"a path must be text, got {type(path).__name__}")
        shown = _shown(path)
        if not path or "\0" in path:
            raise PathRefused(f"the path {shown} is empty or holds a NUL byte")
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            raise PathRefused(f"the path {shown} is not valid text (lone surrogates)") from None
        if os.path.isabs(path):
            root = os.fspath(self.root).rstrip("/")
            if not (path == root or path.startswith(root + "/")):
                raise PathRefused(f"{shown} is outside the folder")
            path = path[len(root) :].lstrip("/") or "."
        norm = os.path.normpath(path)
        if norm == ".." or norm.startswith("../"):
            raise PathRefused(f"{shown} leads outside the folder")
        return [] if norm == "." else norm.split("/")

    @contextlib.contextmanager
    def _parent(
        self, path: str | os.PathLike[str], *, create: bool = False
    ) -> Iterator[tuple[int, str]]:
        """An open fd of the directory that holds ``path`` and the last component's name."""
        parts = self.parts(path)
        if not parts:
            raise PathRefused("the folder itself is not a file")
        fd = self._walk(parts[:-1], create=create)
        try:
            yield fd, parts[-1]
        finally:
            os.close(fd)

    def _walk(self, parts: list[str], *, create: bool = False) -> int:
        """An fd of the directory ``parts`` below the root, no link followed on the way."""
        try:
            fd = os.open(self.root, _DIR_FLAGS & ~os.O_NOFOLLOW)
        except OSError as exc:
            raise PathRefused(f"the folder cannot be opened: {exc.strerror}") from None
        done: list[str] = []
        try:
            for part in parts:
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, 0o755, dir_fd=fd)
                try:
                    child = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise self._refusal([*done, part], exc, want="a directory") from None
                os.close(fd)
                fd = child
                done.append(part)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _refusal(self, parts: list[str], exc: OSError, *, want: str) -> PathRefused:
        name = "/".join(parts)
        if exc.errno == errno.ENOENT:
            return PathRefused(f"{name} does not exist")
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK, errno.ENXIO, errno.EOPNOTSUPP):
            kind = self.kind(name) if parts else None
            if kind == "link":
                return PathRefused(f"{name} is a symbolic link; links are never followed")
            what = {**_WHAT, "file": "a file"}.get(kind or "", "not usable")
            return PathRefused(f"{name} is {what}, not {want}")
        if exc.errno == errno.ENAMETOOLONG:
            return PathRefused(f"{_shown(name)} is too long a name")
        return PathRefused(f"{name}: {exc.strerror}")

    # -- queries ---------------------------------------------------------------------------

    def stat(self, path: str | os.PathLike[str]) -> os.stat_result | None:
        """``lstat`` of ``path`` (a link is not followed); None if it does not exist."""
        parts = self.parts(path)
        if not parts:
            return os.stat(self.root)
        try:
            with self._parent(path) as (fd, name):
                return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except PathRefused:
            return None
        except OSError:
            return None

    def kind(self, path: str | os.PathLike[str]) -> str | None:
        """``"file"``, ``"dir"``, ``"link"``, ``"other"`` (FIFO, socket...) or None if absent."""
        found = self.stat(path)
        return None if found is None else _kind(found.st_mode)

    def exists(self, path: str | os.PathLike[str]) -> bool:
        """Whether something (of any kind) is at ``path``."""
        return self.stat(path) is not None

    def listdir(self, path: str | os.PathLike[str] = ".") -> list[tuple[str, str]]:
        """The (name, kind) of each entry of the directory ``path``, sorted by name."""
        fd = self._walk(self.parts(path))
        try:
            entries = []
            with os.scandir(fd) as it:
                for entry in it:
                    try:
                        mode = entry.stat(follow_symlinks=False).st_mode
                    except OSError:
                        continue
                    entries.append((entry.name, _kind(mode)))
        finally:
            os.close(fd)
        return sorted(entries)

    def walk(
        self, path: str | os.PathLike[str] = "."
    ) -> Iterator[tuple[str, list[str], list[str]]]:
        """Like ``os.walk`` below ``path`` (top down), never through a link.

        Yields (folder relative to the root, sub-folder names, other names); prune the
        sub-folders in place to skip them. Links and special files are listed with the
        other names, never entered.
        """
        parts = self.parts(path)
        fd = self._walk(parts)
        try:
            for folder, dirs, files, here in os.fwalk(".", dir_fd=fd, follow_symlinks=False):
                links = [d for d in dirs if _is_link(d, here)]
                if links:  # fwalk lists a link to a folder with the folders (never entering it)
                    dirs[:] = [d for d in dirs if d not in links]
                    files = sorted([*files, *links])
                rel = os.path.normpath(os.path.join(*parts, folder))
                yield rel, dirs, files
        finally:
            os.close(fd)

    def usage(self, *, max_entries: int = 1_000_000) -> tuple[int, int]:
        """(bytes on disk, entries) of everything below the root; stops at ``max_entries``."""
        total, count = 0, 0
        stack = [os.fspath(self.root)]
        while stack and count < max_entries:
            try:
                it = os.scandir(stack.pop())
            except OSError:
                continue
            with it:
                for entry in it:
                    count += 1
                    try:
                        found = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += found.st_blocks * 512
                    if stat.S_ISDIR(found.st_mode):
                        stack.append(entry.path)
        return total, count

    # -- reading ---------------------------------------------------------------------------

    def read_bytes(self, path: str | os.PathLike[str], limit: int | None = None) -> bytes:
        """The bytes of the regular file ``path``; refused past ``limit`` bytes."""
        limit = self.read_limit if limit is None else limit
        with self._parent(path) as (dir_fd, name):
            try:
                fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
            except OSError as exc:
                raise self._refusal(self.parts(path), exc, want="a file") from None
        shown = "/".join(self.parts(path))
        try:
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode):
                raise PathRefused(
                    f"{shown} is {_WHAT[_kind(found.st_mode)]}; only regular files are read"
                )
            if found.st_size > limit:
                raise PathRefused(
                    f"{shown} is {found.st_size:,} bytes; at most {limit:,} bytes can be read"
                )
            os.set_blocking(fd, True)
            chunks, left = [], limit + 1
            while left > 0:
                chunk = os.read(fd, min(left, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
        data = b"".join(chunks)
        if len(data) > limit:  # it grew while it was read
            raise PathRefused(f"{shown} is over {limit:,} bytes; at most {limit:,} can be read")
        return data

    def read_text(self, path: str | os.PathLike[str], limit: int | None = None) -> str:
        """``read_bytes`` decoded as UTF-8 (undecodable bytes replaced)."""
        return self.read_bytes(path, limit).decode("utf-8", errors="replace")

    # -- writing ---------------------------------------------------------------------------

    def write_bytes(
        self,
        path: str | os.PathLike[str],
        data: bytes,
        *,
        make_parents: bool = False,
        mode: int = 0o644,
    ) -> None:
        """Replace (or create) the regular file ``path`` with ``data``, atomically.

        The data goes to a temporary file in the same directory, which is then renamed
        over ``path``: readers see the old file or the new one, never half of it. An
        existing file keeps its mode and owner. A link, directory or special file at
        ``path`` is refused, not replaced.
        """
        if not isinstance(data, bytes | bytearray | memoryview):
            raise TypeError(f"data must be bytes, got {type(data).__name__}")
        shown = "/".join(self.parts(path))
        with self._parent(path, create=make_parents) as (dir_fd, name):
            if name.startswith(".") and _TEMP_MARK in name:
                raise PathRefused(f"{shown} is a name turngym keeps for its temporary files")
            try:
                old: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                old = None
            except OSError as exc:
                raise self._refusal(self.parts(path), exc, want="a file") from None
            if old is not None and not stat.S_ISREG(old.st_mode):
                raise PathRefused(
                    f"{shown} is {_WHAT[_kind(old.st_mode)]}; only regular files are written"
                )
            temp = f".{name[:100]}{_TEMP_MARK}{secrets.token_hex(6)}.tmp"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                fd = os.open(temp, flags, mode, dir_fd=dir_fd)
            except OSError as exc:
                raise PathRefused(f"{shown} cannot be written: {exc.strerror}") from None
            try:
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view) :]
                    if old is not None:
                        os.fchmod(fd, stat.S_IMODE(old.st_mode))
                    owner = old or os.fstat(dir_fd)
                    if os.geteuid() == 0:
                        # the sandbox may run as the folder's owner, not root: keep files theirs
                        os.fchown(fd, owner.st_uid, owner.st_gid)
                finally:
                    os.close(fd)
                os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=dir_fd)
                if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                    raise FolderFull(
                        f"{shown} cannot be written: the folder is full ({exc.strerror})"
                    ) from None
                raise PathRefused(f"{shown} cannot be written: {exc.strerror}") from None

    def write_text(
        self, path: str | os.PathLike[str], text: str, *, make_parents: bool = False
    ) -> None:
        """``write_bytes`` of ``text`` as UTF-8; text that cannot be encoded is refused."""
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise PathRefused(
                f"the text cannot be written as UTF-8 ({exc.reason} at character {exc.start})"
            ) from None
        self.write_bytes(path, data, make_parents=make_parents)

    def remove(self, path: str | os.PathLike[str]) -> None:
        """Remove the file, link or special file at ``path`` (a link itself, not its target)."""
        with self._parent(path) as (dir_fd, name):
            try:
                os.unlink(name, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise self._refusal(self.parts(path), exc, want="a file") from None

    def makedirs(self, path: str | os.PathLike[str]) -> None:
        """Make the directory ``path`` and its parents (refused through a link)."""
        os.close(self._walk(self.parts(path), create=True))


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return True  # gone or unreadable: never entered


def _shown(path: str) -> str:
    """``path`` quoted for a message: bounded, and printable whatever it holds."""
    text = path if len(path) <= 120 else path[:117] + "..."
    return ascii(text) if not text.isprintable() else repr(text)

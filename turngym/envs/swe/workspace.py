"""Repositories at their base commit: prepared once per task, copied fresh for each episode.

``prepare(task)`` makes the task's base checkout once, in the cache
(``$TURNGYM_CACHE/swe/...``): a git repository at the base commit with no other history
(an agent cannot ``git log`` its way to the fix). Bundled tasks are built from their
files with a fixed author and date, so the base commit is the same on every machine;
local clones are cloned and trimmed; Docker images have their ``/testbed`` copied out.

A ``Workspace`` is a folder an env owns. ``reset(base)`` replaces its contents with the
base checkout in milliseconds: the files are copied and the git metadata too, except the
object store, which is borrowed read-only through git's ``alternates`` (so a big
repository costs its working tree only). The workspace's git metadata is the agent's to
change, so turngym never runs host git in it: diffs and patches run inside the sandbox.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from turngym.envs.cache import cache_dir
from turngym.envs.swe.tasks import SWETask
from turngym.host.quota import mount_quota, quota_of, unmount

__all__ = ["Base", "Workspace", "git", "prepare"]

# Fixed identity and dates make a bundled repo's base commit the same everywhere.
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "turngym",
    "GIT_AUTHOR_EMAIL": "turngym@localhost",
    "GIT_COMMITTER_NAME": "turngym",
    "GIT_COMMITTER_EMAIL": "turngym@localhost",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}
# Files that running the tests leaves behind are not part of anyone's patch.
_EXCLUDE = "__pycache__/\n*.pyc\n.pytest_cache/\n*.egg-info/\n"
_VERSION = "1"  # bump when the layout of a prepared base changes
_lock = threading.Lock()


@dataclass(frozen=True)
class Base:
    """A prepared base checkout: its folder (with ``.git``) and its commit."""

    path: Path
    commit: str

    @property
    def objects(self) -> Path:
        """The git object store the workspaces borrow (read-only)."""
        return self.path / ".git" / "objects"


def git(args: list[str], cwd: Path, *, check: bool = True) -> str:
    """Run host git with a clean configuration (only on trusted folders: the cache)."""
    done = subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", *args],
        cwd=cwd,
        env={**os.environ, **_GIT_ENV},
        capture_output=True,
        text=True,
        check=False,
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {cwd}: {done.stderr.strip()}")
    return done.stdout.strip()


def prepare(task: SWETask) -> Base:
    """The task's base checkout, built into the cache the first time.

    Raises:
        ValueError: the task has neither files, a clone nor an image to start from.
        RuntimeError: git or Docker failed (with their message).

    """
    if task.source is None and task.image is None:
        raise ValueError(f"task {task.instance_id} has no source folder, clone or image")
    key = _key(task)
    folder = cache_dir() / "swe" / f"{task.instance_id}-{key}"
    with _lock:
        if not (folder / ".git").is_dir():
            folder.parent.mkdir(parents=True, exist_ok=True)
            scratch = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
            try:
                _build(task, scratch)
                _finish(scratch)
                try:
                    scratch.rename(folder)  # atomic: another process may have won
                except OSError:
                    shutil.rmtree(scratch, ignore_errors=True)
            except BaseException:
                shutil.rmtree(scratch, ignore_errors=True)
                raise
    return Base(folder, git(["rev-parse", "HEAD"], folder))


def _key(task: SWETask) -> str:
    """A digest of what the base is built from, so a changed task builds anew."""
    digest = hashlib.sha256(f"{_VERSION}\0{task.base_commit}\0{task.image}".encode())
    source = task.source
    if source is not None and not (source / ".git").exists():
        for path in sorted(p for p in source.rglob("*") if p.is_file()):
            digest.update(str(path.relative_to(source)).encode() + b"\0" + path.read_bytes())
    elif source is not None:
        digest.update(str(source.resolve()).encode())
    return digest.hexdigest()[:12]


def _build(task: SWETask, scratch: Path) -> None:
    source = task.source
    if source is not None and (source / ".git").exists():
        if not task.base_commit:
            raise ValueError(f"task {task.instance_id}: a clone needs a base_commit")
        git(["clone", "-q", "--local", "--no-checkout", str(source), str(scratch)], scratch.parent)
        git(["checkout", "-q", "--detach", task.base_commit], scratch)
    elif source is not None:
        shutil.copytree(source, scratch, dirs_exist_ok=True)
        git(["init", "-q", "-b", "main"], scratch)
        git(["add", "-A"], scratch)
        git(["commit", "-q", "-m", f"{task.repo} at its base"], scratch)
    else:
        _copy_from_image(str(task.image), scratch)
        if not (scratch / ".git").exists():
            raise RuntimeError(f"image {task.image} has no git repository at /testbed")


def _finish(scratch: Path) -> None:
    """Drop every ref, remote and reflog but the detached base, and the objects only they held."""
    head = git(["rev-parse", "HEAD"], scratch)
    git(["checkout", "-q", "--detach", head], scratch)
    for ref in git(["for-each-ref", "--format=%(refname)"], scratch).splitlines():
        git(["update-ref", "-d", ref], scratch)
    for remote in git(["remote"], scratch).splitlines():
        git(["remote", "remove", remote], scratch)
    git(["reflog", "expire", "--expire=now", "--all"], scratch)
    git(["gc", "-q", "--prune=now"], scratch)
    (scratch / ".git" / "info").mkdir(exist_ok=True)
    (scratch / ".git" / "info" / "exclude").write_text(_EXCLUDE)


def _copy_from_image(image: str, scratch: Path) -> None:
    """Copy ``/testbed`` out of a Docker image (needs the docker package and an engine)."""
    import io
    import tarfile

    import docker

    client = docker.from_env()
    container = client.containers.create(image, command="true")
    try:
        stream, _ = container.get_archive("/testbed")
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
            tar.extractall(scratch, filter="data")
    finally:
        container.remove(force=True)
    inner = scratch / "testbed"
    for child in inner.iterdir():
        child.rename(scratch / child.name)
    inner.rmdir()


class Workspace:
    """A folder that holds one episode's copy of a task's repository.

    Args:
        root: the folder (created if missing); its contents belong to the workspace.
        quota_mb: a disk quota: where this process may mount, the folder becomes a tmpfs
            of that size (``quota.mount_quota``; ``hard_quota`` says whether it did);
            elsewhere the sandbox measures the folder during its calls.

    """

    def __init__(self, root: Path, *, quota_mb: int | None = None) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.base: Base | None = None
        self.quota_mb = quota_mb
        self.hard_quota = quota_mb is not None and (
            quota_of(self.root) is not None or mount_quota(self.root, quota_mb << 20)
        )

    def reset(self, base: Base) -> None:
        """Replace the contents with a fresh copy of ``base`` (objects borrowed).

        Raises:
            RuntimeError: the copy does not fit the workspace's disk quota (says by how much).

        """
        self.clear()
        try:
            self._copy(base)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT) and not (
                isinstance(exc, shutil.Error) and "No space" in str(exc)
            ):
                raise
            size = sum(p.lstat().st_size for p in base.path.rglob("*") if p.name != "objects")
            raise RuntimeError(
                f"the repository at {base.path} ({size / 2**20:.0f} MB without git objects) "
                f"does not fit the workspace's disk quota of {self.quota_mb} MB: raise "
                "Limits.disk_mb"
            ) from None
        self.base = base

    def _copy(self, base: Base) -> None:
        for child in base.path.iterdir():
            target = self.root / child.name
            if child.name == ".git":
                shutil.copytree(child, target, symlinks=True, ignore=_objects_at_top(child))
                alternates = target / "objects" / "info"
                alternates.mkdir(parents=True)
                (alternates / "alternates").write_text(f"{base.objects}\n")
            elif child.is_dir() and not child.is_symlink():
                shutil.copytree(child, target, symlinks=True)
            else:
                shutil.copy2(child, target, follow_symlinks=False)

    def clear(self) -> None:
        """Remove everything in the folder (the folder stays)."""
        for child in self.root.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)

    def remove(self) -> None:
        """Remove the folder itself (unmounting its quota first)."""
        unmount(self.root)
        shutil.rmtree(self.root, ignore_errors=True)


def _objects_at_top(git_dir: Path):  # type: ignore[no-untyped-def]
    def ignore(folder: str, names: list[str]) -> list[str]:
        return ["objects"] if Path(folder) == git_dir else []

    return ignore

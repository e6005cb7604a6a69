"""Folder: what the host reads and writes for an agent stays inside, and never blocks."""

from __future__ import annotations

import os
import threading

import pytest

from turngym.host.confined import Folder, FolderFull, PathRefused


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "episode"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.txt").write_text("hello")
    return Folder(root)


def no_block(fn, *args):
    """Run ``fn`` in a thread; a call that blocks forever fails the test instead."""
    box: dict = {}

    def run() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), f"{fn.__name__}{args} blocked"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def test_reads_and_writes_inside_the_folder(folder):
    assert folder.read_text("notes/a.txt") == "hello"
    folder.write_text("notes/b.txt", "new")
    folder.write_text("deep/er/c.txt", "made", make_parents=True)
    assert folder.read_text("deep/er/c.txt") == "made"
    assert folder.listdir("notes") == [("a.txt", "file"), ("b.txt", "file")]
    assert folder.kind("deep") == "dir" and folder.kind("nothing") is None


@pytest.mark.parametrize("path", ["../x", "notes/../../x", "/etc/passwd", "", "a\0b", "\ud800"])
def test_paths_that_leave_the_folder_or_are_not_text_are_refused(folder, path):
    with pytest.raises(PathRefused):
        folder.read_text(path)
    with pytest.raises(PathRefused):
        folder.write_text(path, "x")


def test_an_absolute_path_under_the_root_is_fine(folder):
    assert folder.read_text(folder.root / "notes" / "a.txt") == "hello"


def test_no_link_is_followed_anywhere_on_the_path(folder, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    os.symlink(secret, folder.root / "notes" / "link.txt")
    os.symlink(tmp_path, folder.root / "out")
    os.symlink(tmp_path / "dangling.txt", folder.root / "notes" / "dangling.txt")
    for path in ("notes/link.txt", "out/secret.txt"):
        with pytest.raises(PathRefused, match="link"):
            folder.read_text(path)
    for path in ("notes/link.txt", "notes/dangling.txt", "out/new.txt"):
        with pytest.raises(PathRefused):
            folder.write_text(path, "written")
    with pytest.raises(PathRefused):
        folder.write_text("out/sub/new.txt", "x", make_parents=True)
    assert secret.read_text() == "TOP SECRET"
    assert not (tmp_path / "dangling.txt").exists() and not (tmp_path / "new.txt").exists()
    assert not (tmp_path / "sub").exists()
    assert [(n, k) for n, k in folder.listdir() if n == "out"] == [("out", "link")]
    assert [w for w in folder.walk() if w[0] == "out"] == []  # a link is never entered


def test_a_fifo_neither_blocks_a_read_nor_a_write(folder):
    os.mkfifo(folder.root / "notes" / "pipe")
    with pytest.raises(PathRefused, match="FIFO"):
        no_block(folder.read_text, "notes/pipe")
    with pytest.raises(PathRefused, match="FIFO"):
        no_block(folder.write_text, "notes/pipe", "x")


def test_a_socket_is_refused(folder):
    import socket

    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(folder.root / "sock"))
        with pytest.raises(PathRefused, match="special"):
            no_block(folder.read_bytes, "sock")


def test_reads_are_bounded(folder):
    with open(folder.root / "huge.bin", "wb") as f:
        f.truncate(30 << 30)  # sparse: nothing on disk
    with pytest.raises(PathRefused, match="at most"):
        folder.read_bytes("huge.bin")
    (folder.root / "small.txt").write_text("x" * 100)
    with pytest.raises(PathRefused, match="at most 10 bytes"):
        folder.read_bytes("small.txt", limit=10)


def test_a_write_is_atomic_and_keeps_the_mode(folder):
    target = folder.root / "notes" / "a.txt"
    target.chmod(0o600)
    before = target.stat().st_ino
    folder.write_text("notes/a.txt", "replaced")
    assert target.read_text() == "replaced" and target.stat().st_ino != before
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["a.txt"]  # no temporary file left


def test_unencodable_text_leaves_the_file_whole(folder):
    with pytest.raises(PathRefused, match="UTF-8"):
        folder.write_text("notes/a.txt", "bad \ud800")
    assert folder.read_text("notes/a.txt") == "hello"


def test_a_full_folder_is_a_clear_refusal_and_the_old_file_stays(tmp_path):
    from turngym.host.quota import mount_quota, unmount

    root = tmp_path / "small"
    root.mkdir()
    if not mount_quota(root, 1 << 20):
        pytest.skip("this process may not mount a tmpfs (root only)")
    try:
        folder = Folder(root)
        folder.write_text("keep.txt", "old")
        with pytest.raises(FolderFull, match="full"):
            folder.write_bytes("keep.txt", b"x" * (4 << 20))
        assert folder.read_text("keep.txt") == "old"
        assert [n for n, _ in folder.listdir()] == ["keep.txt"]
    finally:
        unmount(root)


def test_remove_takes_the_link_not_its_target(folder, tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("stays")
    os.symlink(target, folder.root / "link")
    folder.remove("link")
    assert not os.path.lexists(folder.root / "link") and target.read_text() == "stays"


def test_usage_counts_blocks_not_sizes(folder):
    with open(folder.root / "sparse.bin", "wb") as f:
        f.truncate(1 << 30)
    (folder.root / "real.bin").write_bytes(b"x" * (1 << 20))
    used, entries = folder.usage()
    assert (1 << 20) <= used < (4 << 20) and entries >= 4

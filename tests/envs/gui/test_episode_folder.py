"""EpisodeFolder: the bounded tree and the file manager's operations, never through a link."""

from __future__ import annotations

import os

import pytest

from turngym.envs.gui.episode_folder import EpisodeFolder, PathRefused


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "files" / "a" / "b").mkdir(parents=True)
    (tmp_path / "files" / "a" / "x.txt").write_text("x")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "outside", tmp_path / "files" / "portal")
    os.mkfifo(tmp_path / "files" / "pipe")
    return EpisodeFolder(tmp_path)


def test_tree_lists_links_and_special_files_without_entering_them(folder):
    entries, complete = folder.tree("files")
    assert complete
    assert entries == [
        ("files/a", "dir"),
        ("files/a/b", "dir"),
        ("files/a/x.txt", "file"),
        ("files/pipe", "other"),
        ("files/portal", "link"),
    ]


def test_tree_is_bounded_in_entries_and_depth(folder, tmp_path):
    deep = tmp_path / "files" / "deep"
    deep.mkdir()
    for i in range(50):
        (deep / f"f{i}").write_text("")
    entries, complete = folder.tree("files", max_entries=20)
    assert len(entries) == 20 and not complete
    entries, complete = folder.tree("files", max_depth=1)
    assert ("files/a/b", "dir") not in entries and not complete


def test_tree_of_a_linked_top_is_refused(folder):
    with pytest.raises(PathRefused, match="symbolic link"):
        folder.tree("files/portal")


def test_rename_never_replaces_and_never_goes_through_a_link(folder, tmp_path):
    folder.rename("files/a/x.txt", "files/y.txt")
    assert (tmp_path / "files" / "y.txt").read_text() == "x"
    with pytest.raises(PathRefused, match="already exists"):
        folder.rename("files/y.txt", "files/a")
    with pytest.raises(PathRefused, match="symbolic link"):
        folder.rename("files/y.txt", "files/portal/y.txt")
    assert sorted(os.listdir(tmp_path / "outside")) == ["secret.txt"]


def test_mkdir_and_rmdir(folder, tmp_path):
    folder.mkdir("files/new")
    assert (tmp_path / "files" / "new").is_dir()
    with pytest.raises(PathRefused, match="cannot be made"):
        folder.mkdir("files/new")
    with pytest.raises(PathRefused, match="not empty"):
        folder.rmdir("files/a")
    with pytest.raises(PathRefused, match="not a folder"):
        folder.rmdir("files/portal")
    folder.rmdir("files/new")
    assert not (tmp_path / "files" / "new").exists()
    assert (tmp_path / "outside").is_dir()

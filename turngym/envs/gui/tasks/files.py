"""Task templates on the Files app: rename, delete, make a folder, move.

Each episode starts from a seeded tree under ``<workdir>/files``: 3 to 8 small text
files (``.txt``, ``.md``, ``.csv``) spread over ``files/`` and up to two subfolders
(one may sit inside the other). Every check reads the whole tree back from disk and
compares it with the expected one: the asked change made, file contents kept, nothing
else created, removed or edited. The tree is read through `EpisodeFolder`: a link or a
special file is never followed or opened (it is an entry no expected tree has), a file
is read up to `CHECK_LIMIT` bytes, and at most `episode_folder.MAX_ENTRIES` entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.gui.episode_folder import EpisodeFolder, PathRefused
from turngym.envs.gui.tasks.base import GUITask, pick, words

__all__ = ["CHECK_LIMIT", "DeleteFile", "MakeFolder", "MoveFile", "RenameFile"]

CHECK_LIMIT = 64_000
"""The most bytes of one file the check reads (the tasks' files are a few lines)."""
ROOT = "files"
"""The app's folder inside the workdir; task paths are written from the workdir."""
_FOLDERS = (
    "archive",
    "backup",
    "data",
    "drafts",
    "invoices",
    "old",
    "photos",
    "projects",
    "reports",
    "shared",
    "travel",
    "work",
)
_EXTENSIONS = (".txt", ".md", ".csv")

Tree = dict[str, str | None]
"""Path relative to the workdir (``files/reports/a.txt``) -> file text, or None for a folder."""


def _content(rng: np.random.Generator, stem: str, ext: str) -> str:
    a, b = words(rng, 2)
    n = int(rng.integers(2, 40))
    if ext == ".csv":
        return f"name,count\n{a},{n}\n{b},{n + 3}\n"
    if ext == ".md":
        return f"# {stem.title()}\n\n- {a}\n- {b} x{n}\n"
    return f"{stem}: {a} and {b}, {n} items\n"


def sample_tree(rng: np.random.Generator, *, min_folders: int = 0) -> dict[str, Any]:
    """A starting tree: ``{"dirs": [...], "files": {path: text}}``, paths from the workdir.

    ``min_folders`` (0..2) subfolders at least; there are up to two. File names are
    distinct across the tree (their stems are distinct words).
    """
    dirs: list[str] = []
    for name in _draw(rng, _FOLDERS, int(rng.integers(min_folders, 3))):
        # The second folder sits inside the first one time in three: a nested path.
        parent = dirs[0] if dirs and rng.random() < 1 / 3 else ROOT
        dirs.append(f"{parent}/{name}")
    folders = [ROOT, *dirs]
    files: dict[str, str] = {}
    for stem in words(rng, int(rng.integers(3, 9))):
        ext = str(pick(rng, _EXTENSIONS))
        files[f"{pick(rng, folders)}/{stem}{ext}"] = _content(rng, stem, ext)
    return {"dirs": dirs, "files": dict(sorted(files.items()))}


def _draw(rng: np.random.Generator, options: tuple[str, ...], n: int) -> list[str]:
    """``n`` distinct entries of ``options``, drawn from ``rng``."""
    return [str(w) for w in rng.choice(options, size=n, replace=False)]


def write_tree(workdir: Path, params: Mapping[str, Any]) -> None:
    """Create ``files/``, the params' folders and files in ``workdir``."""
    (workdir / ROOT).mkdir(parents=True, exist_ok=True)
    for d in params["dirs"]:
        (workdir / d).mkdir(parents=True, exist_ok=True)
    for path, text in params["files"].items():
        (workdir / path).write_text(text, encoding="utf-8")


def starting_tree(params: Mapping[str, Any]) -> Tree:
    """The params' tree as a ``Tree``.

    >>> starting_tree({"dirs": ["files/a"], "files": {"files/a/x.txt": "hi"}})
    {'files/a': None, 'files/a/x.txt': 'hi'}
    """
    return {**dict.fromkeys(params["dirs"]), **params["files"]}


def read_tree(workdir: Path) -> Tree:
    r"""What is under ``<workdir>/files`` now, as a ``Tree`` (unreadable text is replaced).

    What no expected tree holds is given as text that matches none: a file that cannot
    be read (``"\0unreadable: why"``), a link or a special file (``"\0link"``,
    ``"\0other"``), and a tree past the walk's bounds (the key ``"\0truncated"``).
    """
    folder = EpisodeFolder(workdir)
    try:
        entries, complete = folder.tree(ROOT)
    except PathRefused as refused:
        return {ROOT: f"\0unreadable: {refused}"}
    tree: Tree = {}
    for path, kind in entries:
        if kind == "dir":
            tree[path] = None
        elif kind == "file":
            try:
                tree[path] = folder.read_text(path, CHECK_LIMIT)
            except PathRefused as refused:
                tree[path] = f"\0unreadable: {refused}"
        else:
            tree[path] = f"\0{kind}"
    if not complete:
        tree["\0truncated"] = None
    return tree


def _folder_of(path: str) -> str:
    """``files/reports/a.txt`` -> ``files/reports/`` (how the app shows a folder)."""
    return f"{path.rsplit('/', 1)[0]}/"


class _FilesTask(GUITask):
    """What the Files templates share: the starting tree and the whole-tree check."""

    apps = ("files",)

    def setup(self, params: Mapping[str, Any], workdir: Path) -> None:
        """Write the starting tree."""
        write_tree(workdir, params)

    def expected(self, params: Mapping[str, Any]) -> Tree:
        """The tree once the task is done."""
        raise NotImplementedError

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """The tree on disk is exactly the expected one (names, folders and contents)."""
        return read_tree(workdir) == self.expected(params)


class RenameFile(_FilesTask):
    """Rename one file, possibly inside a subfolder, keeping it where it is."""

    name = "files-rename"
    max_turns = 15
    description = "rename a file (maybe in a subfolder) in a file manager"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """A tree, one of its files and a new name whose stem is used nowhere."""
        tree = sample_tree(rng)
        path = str(pick(rng, sorted(tree["files"])))
        stems = {Path(p).stem for p in tree["files"]}
        stem = next(w for w in words(rng, 12) if w not in stems)
        return {**tree, "path": path, "new": f"{stem}{pick(rng, _EXTENSIONS)}"}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement, e.g. ``rename the file "files/data/cedar.txt" to "olive.md"``."""
        return (
            f'In the Files app, rename the file "{params["path"]}" to "{params["new"]}" '
            "(it stays in the same folder with the same contents; change nothing else)."
        )

    def expected(self, params: Mapping[str, Any]) -> Tree:
        """The file under its new name in the same folder."""
        tree = starting_tree(params)
        tree[_folder_of(params["path"]) + params["new"]] = tree.pop(params["path"])
        return tree


class DeleteFile(_FilesTask):
    """Delete one file of the tree."""

    name = "files-delete"
    max_turns = 12
    description = "delete one file (maybe in a subfolder) in a file manager"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """A tree and one of its files."""
        tree = sample_tree(rng)
        return {**tree, "path": str(pick(rng, sorted(tree["files"])))}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement, e.g. ``delete the file "files/cedar.txt"``."""
        return (
            f'In the Files app, delete the file "{params["path"]}" '
            "(keep every other file and folder as it is)."
        )

    def expected(self, params: Mapping[str, Any]) -> Tree:
        """The tree without that file."""
        tree = starting_tree(params)
        del tree[params["path"]]
        return tree


class MakeFolder(_FilesTask):
    """Create a new, empty folder inside a given folder."""

    name = "files-mkdir"
    max_turns = 12
    description = "create a named folder inside a given folder in a file manager"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """A tree, a parent folder (``files/`` or a subfolder) and a folder name not in use."""
        tree = sample_tree(rng)
        parent = str(pick(rng, [ROOT, *tree["dirs"]]))
        used = {Path(d).name for d in tree["dirs"]}
        folder = next(w for w in _draw(rng, _FOLDERS, len(_FOLDERS)) if w not in used)
        return {**tree, "parent": parent, "folder": folder}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement, e.g. ``create a folder named "drafts" inside "files/data/"``."""
        return (
            f'In the Files app, create a new folder named "{params["folder"]}" inside the '
            f'folder "{params["parent"]}/" (change nothing else).'
        )

    def expected(self, params: Mapping[str, Any]) -> Tree:
        """The tree plus the new, empty folder."""
        return {**starting_tree(params), f"{params['parent']}/{params['folder']}": None}


class MoveFile(_FilesTask):
    """Move one file into another folder, keeping its name."""

    name = "files-move"
    max_turns = 15
    description = "move a file into another folder in a file manager"

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """A tree with a subfolder at least, a file and a folder it is not in."""
        tree = sample_tree(rng, min_folders=1)
        path = str(pick(rng, sorted(tree["files"])))
        here = path.rsplit("/", 1)[0]
        target = str(pick(rng, [d for d in [ROOT, *tree["dirs"]] if d != here]))
        return {**tree, "path": path, "target": target}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The statement, e.g. ``move the file "files/cedar.txt" into "files/data/"``."""
        return (
            f'In the Files app, move the file "{params["path"]}" into the folder '
            f'"{params["target"]}/" (keep its name and contents; change nothing else).'
        )

    def expected(self, params: Mapping[str, Any]) -> Tree:
        """The file in the target folder under its old name."""
        tree = starting_tree(params)
        name = params["path"].rsplit("/", 1)[1]
        tree[f"{params['target']}/{name}"] = tree.pop(params["path"])
        return tree

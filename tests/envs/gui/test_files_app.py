"""The Files app through ``DesktopEnv`` (refusals, navigation, reset), and its checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests import system_deps
from turngym.agents.experts.gui.screen import Screen, key, type_text
from turngym.envs.gui.tasks import load_task
from turngym.envs.gui.tasks.files import read_tree, starting_tree, write_tree


@pytest.fixture(scope="module")
def env():
    made = gym.make("turngym/gui.files-mkdir-v0", max_turns=60, screenshot=False)
    yield made
    made.close()


class Driver:
    """Steps the env and keeps the screen, the Files state and the last result."""

    def __init__(self, env: gym.Env, seed: int) -> None:
        self.env = env
        self.text, info = env.reset(seed=seed)
        self.screen = Screen(info["widgets"])
        self.done = False

    def __call__(self, action: str) -> None:
        self.text, _, terminated, truncated, info = self.env.step(action)
        assert not info["invalid_action"], action
        self.done = terminated or truncated
        self.screen = Screen(info["widgets"])

    def click(self, role: str, name: str, **fields: str) -> None:
        self(self.screen.click(role, name, **fields))

    def entry(self, name: str) -> None:
        self.click("listitem", name, list="Entries")

    def type_name(self, text: str) -> None:
        self.click("entry", "Name")
        self(key("ctrl+a"))  # Tk's entry: start of line, then delete to the end
        self(key("ctrl+k"))
        self(type_text(text))

    @property
    def state(self) -> dict:
        return self.env.unwrapped.app_state["files"]

    @property
    def status(self) -> str:
        return self.state["status"]


@pytest.mark.x11
@system_deps.x11()
def test_refusals_change_nothing_on_disk(env):
    # Seed 0: files/ holds photos/ (with projects/ and a file inside) and sierra.md.
    d = Driver(env, seed=0)
    assert env.unwrapped.params["dirs"] == ["files/photos", "files/photos/projects"]
    before = d.state["tree"]
    d.click("button", "New folder")
    assert d.status == "Error: type a name in the Name field first"
    d.type_name("a/b")
    d.click("button", "New folder")
    assert d.status == "Error: a name cannot contain '/'"
    d.type_name(".hidden")
    d.click("button", "New folder")
    assert d.status == "Error: a name cannot start with '.'"
    d.type_name("photos")
    d.click("button", "New folder")
    assert d.status == "Error: files/photos already exists"
    d.click("button", "Rename")
    assert d.status == "Error: select an entry in the list first"
    d.click("button", "Up")
    assert d.status == "Error: already at the top folder (files/)"
    d.entry("sierra.md")
    d.click("button", "Open")
    assert d.status == "Error: sierra.md is a file, not a folder"
    d.type_name("photos")
    d.click("button", "Rename")
    assert d.status == "Error: files/photos already exists"
    d.entry("photos/")
    d.click("button", "Delete")
    assert d.status == "Error: folder photos/ is not empty (delete what is in it first)"
    d.click("button", "Move to...")
    d.click("button", "Move")
    assert d.status == "Error: choose a destination folder in the Move dialog"
    d.click("listitem", "files/photos/projects/", list="Destination")
    d.click("button", "Move")
    assert d.status == "Error: cannot move the folder photos/ into itself"
    d.click("listitem", "files/", list="Destination")
    d.click("button", "Move")
    assert d.status == "Error: photos is already in files/"
    d.click("button", "Cancel")
    assert not d.state["dialog"] and d.screen.find("listitem", list="Destination") is None
    assert d.state["tree"] == before and not d.done


@pytest.mark.x11
@system_deps.x11()
def test_navigation_and_changes(env):
    d = Driver(env, seed=0)
    d(d.screen.double_click("listitem", "photos/", list="Entries"))
    assert d.state["cwd"] == "files/photos/"
    assert d.screen.get("label", "files/photos/")
    # A press right after the double-click, on the same row of the new listing, selects.
    d.entry("projects/")
    d.click("button", "Open")
    assert d.state["cwd"] == "files/photos/projects/"
    d.click("button", "Up")
    assert (d.state["cwd"], d.state["selected"]) == ("files/photos/", "projects/")
    d.type_name("empty")
    d.click("button", "New folder")
    assert d.state["tree"]["files/photos/empty"] == "dir" and d.state["selected"] == "empty/"
    assert d.screen.get("entry", "Name")["value"] == ""
    d.click("button", "Delete")
    assert "files/photos/empty" not in d.state["tree"] and d.status == "Deleted empty/"
    d.entry("apple.md")
    d.click("button", "Move to...")
    d.click("listitem", "files/", list="Destination")
    d.click("button", "Move")
    assert d.status == "Moved apple.md to files/" and "files/apple.md" in d.state["tree"]
    assert d.screen.find("listitem", "apple.md", list="Entries") is None


@pytest.mark.x11
@system_deps.x11()
def test_reset_after_changes_is_a_fresh_start(env):
    fresh = gym.make("turngym/gui.files-mkdir-v0", max_turns=60, screenshot=False)
    try:
        first = Driver(fresh, seed=4)
    finally:
        fresh.close()
    # Seed 4: files/travel/ holds harbor.txt (and more).
    d = Driver(env, seed=4)
    d(d.screen.double_click("listitem", "travel/", list="Entries"))
    d.type_name("left over")
    d.entry("harbor.txt")
    d.click("button", "Move to...")
    d.click("listitem", "files/work/", list="Destination")
    assert d.state["dialog"] and d.state["cwd"] == "files/travel/"
    again = Driver(env, seed=4)
    assert again.text == first.text
    assert (
        again.state
        == first.state
        == {
            "cwd": "files/",
            "selected": None,
            "tree": first.state["tree"],
            "status": "",
            "dialog": False,
        }
    )


# -- the checks, on a folder written here (no X server) ---------------------------------


def _solved(task_name: str, seed: int, tmp_path: Path) -> tuple[object, dict, Path]:
    """Sample a task, write its tree and do the asked change with plain file operations."""
    task = load_task(task_name)
    params = task.sample(np.random.default_rng(seed))
    task.setup(params, tmp_path)
    assert not task.check(params, {}, tmp_path)  # not solved at the start
    if task_name == "files-rename":
        old = tmp_path / params["path"]
        old.rename(old.parent / params["new"])
    elif task_name == "files-delete":
        (tmp_path / params["path"]).unlink()
    elif task_name == "files-mkdir":
        (tmp_path / params["parent"] / params["folder"]).mkdir()
    else:
        source = tmp_path / params["path"]
        shutil.move(source, tmp_path / params["target"] / source.name)
    assert task.check(params, {}, tmp_path)
    return task, params, tmp_path


@pytest.mark.parametrize("name", ["files-rename", "files-delete", "files-mkdir", "files-move"])
@pytest.mark.parametrize("seed", range(4))
def test_check_rejects_extra_changes(name, seed, tmp_path):
    task, params, root = _solved(name, seed, tmp_path)
    (root / "files" / "extra").mkdir()
    assert not task.check(params, {}, root)
    (root / "files" / "extra").rmdir()
    some_file = next(p for p in sorted((root / "files").rglob("*")) if p.is_file())
    some_file.write_text(some_file.read_text() + "!")
    assert not task.check(params, {}, root)


@pytest.mark.parametrize("seed", range(4))
def test_check_rejects_near_misses(seed, tmp_path):
    rename = load_task("files-rename")
    params = rename.sample(np.random.default_rng(seed))
    rename.setup(params, tmp_path)
    old = tmp_path / params["path"]
    old.rename(old.parent / (params["new"] + ".bak"))  # a wrong name
    assert not rename.check(params, {}, tmp_path)
    shutil.rmtree(tmp_path / "files")

    move = load_task("files-move")
    params = move.sample(np.random.default_rng(seed))
    move.setup(params, tmp_path)
    source = tmp_path / params["path"]
    shutil.copy(source, tmp_path / params["target"] / source.name)  # copied, not moved
    assert not move.check(params, {}, tmp_path)
    shutil.rmtree(tmp_path / "files")

    mkdir = load_task("files-mkdir")
    params = mkdir.sample(np.random.default_rng(seed))
    mkdir.setup(params, tmp_path)
    (tmp_path / params["parent"] / params["folder"]).write_text("")  # a file, not a folder
    assert not mkdir.check(params, {}, tmp_path)


def test_tree_round_trip(tmp_path):
    params = load_task("files-delete").sample(np.random.default_rng(5))
    write_tree(tmp_path, params)
    assert read_tree(tmp_path) == starting_tree(params)

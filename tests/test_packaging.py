"""The wheel: what it ships, and a base install from it in a fresh venv (issue 28, items 1, 6).

The fresh venv gets turngym's wheel and, linked from this Python, only the packages that
pyproject's ``dependencies`` pull in (offline), so it is what ``pip install turngym``
gives: the base envs work without ``import turngym``, and each extra's path says in one
line what to install. The SWE tasks' hidden tests and fixes ship in the package (the
host grades with them); tests/security/test_swe_hidden.py proves no sandbox shows them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.wheel import ROOT, bare_venv, build_wheel

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

# What a wheel may hold besides its metadata: code, the data files the envs read, and
# the viewer's page templates.
SHIPPED_SUFFIXES = {".py", ".pth", ".typed", ".txt", ".tsv", ".md", ".toml", ".patch", ".html"}
HIDDEN_DATA = "turngym/envs/swe/tasks/data/"  # the one folder no sandbox shows


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_ships_license_and_py_typed_and_nothing_else_of_the_checkout(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = archive.read(info).decode()
        (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(license_file) == (ROOT / "LICENSE").read_bytes()
    assert "License-Expression: Apache-2.0" in meta
    assert "Apache License" in (ROOT / "LICENSE").read_text()
    assert "turngym/py.typed" in names
    tops = {n.split("/")[0] for n in names}
    dist_info = info.split("/")[0]
    assert tops == {"turngym", "_turngym_gym_plugin.py", "_turngym_gym_plugin.pth", dist_info}
    package = [n for n in names if n.startswith("turngym/")]
    odd = [n for n in package if Path(n).suffix not in SHIPPED_SUFFIXES or "__pycache__" in n]
    assert not odd, odd  # no checkpoints, databases, caches, logs or run folders
    hidden = [n for n in names if Path(n).name in ("fix.patch", "tests.patch")]
    assert hidden and all(n.startswith(HIDDEN_DATA) for n in hidden), hidden


def base_distributions() -> set[str]:
    """pyproject's ``dependencies`` and what they require in turn (no extras)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    todo = [Requirement(r) for r in project["dependencies"]]
    seen: set[str] = set()
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        if name in seen:
            continue
        seen.add(name)
        todo += [Requirement(r) for r in metadata.distribution(name).requires or []]
    return seen


def link_distributions(names: set[str], purelib: Path) -> None:
    """Make ``names`` importable in ``purelib`` by linking this Python's installed copies."""
    for name in names:
        dist = metadata.distribution(name)
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (purelib / top).exists():
                (purelib / top).symlink_to(source)


BASE_USE = """
import json, sys
import gymnasium as gym

env = gym.make("turngym/Wordle-v0")  # found through the wheel's .pth, no import turngym
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step("crane")
game = gym.make("turngym/TicTacToe-v0", opponent="random")
game.reset(seed=0)
_, _, _, _, game_info = game.step("b2")
errors = {}
for env_id in ("turngym/Chess-v0", "turngym/WebShop-v0", "turngym/gui.notes-create-v0"):
    try:
        gym.make(env_id)
    except ImportError as error:
        errors[env_id] = f"{type(error).__name__}: {error}"
try:
    from turngym.sdk.backends.hf import HFPolicy

    HFPolicy("model")
except ImportError as error:
    errors["HFPolicy"] = f"{type(error).__name__}: {error}"
import turngym

print(json.dumps({
    "package": turngym.__file__,
    "wordle": [obs[:40], info["invalid_action"]],
    "tictactoe": game_info["invalid_action"],
    "errors": errors,
}))
"""


def test_a_fresh_base_install_makes_base_envs_and_names_the_extra_for_the_rest(wheel, tmp_path):
    python, purelib = bare_venv(tmp_path / "venv")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
    install += ["--no-deps", "--no-index", "--no-compile", str(wheel)]
    subprocess.run(install, check=True, capture_output=True)
    base = base_distributions()
    assert {"gymnasium", "pettingzoo", "numpy"} <= base and "torch" not in base
    link_distributions(base, purelib)
    # away from the checkout (its turngym/ would shadow the wheel's) and from PYTHONPATH
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = {"capture_output": True, "text": True, "timeout": 300, "cwd": tmp_path, "env": env}

    done = subprocess.run([str(python), "-c", BASE_USE], **run)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["package"].startswith(str(purelib))
    assert result["wordle"][1] is False and result["tictactoe"] is False
    extras = {
        "turngym/Chess-v0": "chess",
        "turngym/WebShop-v0": "web",
        "turngym/gui.notes-create-v0": "gui",
        "HFPolicy": "llm",
    }
    for what, extra in extras.items():
        line = result["errors"][what]
        assert line.startswith("MissingExtra: ") and "\n" not in line, line
        assert f"needs the {extra} extra: pip install 'turngym[{extra}]'" in line, line

    done = subprocess.run([str(python.parent / "turngym"), "play", "Chess-v0"], **run)
    assert done.returncode == 2
    assert done.stderr == "turngym: Chess-v0 needs the chess extra: pip install 'turngym[chess]'\n"

"""The install lock (requirements/lock.txt): it pins everything the Makefile installs.

``make test``, ``make check-base`` and CI install through the lock so the same commit
gives the same result next month (issue 53: a dependency that moved turned a green commit
red). These tests hold the lock to pyproject.toml's ranges and the Makefile to the lock;
under CI (``TURNGYM_REQUIRE_LOCK=1``) the running interpreter must hold exactly its pins.
"""

from __future__ import annotations

import os
import re
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"
# What the Makefile installs beside the dev extras, without their dependencies.
NO_DEPS = ("nle>=1.3", "minihack>=1.0")


def pins() -> dict[str, Version]:
    """The lock as ``{canonical name: version}``."""
    found = {}
    for line in LOCK.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, sep, version = line.partition("==")
        assert sep and re.fullmatch(r"[A-Za-z0-9._-]+", name), f"not a name==version pin: {line!r}"
        found[canonicalize_name(name)] = Version(version)
    return found


def dev_requirements() -> list[Requirement]:
    """The base dependencies and every extra the ``dev`` extra pulls in, recursively."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted, seen, out = ["dev"], set(), [Requirement(r) for r in project["dependencies"]]
    while wanted:
        extra = wanted.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for text in extras[extra]:
            req = Requirement(text)
            if canonicalize_name(req.name) == "turngym":
                wanted.extend(req.extras)
            else:
                out.append(req)
    return out + [Requirement(r) for r in NO_DEPS]


def test_the_lock_pins_every_requirement_within_its_range():
    locked = pins()
    for req in dev_requirements():
        if req.marker is not None and not req.marker.evaluate():
            continue
        name = canonicalize_name(req.name)
        assert name in locked, f"{req.name} is not in {LOCK.name}: run `make lock`"
        assert req.specifier.contains(locked[name], prereleases=True), (
            f"{req.name}=={locked[name]} in {LOCK.name} is outside pyproject.toml's {req}"
        )


def test_the_lock_pins_the_cpu_torch_the_makefile_installs():
    makefile = (ROOT / "Makefile").read_text()
    torch = re.search(r"^TORCH\s*\?=\s*torch==(\S+)$", makefile, re.M)
    assert torch, "the Makefile names its torch build"
    assert pins()["torch"].base_version == Version(torch.group(1)).base_version


def test_every_pip_install_of_the_makefile_goes_through_the_lock():
    lines = [line.strip() for line in (ROOT / "Makefile").read_text().splitlines()]
    installs = [line for line in lines if "-m pip install" in line]
    assert len(installs) >= 6
    for line in installs:
        # dev_install's lines take the pin as their second argument: $(2)
        assert "$(PIN)" in line or "$(2)" in line, f"installs around the lock: {line}"
    assert "$(call dev_install,$(VENV),$(PIN))" in lines


@pytest.mark.skipif(
    os.environ.get("TURNGYM_REQUIRE_LOCK") != "1",
    reason="the interpreter is checked against the lock under CI (TURNGYM_REQUIRE_LOCK=1)",
)
def test_the_running_install_is_the_lock():
    differ = []
    for name, version in pins().items():
        try:
            installed = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            continue  # the base venv holds a subset of the lock
        if installed != version:
            differ.append(f"{name} {installed} (lock: {version})")
    assert not differ, "installed beside the lock: " + ", ".join(differ)

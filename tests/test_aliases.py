"""The import paths issue 43 moved keep working for one release, each with a warning."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from turngym.aliases import moved_to

ROOT = Path(__file__).resolve().parents[1]

# old module -> (a name it had, the module that holds it now)
MOVED = {
    "turngym.cli_args": ("CliError", "turngym.cli.args"),
    "turngym.cli_eval": ("add_eval_parser", "turngym.cli.eval"),
    "turngym.cli_view": ("play_folder", "turngym.cli.view"),
    "turngym.sdk.serve_auth": ("RequireKey", "turngym.sdk.serve.auth"),
    "turngym.sdk.serve_batcher": ("Batcher", "turngym.sdk.serve.batcher"),
    "turngym.sdk.serve_connections": ("ServeConnections", "turngym.sdk.serve.connections"),
    "turngym.sdk.serve_limits": ("ServeLimits", "turngym.sdk.serve.limits"),
    "turngym.sdk.serve_weights": ("WeightsDir", "turngym.sdk.serve.weights"),
    "turngym.envs.confined": ("Folder", "turngym.host.confined"),
    "turngym.envs.reaper": ("spawn", "turngym.host.reaper"),
    "turngym.envs.swe.cgroups": ("CgroupSet", "turngym.host.cgroups"),
    "turngym.envs.swe.quota": ("DiskQuota", "turngym.host.quota"),
    "turngym.envs.swe.seccomp": ("fallocate_filter", "turngym.host.seccomp"),
    "turngym.envs.swe.host_view": ("ETC_ALLOWED", "turngym.host.system_view"),
    "turngym.envs.swe.sandbox": ("make_sandbox", "turngym.host.sandbox"),
    "turngym.envs.swe.docker_sandbox": ("DockerSandbox", "turngym.host.sandbox.docker"),
    "turngym.envs.swe.local_sandbox": ("LocalSandbox", "turngym.host.sandbox.local"),
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_name_read_from_an_old_path_is_the_new_one_and_warns_with_its_home(old):
    name, new = MOVED[old]
    module = importlib.import_module(old)  # importing alone does not warn (doctest collects it)
    with pytest.warns(DeprecationWarning, match=re.escape(f"moved to {new}.{name}")):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)


def test_an_unknown_name_is_an_attribute_error_that_names_the_new_home():
    getattr_ = moved_to("turngym.cli_args", "turngym.cli.args")
    with pytest.raises(
        AttributeError, match=r"no attribute 'nope' \(it moved to turngym.cli.args\)"
    ):
        getattr_("nope")
    with pytest.raises(AttributeError):  # tools' dunder probes find nothing, and do not warn
        getattr_("__wrapped__")


def test_the_old_adapter_rows_are_the_tables_adapter_rows_and_warn():
    from turngym.registry.table import ADAPTERS
    from turngym.registry_adapters import adapter_rows

    with pytest.warns(DeprecationWarning, match="turngym.registry.table.ADAPTERS"):
        rows = adapter_rows(None, None)
    assert rows == ADAPTERS and {e.suite for e in rows} == {
        "openspiel",
        "babyai",
        "crafter",
        "nethack",
        "textworld",
        "reasoning_gym",
    }


_OLD_PATH = re.compile(
    r"turngym[./](cli_args|cli_eval|cli_view|registry_adapters|sdk[./]serve_[a-z]+"
    r"|agents[./](llm|mini_swe)|envs[./](confined|reaper)"
    r"|envs[./]swe[./](cgroups|quota|seccomp|host_view|sandbox|docker_sandbox|local_sandbox))\b"
)
# the alias modules themselves, and the tests of them
_ALIAS_FILES = {
    *(Path(*old.split(".")).with_suffix(".py") for old in [*MOVED, "turngym.registry_adapters"]),
    Path("tests/test_aliases.py"),
    Path("turngym/agents/llm.py"),
    Path("turngym/agents/mini_swe.py"),
    Path("tests/agents/test_moved_aliases.py"),
    Path("docs/development/architecture.md"),  # it names the aliases, to say they go
}


def test_nothing_of_the_project_uses_an_old_path():
    used = []
    for folder in ("turngym", "tests", "benchmarks", "docs", "examples", "scripts"):
        for path in sorted((ROOT / folder).rglob("*")):
            rel = path.relative_to(ROOT)
            if path.suffix not in (".py", ".md", ".yml", ".toml") or rel in _ALIAS_FILES:
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if _OLD_PATH.search(line):
                    used.append(f"{rel}:{number}: {line.strip()}")
    assert not used, "old import paths in use:\n" + "\n".join(used)

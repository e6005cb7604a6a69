"""Session-wide test settings."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def sb3_logs_in_a_temporary_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Stable-Baselines3 makes a /tmp/SB3-<date> folder per run unless SB3_LOGDIR names one.

    Pointing it at pytest's temporary directory (inherited by example subprocesses)
    keeps the test suite from leaving a folder in /tmp for every PPO run.
    """
    old = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))
    yield
    if old is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = old


@pytest.fixture(scope="session", autouse=True)
def web_cache_in_a_temporary_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The web envs' prepared databases go to pytest's temporary directory, not ~/.cache."""
    old = os.environ.get("TURNGYM_CACHE")
    os.environ["TURNGYM_CACHE"] = str(tmp_path_factory.mktemp("turngym-cache"))
    yield
    if old is None:
        os.environ.pop("TURNGYM_CACHE", None)
    else:
        os.environ["TURNGYM_CACHE"] = old

"""Session-wide test settings."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Pick this run's sampling seed (tests/sampling.py) before xdist starts its workers."""
    from tests.sampling import SEED_VARIABLE

    if SEED_VARIABLE not in os.environ:  # the workers inherit the controller's value
        os.environ[SEED_VARIABLE] = str(random.SystemRandom().randrange(1_000_000))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the sampling seed, so a failure in a sampled id can be repeated."""
    from tests.sampling import SEED_VARIABLE

    seed = os.environ.get(SEED_VARIABLE)
    terminalreporter.write_line(f"sampled adapter ids with {SEED_VARIABLE}={seed}")


def _set_for_the_session(name: str, value: str) -> Iterator[None]:
    """Set an environment variable while the session runs, then restore it."""
    old = os.environ.get(name)
    os.environ[name] = value
    yield
    if old is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = old


@pytest.fixture(scope="session", autouse=True)
def sb3_logs_in_a_temporary_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Stable-Baselines3 makes a /tmp/SB3-<date> folder per run unless SB3_LOGDIR names one.

    Pointing it at pytest's temporary directory (inherited by example subprocesses)
    keeps the test suite from leaving a folder in /tmp for every PPO run.
    """
    yield from _set_for_the_session("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3-logs")))


@pytest.fixture(scope="session", autouse=True)
def web_cache_in_a_temporary_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The web envs' prepared databases go to pytest's temporary directory, not ~/.cache."""
    yield from _set_for_the_session("TURNGYM_CACHE", str(tmp_path_factory.mktemp("turngym-cache")))

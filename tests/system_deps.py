"""Skip markers for tests that need a system package, and CI's guard against skipping.

CI (``.ci/run``) sets ``TURNGYM_REQUIRE_SYSTEM_DEPS=1``: there a missing package makes
its tests fail instead of skip, so nothing is silently left untested.
"""

from __future__ import annotations

import os

import pytest

REQUIRED = bool(os.environ.get("TURNGYM_REQUIRE_SYSTEM_DEPS"))


def needs(found: object, what: str, install: str) -> pytest.MarkDecorator:
    """Skip unless ``found`` (a path, a module...) is truthy, or CI requires ``what``."""
    return pytest.mark.skipif(
        not found and not REQUIRED,
        reason=f"{what} is not installed ({install}; `make test` installs it as root)",
    )


def stockfish() -> pytest.MarkDecorator:
    """Skip unless the Stockfish binary is found."""
    from turngym.envs.text.chess_engine import find_stockfish

    return needs(find_stockfish(), "Stockfish", "apt-get install stockfish")

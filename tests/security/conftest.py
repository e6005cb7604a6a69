"""Every test here is an attack an RL policy (or a hostile client) could make on the host.

Each one failed before its defence landed (ARCHITECTURE section 10). They carry the
``security`` marker (``pytest -m security``) and the marker of the system package they
need (``browser``, ``x11``, ``sandbox``), so CI, which installs those packages, runs them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.security)

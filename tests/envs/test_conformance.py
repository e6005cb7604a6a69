"""One conformance check over every family, drawn from the registry.

A new env needs no test of its own to be checked: its registry row puts it here. Every
cheap native id (no outside suite, no system package) runs ``check_text_env`` with its
defaults, and a games row also ``check_game`` on ``make_game``; the expensive groups
(web, MiniWoB, desktop, SWE) and every adapter suite send a seeded sample
(``tests/sampling.py``). Env tests of their own keep the checks with special arguments.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

import turngym.registry
from tests import system_deps
from tests.sampling import sample_ids
from turngym.registry import EnvEntry
from turngym.testing import check_game, check_text_env

# How many ids of an expensive group or an adapter suite one run checks.
SAMPLE_PER_GROUP = 1
# Groups whose every id (or every task kind) their own test already runs through
# check_text_env, and whose one episode costs 15-60 s: sampling them here again would
# spend CI's budget twice. The file that checks them is named so a reader can find it.
CHECKED_ELSEWHERE = {
    "textworld": "tests/envs/adapters/test_textworld.py",
    "crafter": "tests/envs/adapters/test_crafter.py",
    "miniwob": "tests/envs/web/test_miniwob.py",
    "web": "tests/envs/web/test_site_envs.py",
    # a seeded sample of six through check_game every run; its SLOW ids (1,000-round
    # games, past check_game's 2,000-move bound) with a shorter horizon
    "openspiel": "tests/envs/adapters/test_openspiel.py",
}


# Ids whose own test runs check_text_env with its defaults and more, at 10-20 s an id.
IDS_CHECKED_ELSEWHERE = {
    "turngym/Chess-v0": "tests/envs/text/test_chess_game.py",
    "turngym/ChessEndgame-v0": "tests/envs/text/test_chess_game.py",
}


def _cheap(row: EnvEntry) -> bool:
    """A native row that needs nothing outside the base install: every id runs."""
    return row.suite is None and row.extra is None and not row.system


def conformance_rows(rows: Iterable[EnvEntry] = ()) -> list[EnvEntry]:
    """The rows this run checks: every cheap one, and a seeded sample of each other group.

    ``rows`` defaults to the registry's ``ENVS`` read at call time, so a row added to the
    table (as a newcomer would) is picked up without a test naming it.
    """
    table = list(rows) or list(turngym.registry.ENVS)
    chosen = {row.id for row in table if _cheap(row)}
    groups: dict[str, list[str]] = {}
    for row in table:
        elsewhere = row.group in CHECKED_ELSEWHERE or row.id in IDS_CHECKED_ELSEWHERE
        if row.id not in chosen and not elsewhere:
            groups.setdefault(row.group, []).append(row.id)
    for ids in groups.values():
        chosen.update(sample_ids(ids, SAMPLE_PER_GROUP))
    return [row for row in table if row.id in chosen]


def _skip_reason(row: EnvEntry) -> str | None:
    """Why the row cannot run here (the same rules as tests/test_registry.py), or None."""
    if row.family == "web" and not (system_deps.chromium_found() or system_deps.REQUIRED):
        return "Chromium (+ Playwright) is not installed"
    if row.family == "gui" and not (system_deps.x11_found() or system_deps.REQUIRED):
        return "Xvfb is not installed"
    if row.family == "swe" and system_deps.INNER_LOOP:
        return "make check leaves out the sandboxed SWE envs"
    # an adapter's library, or a text env's own extra (Chess: python-chess), is optional
    # where the system-package families are not (CI requires those)
    if row.family not in ("web", "gui", "swe") and row.unavailable() is not None:
        return f"{row.suite or row.name} cannot run here: {row.unavailable()}"
    if row.system and system_deps.INNER_LOOP:
        return f"make check leaves out what needs {', '.join(row.system)}"
    return None


_ROWS = conformance_rows()
_SINGLE = [row for row in _ROWS if row.family != "games"]
_GAMES = [row for row in _ROWS if row.family == "games"]


def _cost(row: EnvEntry) -> dict[str, int]:
    """Smaller budgets for the rows whose one episode is slow (browsers, sandboxes, adapters)."""
    if _cheap(row):
        return {}
    return {"n_fuzz": 50, "reset_episodes": 1, "expert_episodes": 1}


@pytest.mark.parametrize("row", _SINGLE, ids=lambda e: e.name)
def test_every_family_passes_check_text_env(row: EnvEntry) -> None:
    reason = _skip_reason(row)
    if reason is not None:
        pytest.skip(reason)
    report = check_text_env(row.id, **_cost(row))
    assert report.passed, report.table()


@pytest.mark.parametrize("row", _GAMES, ids=lambda e: e.name)
def test_every_game_passes_check_game(row: EnvEntry) -> None:
    reason = _skip_reason(row)
    if reason is not None:
        pytest.skip(reason)
    kwargs = {} if _cheap(row) else {"n_fuzz": 50, "n_games": 10, "reset_games": 1}
    report = check_game(row.id, **kwargs)
    assert report.passed, report.table()

"""A new env needs only its file and a registry row: the registry-driven checks take it up.

The test plays the newcomer: it writes a tiny text env into a fresh module, appends one
``EnvEntry`` to the table, and finds the id in ``turngym list``, in the conformance
test's rows, passing ``check_text_env``, in the gallery and in the guide's table of text
envs (a row from its description), with no test or page of its own written for it.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import gymnasium as gym
import pytest

import turngym.registry
from tests.envs.test_conformance import conformance_rows
from turngym.cli import main
from turngym.registry import EnvEntry, register_envs, table
from turngym.registry import text as text_rows
from turngym.testing import check_text_env

NEW_ID = "turngym/NewcomerCount-v0"
ROOT = Path(__file__).resolve().parents[2]

ENV_FILE = '''
"""A newcomer's env: reach a target by adding 1 or 2."""

from turngym.core import Invalid, Outcome, TextEnv, match_action


class NewcomerCount(TextEnv[int]):
    """Reach a random target by adding 1 or 2."""

    def _reset(self, options):
        self.target = int(self.np_random.integers(3, 8))
        self.total = 0
        self.instruction = f"Reach exactly {self.target} by adding 1 or 2."
        return self.instruction

    def _parse(self, action):
        value = match_action(action, {"1": 1, "2": 2})
        return Invalid("say 1 or 2") if value is None else value

    def _apply(self, action):
        self.total += action
        won = self.total == self.target
        lost = self.total > self.target
        return Outcome(f"Total {self.total}.", float(won), terminated=won or lost, success=won)

    def _legal_actions(self):
        return ["1", "2"]

    def _render(self):
        return f"{self.total}/{self.target}"

    def _state_key(self):
        return f"{self.total}/{self.target}"
'''


@pytest.fixture
def newcomer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The env file in a fresh module on the path, and its row in the text family's module.

    The row goes where a newcomer writes it, ``turngym/registry/text.py``'s ``TEXT``;
    the table is then built again from the family modules, as importing it builds it.
    """
    (tmp_path / "newcomer_count.py").write_text(textwrap.dedent(ENV_FILE))
    monkeypatch.syspath_prepend(str(tmp_path))
    row = EnvEntry(
        id=NEW_ID,
        entry_point="newcomer_count:NewcomerCount",
        family="text",
        max_episode_steps=20,
        finite_actions=True,
        stochastic=False,
        description="a newcomer's env: reach a target by adding 1 or 2",
    )
    monkeypatch.setattr(text_rows, "TEXT", (*text_rows.TEXT, row))
    importlib.reload(table)
    monkeypatch.setattr(turngym.registry, "ENVS", table.ENVS)
    register_envs()
    try:
        yield row
    finally:
        monkeypatch.undo()
        importlib.reload(table)
        gym.registry.pop(NEW_ID, None)


def test_a_new_env_is_listed_and_conformance_checked(newcomer: EnvEntry, capsys) -> None:
    assert main(["list", "--family", "text"]) == 0
    assert NEW_ID in capsys.readouterr().out
    assert newcomer in conformance_rows()
    assert check_text_env(NEW_ID).passed
    assert gym.make(NEW_ID).spec.max_episode_steps == 20


def test_a_new_env_gets_a_gallery_page_with_an_episode_from_its_row_alone(
    newcomer: EnvEntry, tmp_path: Path
) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import docs_gallery
    import gallery_pages

    assert not docs_gallery.data_path(newcomer).is_file()  # nothing committed for it
    out = tmp_path / "envs"
    gallery_pages.write_pages(out, docs_gallery.GALLERY)
    text = (out / "text" / "NewcomerCount.md").read_text(encoding="utf-8")
    assert text.startswith(f"# {NEW_ID}\n")
    assert "Reach exactly" in text  # the episode recorded while the pages were built
    assert "NewcomerCount" in (out / "text" / "index.md").read_text(encoding="utf-8")


def test_a_new_env_gets_a_row_in_the_guides_table_from_its_description(
    newcomer: EnvEntry,
) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    from tests.docs.pages import expanded

    page = ROOT / "docs" / "guide" / "environments.md"
    assert NEW_ID not in page.read_text(encoding="utf-8")  # nobody wrote it in
    text_envs = expanded(page).split("\n## ", 1)[0]  # the text and classic envs' table
    rows = [line for line in text_envs.splitlines() if line.startswith(f"| `{NEW_ID}` |")]
    assert rows == [
        f'| `{NEW_ID}` | {newcomer.description} | listed in `info["legal_actions"]` | none |'
    ]
    table = text_envs[text_envs.index("| id | what |") :].split("\n\n", 1)[0].splitlines()
    assert table[-1] == rows[0]  # it continues the table, after the hand-written rows


def test_the_table_is_itself_again_after_the_newcomer_left(newcomer: EnvEntry) -> None:
    assert table.entry(NEW_ID) is newcomer  # the rebuilt table knows it


def test_the_newcomer_is_gone_afterwards() -> None:
    assert NEW_ID not in {e.id for e in table.ENVS}
    assert NEW_ID not in gym.registry

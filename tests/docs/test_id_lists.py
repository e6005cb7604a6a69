"""The id hook (scripts/docs_id_lists.py): the pages' id lists, counts and table rows.

Each test hands ``on_page_markdown`` a page's text, as MkDocs does, and reads what comes
back; the whole site is built by ``make docs``, not here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed")
from mkdocs.exceptions import PluginError

from tests.docs.pages import ROOT, expanded, script
from turngym.registry import entry, select

HOOK = script("docs_id_lists")
expand = HOOK.on_page_markdown

HEAD = "| id | what | actions | expert |\n|---|---|---|---|\n"


def _names(family: str) -> list[str]:
    return [e.name for e in select(families=[family])]


def test_an_id_list_is_every_id_of_the_family_in_the_registrys_order():
    out = expand("Every id: <!-- id-list: reasoning_gym -->.")
    assert out == "Every id: " + ", ".join(f"`{n}`" for n in _names("reasoning_gym")) + "."
    assert len(_names("reasoning_gym")) > 100


def test_a_prefix_selects_the_ids_it_starts_and_names_drop_prefix_and_version():
    minihack = expand("<!-- id-list: minihack. -->")
    assert "`minihack.Room-5x5-v0`" in minihack and "nethack-v0" not in minihack
    names = expand("for <!-- id-names: textworld -->")
    assert names == "for `treasure_hunter`, `coin_collector`, `cooking`"


def test_a_count_is_the_selections_size_and_words_add_up():
    assert expand("(<!-- id-count: babyai --> ids)") == f"({len(_names('babyai'))} ids)"
    both = len(_names("text")) + len(_names("classic"))
    assert expand("<!-- id-count: text classic -->") == str(both)


def test_a_marker_in_a_code_span_is_left_as_written():
    text = "write `<!-- id-list: babyai -->` on its own"
    assert expand(text) == text


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("<!-- id-list: nosuchfamily -->", r"'nosuchfamily' selects no registered id"),
        ("<!-- id-count: minihack.Nope -->", r"'minihack\.Nope' selects no registered id"),
        ("<!-- id-names: babyai nosuch. -->", r"'nosuch\.' selects no registered id"),
        ("<!-- id-lists: babyai -->", r"is no id marker"),
        ("text <!-- id-table-rest: classic -->", r"is no id marker"),
    ],
)
def test_a_bad_marker_fails_the_build(text, error):
    with pytest.raises(PluginError, match=error):
        expand(text)


def test_a_table_gets_a_row_for_each_id_of_its_family_it_does_not_describe():
    page = (
        HEAD
        + "| `turngym/Taxi-v0` | by hand | hand | hand |\n<!-- id-table-rest: classic -->\n\nafter"
    )
    lines = expand(page).split("\n")
    assert lines[2] == "| `turngym/Taxi-v0` | by hand | hand | hand |"
    headers = ["id", "what", "actions", "expert"]
    rest = [HOOK.generated_row(entry(n), headers) for n in ("CliffWalking-v0", "Blackjack-v0")]
    assert lines[3:] == [*rest, "", "after"]
    blackjack = entry("Blackjack-v0")
    assert rest[1].startswith(f"| `turngym/Blackjack-v0` | {blackjack.description} |")
    assert rest[1].endswith(f"| `{blackjack.expert.rpartition(':')[2]}` |")


def test_a_table_that_describes_every_id_loses_only_its_marker():
    rows = "".join(f"| `turngym/{n}` | x | y | z |\n" for n in _names("classic"))
    assert expand(HEAD + rows + "<!-- id-table-rest: classic -->\nafter") == HEAD + rows + "after"


def test_an_id_described_by_another_marked_table_is_not_added_again():
    first = HEAD + "| `turngym/Taxi-v0` | a | b | c |\n<!-- id-table-rest: classic -->\n"
    second = HEAD + "| `turngym/CliffWalking-v0` | a | b | c |\n<!-- id-table-rest: classic -->\n"
    out = expand(first + "\n" + second)
    assert out.count("turngym/Blackjack-v0") == 1 and out.count("turngym/CliffWalking-v0") == 1
    assert out.index("Blackjack-v0") < out.index("CliffWalking-v0")  # under the first table


@pytest.mark.parametrize(
    ("rows", "error"),
    [
        ("| `turngym/Taxy-v0` | a | b | c |\n", r"'Taxy-v0'.*did you mean Taxi-v0"),
        ("| `turngym/Wordle-v0` | a | b | c |\n", r"describes turngym/Wordle-v0, which the"),
        ("| Taxi | a | b | c |\n", r"does not start with a `turngym/<id>` cell"),
        ("\n", r"must come right after a Markdown table"),
    ],
)
def test_a_table_row_the_registry_does_not_back_fails_the_build(rows, error):
    with pytest.raises(PluginError, match=error):
        expand(HEAD + rows + "<!-- id-table-rest: classic -->\n")


# the written pages; docs/envs/ is the gallery scripts/docs_gallery.py generates
PAGES = sorted(
    p for p in (ROOT / "docs").rglob("*.md") if "envs" not in p.relative_to(ROOT / "docs").parts[:1]
)


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_page_expands_and_keeps_no_marker(page: Path):
    out = expanded(page)
    assert HOOK.INLINE.search(out) is None
    assert not any(HOOK.TABLE_REST.match(line) for line in out.splitlines())


def test_the_adapter_and_guide_pages_name_ids_only_through_markers():
    # a hand-kept list of ids: a run of three backticked ids of one suite in a row
    for page in [*(ROOT / "docs/adapters").glob("*.md"), *(ROOT / "docs/guide").glob("*.md")]:
        text = page.read_text(encoding="utf-8")
        for e in select():
            if e.suite is None:
                continue
            assert f"`{e.name}`, `" not in text, f"{page.name} lists {e.name} by hand"

"""README.md and the guide (docs/guide/*.md) as written: their Python snippets run, their
commands parse, their figures match.

A snippet runs in a fresh namespace in a temporary folder. An HTML comment on the line
before a snippet's fence changes that:

- ``<!-- readme-test: skip (REASON) -->``: not run (only for a GPU, a server or a
  cluster);
- ``<!-- readme-test: after the commands above -->``: the ``turngym`` commands of the
  nearest bash block above run first (those with an expert or random agent).

A snippet that needs an extra that is not installed skips, naming the extra.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.docs.pages import expanded
from turngym.extras import EXTRAS, MissingExtra
from turngym.registry import ENVS, FAMILIES

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BENCHMARKS = (ROOT / "benchmarks" / "README.md").read_text()
GUIDE = sorted((ROOT / "docs" / "guide").glob("*.md"))
ENV_PAGE = (ROOT / "docs" / "guide" / "environments.md").read_text()
PAGES = {"README.md": README, **{f"docs/guide/{p.name}": p.read_text() for p in GUIDE}}

_FENCE = re.compile(
    r"(?:<!-- readme-test: (?P<mark>[^>]*?) -->\n)?```(?P<lang>\w+)\n(?P<code>.*?)```", re.S
)
_BLOCKS = [
    (page, text.count("\n", 0, m.start("code")) + 1, m["lang"], m["code"], m["mark"])
    for page, text in PAGES.items()
    for m in _FENCE.finditer(text)
]
_PYTHON = [
    (f"{page}:{line}", code, mark) for page, line, lang, code, mark in _BLOCKS if lang == "python"
]
_SNIPPETS = _PYTHON[1:]  # the first is the README's taste (test_quickstart_block_runs)


def test_the_readme_is_short_and_the_guide_holds_the_rest():
    # issue 31: the README is the pitch, the two commands, a taste, the families table
    # and the way to the site; everything else moved to docs/guide/.
    assert README.count("\n") < 120
    assert len(GUIDE) >= 8
    for page in GUIDE:
        assert f"docs/guide/{page.name}" in README, page.name


def test_quickstart_block_runs(capsys):
    block = re.search(r"```python\n(.*?)```", README, re.S)
    assert block is not None
    exec(compile(block.group(1), "README.md", "exec"), {})
    assert "CRANE" in capsys.readouterr().out


def _commands(code: str) -> list[list[str]]:
    """The ``turngym`` command lines of a bash block, as argv lists (after ``turngym``)."""
    out = []
    for line in code.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if words and words[-1] == "&":
            words.pop()
        if words[:1] == ["turngym"]:
            out.append(words[1:])
        elif "turngym.cli" in words:  # torchrun ... -m turngym.cli train ...
            out.append(words[words.index("turngym.cli") + 1 :])
    return out


def _bash_before(where: str) -> str:
    page, line = where.rsplit(":", 1)
    blocks = [
        code
        for p, start, lang, code, _ in _BLOCKS
        if p == page and lang == "bash" and start < int(line)
    ]
    assert blocks, f"{where} runs after the commands above, but none are above"
    return blocks[-1]


@pytest.mark.parametrize(("where", "code", "mark"), _SNIPPETS, ids=[w for w, _, _ in _SNIPPETS])
def test_python_snippet_runs(where, code, mark, tmp_path, monkeypatch, capsys):
    from turngym.cli import main

    if mark and mark.startswith("skip"):
        reason = mark.removeprefix("skip").strip(" ()")
        assert re.search(r"GPU|server|cluster", reason), f"{where}: skip only for those"
        pytest.skip(f"{where}: {reason}")
    assert mark in (None, "after the commands above"), f"{where}: unknown mark {mark!r}"
    monkeypatch.chdir(tmp_path)  # snippets write runs/, data/, few.parquet
    try:
        if mark:
            for argv in _commands(_bash_before(where)):
                if not any(a.startswith(("hf:", "openai:")) for a in argv):
                    assert main(argv) == 0, argv
        exec(compile(code, where, "exec"), {"__name__": "__readme__"})
    except MissingExtra as error:
        pytest.skip(str(error))
    except ModuleNotFoundError as error:
        extra = next((e for e in EXTRAS.values() if error.name in (*e.modules, *e.also)), None)
        if extra is None:
            raise
        pytest.skip(f"{where} needs the {extra.name} extra ({error.name})")
    capsys.readouterr()


def test_every_turngym_command_parses_and_names_real_envs_and_files():
    from turngym.cli import build_parser
    from turngym.registry import select

    parser = build_parser()
    commands = [argv for *_, lang, code, _ in _BLOCKS if lang == "bash" for argv in _commands(code)]
    assert len(commands) > 20
    for argv in commands:
        try:
            args = parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"a documented command does not parse: turngym {shlex.join(argv)}")
        env = getattr(args, "env", None)  # one id (play, collect, train) or a list (eval)
        select([env] if isinstance(env, str) else env or [])  # KeyError: no such env
        if getattr(args, "config", None):
            assert (ROOT / args.config).is_file(), args.config


def _env_page() -> str:
    """The environments page as the site shows it: its id markers expanded."""
    return expanded(ROOT / "docs" / "guide" / "environments.md")


def test_env_table_lists_every_registered_id():
    page = _env_page()
    listed = set(re.findall(r"`(turngym/[A-Za-z0-9]+(?:-[A-Z][A-Za-z0-9]+)*-v\d+)`", page))
    # the adapters' ids are in their suites' pages (the next test)
    adapters = {e.id for e in ENVS if e.suite is not None}
    table = {e.id for e in ENVS if e.suite is None and not e.name.startswith(("miniwob.", "gui."))}
    assert listed - adapters == table


def test_every_adapter_id_is_named_in_its_suites_page():
    pages = "\n".join(expanded(p) for p in sorted((ROOT / "docs/adapters").glob("*.md")))
    named = set(re.findall(r"`(?:turngym/)?([a-z_]+(?:\.[A-Za-z0-9_.+-]+)?-v\d+)`", pages))
    assert {e.name for e in ENVS if e.suite is not None} <= named


def test_every_miniwob_task_is_named_in_the_guide():
    section = _env_page().split("## MiniWoB++", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([a-z0-9-]+)`", section))
    assert {
        e.name[len("miniwob.") : -len("-v0")] for e in ENVS if e.name.startswith("miniwob.")
    } <= named


def test_every_desktop_task_is_named_in_the_guide():
    section = _env_page().split("## Desktop", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`turngym/(gui\.[a-z0-9-]+-v0)`", section))
    assert {e.name for e in ENVS if e.name.startswith("gui.")} == named


# -- figures -------------------------------------------------------------------------


def _table(text: str, header: str) -> list[list[str]]:
    """The rows of the markdown table whose header line starts with ``header``."""
    start = text.index(header)
    lines = text[start:].split("\n\n", 1)[0].splitlines()[2:]
    return [[c.strip() for c in row.strip("|").split("|")] for row in lines]


def test_the_headroom_table_is_the_benchmarks_one():
    header = "| family | envs | expert | random | heuristic |"
    headroom = (ROOT / "benchmarks" / "headroom.md").read_text()
    assert _table(ENV_PAGE, header) == _table(BENCHMARKS, header) == _table(headroom, header)


def test_webshop_and_screen_graph_tables_round_the_benchmarks_figures():
    def by_first_word(rows: list[list[str]]) -> dict[str, list[str]]:
        return {re.split(r"[\s:(-]", row[0])[0]: row[1:] for row in rows}

    ours = by_first_word(_table(ENV_PAGE, "| agent | hard (default) | easy |"))
    theirs = by_first_word(_table(BENCHMARKS, "| agent | hard (default) | easy |"))
    assert set(ours) == {"oracle", "heuristic", "first", "random"}
    for agent, cells in ours.items():
        for mine, measured in zip(cells, theirs[agent], strict=True):
            score, rate = (x.strip() for x in mine.split("/"))
            m_score, m_rate = (x.strip() for x in measured.split("/"))
            assert float(score) == round(float(m_score), 3) and rate == m_rate, agent

    ours_sg = _table(ENV_PAGE, "| setting | random clicks |")
    theirs_sg = _table(BENCHMARKS, "| setting | clicks |")
    for mine, measured in zip(ours_sg, theirs_sg, strict=True):
        for cell, value in zip(mine[1:], measured[1:], strict=True):
            percent = float(cell.split("%")[0])
            assert percent == round(100 * float(value.split()[0]), 1), (cell, value)


_FIGURE = re.compile(r"(\d[\d,]*(?:\.\d+)?)(?:-(\d[\d,]*(?:\.\d+)?))? ?(steps/s|ms|MB|x)\b")


def _figures(text: str) -> list[tuple[float, str]]:
    found = []
    for low, high, unit in _FIGURE.findall(text):
        found += [(float(n.replace(",", "")), unit) for n in (low, high) if n]
    return found


def test_figures_cited_from_benchmarks_are_there():
    """Each speed, time, memory or ratio in a README or guide paragraph that cites
    benchmarks/README.md is within 5% of a figure with the same unit there."""
    measured = _figures(BENCHMARKS)
    cited = [p for t in PAGES.values() for p in t.split("\n\n") if "(benchmarks/README.md)" in p]
    assert len(cited) >= 3
    checked = 0
    for paragraph in cited:
        for value, unit in _figures(paragraph):
            near = [v for v, u in measured if u == unit and abs(v - value) <= 0.05 * v]
            assert near, f"the docs' {value:g} {unit} is not in benchmarks/README.md"
            checked += 1
    assert checked >= 8


def test_the_readmes_counts_are_the_registrys():
    # README.md is not built by mkdocs, so its counts are checked rather than generated.
    total = re.search(r"^(\d+) ids in (\d+) families", README, re.M)
    assert total is not None, "README.md lost its 'N ids in M families' line"
    assert (int(total[1]), int(total[2])) == (len(ENVS), len(FAMILIES))
    rows = dict(re.findall(r"^\| ([a-z_]+) \| (\d+) \|", README, re.M))
    counted = {f: str(sum(e.group == f for e in ENVS)) for f in FAMILIES}
    assert rows == counted

"""The README's first example runs, and its env table names every registered id."""

from __future__ import annotations

import re
from pathlib import Path

from turngym.registry import ENVS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_quickstart_block_runs(capsys):
    block = re.search(r"```python\n(.*?)```", README, re.S)
    assert block is not None
    exec(compile(block.group(1), "README.md", "exec"), {})
    assert "CRANE" in capsys.readouterr().out


def test_env_table_lists_every_registered_id():
    listed = set(re.findall(r"`(turngym/[A-Za-z0-9]+(?:-[A-Z][A-Za-z0-9]+)*-v\d+)`", README))
    assert listed == {e.id for e in ENVS if not e.name.startswith(("miniwob.", "gui."))}


def test_every_miniwob_task_is_named_in_the_readme():
    section = README.split("### MiniWoB++", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([a-z0-9-]+)`", section))
    assert {
        e.name[len("miniwob.") : -len("-v0")] for e in ENVS if e.name.startswith("miniwob.")
    } <= named


def test_every_desktop_task_is_named_in_the_readme():
    section = README.split("### Desktop", 1)[1].split("\n### ", 1)[0]
    named = set(re.findall(r"`turngym/(gui\.[a-z0-9-]+-v0)`", section))
    assert {e.name for e in ENVS if e.name.startswith("gui.")} == named

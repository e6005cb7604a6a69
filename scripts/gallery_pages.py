"""The env gallery's Markdown pages, written from the registry and the recorded data.

``write_pages(out, gallery)`` writes ``out/index.md`` (a table of the families),
``out/<family>/index.md`` (a table of the family's ids) and ``out/<family>/<slug>.md``
for every registered id: its description, how to make it, its constructor arguments
(from the env class's signature and docstring, read with ``inspect``; no env is built),
its spaces and legal actions, reward rule, expert and measured success, what it needs
installed, and the episode ``docs_gallery.py record`` played (transcript and pictures).
An id without recorded data still gets its page, which says why.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

from docs_gallery import data_path, slug

import turngym.registry
from turngym.registry import FAMILIES, EnvEntry, load

__all__ = ["FAMILY_ABOUT", "arg_docs", "page", "reward_rule", "write_pages"]

FAMILY_ABOUT = {
    "text": "single-agent text tasks native to turngym (puzzles, tools, dialogue, chess)",
    "classic": "Gymnasium's toy-text envs (Taxi, CliffWalking, Blackjack) as text",
    "games": "turngym's turn-based games (PettingZoo AEC); gym.make gives one seat",
    "web": "websites served locally, played in Chromium through Playwright",
    "miniwob": "MiniWoB++ tasks on turngym's browser layer",
    "gui": "desktop tasks on a private Xvfb, and the drawn ScreenGraph phone screens",
    "swe": "software-engineering tasks in a bubblewrap sandbox",
    "openspiel": "OpenSpiel's games under turngym's game contract",
    "babyai": "BabyAI levels (minigrid) described in text",
    "crafter": "Crafter, the 2D survival world, described in text",
    "nethack": "NetHack and MiniHack (NLE) described in text",
    "textworld": "TextWorld's generated text adventures",
    "reasoning_gym": "reasoning_gym's procedurally generated reasoning tasks",
}
"""One line per family for the families table."""

_LEGAL_SHOWN = 40


def _cell(text: Any) -> str:
    """``text`` fit for a Markdown table cell (one line, pipes escaped)."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _sentence(text: str) -> str:
    """``text`` with a capital first letter and a full stop.

    >>> _sentence("guess a word")
    'Guess a word.'
    """
    text = text.strip()
    return f"{text[:1].upper()}{text[1:]}{'' if text.endswith('.') else '.'}"


def _fence(text: str, lang: str = "text") -> str:
    """``text`` in a code block whose fence is longer than any backtick run in it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _code(text: Any) -> str:
    """``text`` as inline code, safe for backticks inside."""
    value = " ".join(str(text).split())
    if "`" in value:
        return f"`` {value} ``"
    return f"`{value}`"


def _args_section(doc: str) -> dict[str, str]:
    """The entries of a Google-style ``Args:`` section: name -> its text (one line)."""
    lines = inspect.cleandoc(doc).splitlines()
    found: dict[str, str] = {}
    inside, name, indent = False, "", None
    for line in lines:
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:"):
            inside, indent = True, None
            continue
        if not inside:
            continue
        depth = len(line) - len(line.lstrip())
        if stripped and depth == 0:
            inside = False
            continue
        match = re.match(r"(\w+)(?:\s*\([^)]*\))?:\s*(.*)", stripped)
        if match and (indent is None or depth == indent):
            indent, name = depth, match.group(1)
            found[name] = match.group(2)
        elif stripped and depth == indent:  # "**kwargs: ..." ends the entry before it
            name = ""
        elif stripped and name:
            found[name] += " " + stripped
    return found


def arg_docs(cls: type) -> dict[str, str]:
    """What the docstrings of ``cls`` (and its ``__init__``, and its bases) say of each arg."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        for doc in (
            klass.__doc__,
            vars(klass).get("__init__", None).__doc__ if "__init__" in vars(klass) else None,
        ):
            if doc:
                docs.update(_args_section(doc))
    return docs


@cache
def _kwargs_of(entry_point: str, game: str | None) -> tuple[tuple[str, str, str], ...]:
    """(name, default, doc) of each constructor argument ``gym.make`` passes on."""
    rows: dict[str, tuple[str, str, str]] = {}
    classes = [load(entry_point)] + ([load(game)] if game else [])
    for cls in classes:
        docs = arg_docs(cls)
        own = True
        for klass in cls.__mro__:  # an __init__ that takes **kwargs hands them up
            if "__init__" not in vars(klass):
                continue
            params = list(inspect.signature(klass.__init__).parameters.values())
            for p in params:
                if p.name == "self" or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                    continue
                if p.name.startswith("_") or (not own and p.default is p.empty):
                    continue
                if game and p.name in ("game", "expert"):
                    continue
                default = "required" if p.default is p.empty else repr(p.default)
                rows.setdefault(p.name, (p.name, default, docs.get(p.name, "")))
            own = False
            if not any(p.kind is p.VAR_KEYWORD for p in params):
                break
    return tuple(rows.values())


def kwargs_table(row: EnvEntry) -> str:
    """The Markdown table of ``row``'s constructor arguments (or why there is none)."""
    try:
        found = _kwargs_of(row.entry_point, row.game)
    except Exception as error:  # an extra that is not installed where pages are written
        return f"The arguments could not be read here ({type(error).__name__}: {error})."
    if not found:
        return "The env takes no arguments."
    fixed = {k: v for k, v in row.kwargs.items() if not (row.game and k in ("game", "expert"))}
    lines = ["| argument | default | what it is, allowed values |", "|---|---|---|"]
    for name, default, doc in found:
        if name in fixed:
            default = f"{fixed[name]!r} (this id)"
        lines.append(f"| `{name}` | {_code(default)} | {_cell(doc) or '&nbsp;'} |")
    return "\n".join(lines)


def reward_rule(row: EnvEntry) -> str:
    """What the env class's docstring says of rewards and success, else the description."""
    try:
        # a game's own class before the one-seat view's generic one, the classes before
        # their modules (an adapter's rule is often said there)
        docs = [load(row.game)] if row.game else [load(row.entry_point)]
        docs += [sys.modules[obj.__module__] for obj in docs]
        doc = "\n\n".join(inspect.getdoc(obj) or "" for obj in docs)
    except Exception:  # the extra is missing here: the description is all there is
        doc = ""
    said = []
    for part in re.split(r"\n\s*\n", doc):
        text = " ".join(part.split())
        if ">>>" in text or text.startswith(("Args:", "Example", "Raises:", "Returns:")):
            continue
        if re.search(r"\breward|\bsuccess", text, re.IGNORECASE):
            said.append(text)
    return "\n\n".join(said[:2]) if said else _sentence(row.description)


def _load_data(row: EnvEntry, gallery: Path) -> dict[str, Any] | None:
    """The recorded data of ``row``, or None when there is none."""
    path = data_path(row, gallery)
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _success(data: dict[str, Any] | None) -> str:
    """The expert's measured success, for tables."""
    if not data or data.get("status") != "recorded":
        return "not recorded"
    measured = data.get("measured")
    if not measured:
        return "no expert" if data.get("agent") == "random" else "not measured"
    return f"{measured['successes']}/{measured['episodes']}"


def _episode(row: EnvEntry, data: dict[str, Any], images: str) -> list[str]:
    """The recorded episode's section: summary, transcript, pictures."""
    who = data.get("agent_class", data.get("agent"))
    kind = "the scripted expert" if data["agent"] == "expert" else "a random legal agent"
    out = [
        f"Seed {data['seed']}, played by {kind} (`{who}`): {data['steps']} steps, "
        f"return {data['return']:g}, success: {'yes' if data['success'] else 'no'}."
    ]
    if data.get("stopped_at_max_steps"):
        out.append(f"The recording stopped after {data['steps']} steps; the episode goes on.")
    previous = -1
    for turn in data["turns"]:
        if turn["turn"] > previous + 1:  # the transcript keeps the first and last turns
            out.append(f"*... {turn['turn'] - previous - 1} turns left out ...*")
        previous = turn["turn"]
        if turn["turn"] == 0:
            out.append("**Reset** (the first observation)")
        else:
            flags = [f"reward {turn['reward']:g}"]
            if turn.get("invalid_action"):
                flags.append("invalid action")
            if turn.get("terminated"):
                flags.append("terminated")
            if turn.get("truncated"):
                flags.append("truncated")
            if turn.get("success"):
                flags.append("success")
            said = ", ".join(flags)
            out.append(f"**Turn {turn['turn']}**: action {_code(turn['action'])} ({said})")
        out.append(_fence(turn["obs"]))
        if turn.get("image"):
            out.append(f"![screen after turn {turn['turn']}]({images}/{turn['image']})")
    return out


def page(row: EnvEntry, data: dict[str, Any] | None, images: str) -> str:
    """The Markdown page of one registered id; ``images``: the pictures' folder, relative."""
    name = row.id
    parts = [f"# {name}", "", _sentence(row.description), ""]
    parts += ["[All envs](../index.md) / [family `" + row.group + "`](index.md)", ""]
    make = "import gymnasium as gym\nimport turngym  # registers the ids\n\n"
    make += f'env = gym.make("{name}")\nobs, info = env.reset(seed=0)'
    if row.game:
        make += f'\n\ngame = turngym.make_game("{name}")  # the PettingZoo AEC game, every seat'
    parts += ["## Make it", "", _fence(make, "python"), ""]
    steps = row.max_episode_steps
    parts += [f"Entry point `{row.entry_point}`; time limit {steps} steps.", ""]
    parts += ["## Arguments", "", kwargs_table(row), ""]
    parts += ["## Observations and actions", ""]
    if data and data.get("status") == "recorded":
        parts += [f"Observation space: {_code(data['observation_space'])}", ""]
        parts += [f"Action space: {_code(data['action_space'])}", ""]
    if not row.finite_actions:
        parts += ['Actions are free-form text; `info["legal_actions"]` is not a full list.', ""]
    legal = data.get("legal_actions") if data else None
    if legal:
        shown = ", ".join(_code(a) for a in legal["first"][:_LEGAL_SHOWN])
        more = legal["count"] - min(len(legal["first"]), _LEGAL_SHOWN)
        tail = f" and {more} more" if more > 0 else ""
        parts += [f"Legal actions at the first step ({legal['count']}): {shown}{tail}.", ""]
    parts += ["## Reward and success", "", reward_rule(row), ""]
    parts += ["## Expert", ""]
    if row.expert:
        parts += [f"Scripted expert: `{row.expert}`.", ""]
        measured = data.get("measured") if data else None
        if measured:
            low, high = measured["seeds"]
            parts += [
                f"Measured success: {measured['successes']}/{measured['episodes']} episodes "
                f"(seeds {low}..{high}).",
                "",
            ]
        else:
            parts += ["Its success is not measured here (see the recorded episode below).", ""]
    else:
        parts += ["No scripted expert: the episode below is played by a random legal agent.", ""]
    parts += ["## Installation", ""]
    if row.extra:
        parts += [
            "This env needs an extra:",
            "",
            _fence(f"pip install 'turngym[{row.extra}]'", "bash"),
            "",
        ]
    else:
        parts += ["The base install runs it: `pip install turngym`.", ""]
    if row.system:
        parts += [
            "and system packages:",
            "",
            _fence(f"apt-get install {' '.join(row.system)}", "bash"),
            "",
        ]
    parts += ["## A recorded episode", ""]
    if data is None:
        parts += [
            "No episode has been recorded for this id yet (run "
            f"`python scripts/docs_gallery.py record --ids '{name}'`).",
            "",
        ]
    elif data.get("status") != "recorded":
        parts += [f"Not recorded: {data.get('reason', 'no reason given')}.", ""]
    else:
        for block in _episode(row, data, images):
            parts += [block, ""]
    return "\n".join(parts)


def _family_page(family: str, rows: list[EnvEntry], datas: dict[str, Any]) -> str:
    """The table of one family's ids."""
    lines = [f"# Family `{family}`", "", _sentence(FAMILY_ABOUT.get(family, "")), ""]
    lines += [f"{len(rows)} env ids. [All families](../index.md)", ""]
    lines += ["| id | description | expert | measured success | extra |", "|---|---|---|---|---|"]
    for row in rows:
        expert = row.expert.rsplit(":", 1)[-1] if row.expert else "none (random agent)"
        lines.append(
            f"| [{row.name}]({slug(row.id)}.md) | {_cell(row.description)} | {_cell(expert)} "
            f"| {_success(datas[row.id])} | {row.extra or 'none'} |"
        )
    return "\n".join(lines) + "\n"


def _index_page(groups: dict[str, list[EnvEntry]]) -> str:
    """The table of families."""
    total = sum(len(rows) for rows in groups.values())
    lines = [
        "# Environments",
        "",
        f"Every registered id ({total}) has a page with a real episode its expert (or a "
        "random agent) played, generated from the registry by `scripts/docs_gallery.py`.",
        "",
        "| family | ids | what it is |",
        "|---|---|---|",
    ]
    for family, rows in groups.items():
        about = _cell(FAMILY_ABOUT.get(family, ""))
        lines.append(f"| [{family}]({family}/index.md) | {len(rows)} | {about} |")
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (keeps ``mkdocs serve`` quiet)."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


CHEAP_FAMILIES = ("text", "classic", "games")
"""Families whose native envs record in well under a second: built with the pages."""


def recorded_on_build(row: EnvEntry) -> bool:
    """Whether ``row`` without committed data is recorded when the pages are built.

    A native env of a cheap family that runs on the base install: a new env gets its
    gallery episode from its registry row alone (``record`` is for the rest).
    """
    return row.suite is None and row.family in CHEAP_FAMILIES and row.unavailable() is None


def _data_or_record(row: EnvEntry, gallery: Path, built: Path) -> dict[str, Any] | None:
    """The committed data of ``row``; for a cheap row without any, recorded into ``built``."""
    data = _load_data(row, gallery)
    if data is None and recorded_on_build(row):
        from docs_gallery import record_one

        data = record_one(row.id, 0, built)
    return data


def write_pages(out: Path, gallery: Path) -> int:
    """Write every page under ``out`` from the registry and ``gallery``; the page count.

    Cheap ids without committed data are recorded into ``out/_recorded`` first
    (``recorded_on_build``).
    """
    rows_now = turngym.registry.ENVS  # read now: a row added since import is listed too
    groups: dict[str, list[EnvEntry]] = {f: [] for f in FAMILIES}
    for row in rows_now:
        groups.setdefault(row.group, []).append(row)
    groups = {f: rows for f, rows in groups.items() if rows}
    wanted = {out / "index.md"}
    built = out / "_recorded"
    datas = {row.id: _data_or_record(row, gallery, built) for row in rows_now}
    _write(out / "index.md", _index_page(groups))
    for family, rows in groups.items():
        folder = out / family
        images = Path(os.path.relpath(gallery / family, folder)).as_posix()
        _write(folder / "index.md", _family_page(family, rows, datas))
        wanted.add(folder / "index.md")
        for row in rows:
            target = folder / f"{slug(row.id)}.md"
            _write(target, page(row, datas[row.id], images))
            wanted.add(target)
    for stale in out.glob("**/*.md"):  # pages of ids no longer registered
        if stale not in wanted:
            stale.unlink()
    return len(wanted)

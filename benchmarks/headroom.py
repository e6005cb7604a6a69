"""Each task's headroom: the expert's, a random agent's and a simple heuristic's scores.

For every registered env of the chosen families, three agents play the same seeds
(``0..N-1``) through ``turngym.sdk.evaluation.evaluate``; one JSON line per (env, agent)
gives the success rate with its 95% Wilson interval and the mean return. The agents:

- ``expert``: the env's scripted oracle (``turngym.agents.make_expert``);
- ``random``: ``RandomAgent``, uniform over the listed legal actions (random text when
  the env lists none);
- ``heuristic``: the simplest rule a newcomer would try first. By default it takes the
  first listed legal action every turn (the first direction, the first word, the first
  link or widget). MiniWoB's clicks the element the instruction names (a quoted label,
  else a word of it, else the next element). SWE's submits the repository unchanged;
  the web sites' says ``answer("done")`` at once (a reward that pays it is broken).
  WebShop's rule baseline (the one from WebShop's paper) is measured on the shop's app
  by ``webshop_difficulty.py``. Envs whose actions are free text and that have no such
  rule get a ``"skipped"`` line.

``--markdown FILE`` writes the tables the README links to, one per family.

    python benchmarks/headroom.py --family text,games,classic --episodes 50
    python benchmarks/headroom.py --family miniwob --episodes 5 > miniwob.jsonl
    python benchmarks/headroom.py --from-jsonl *.jsonl --markdown docs/headroom.md
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym

import turngym  # noqa: F401  (registers the ids)
from turngym.agents import RandomAgent, make_expert
from turngym.agents.base import Agent, BaseAgent
from turngym.registry import ENVS, EnvEntry
from turngym.sdk.evaluation import EvalResult, evaluate

AGENTS = ("expert", "random", "heuristic")
FAMILIES = ("text", "classic", "games", "web", "miniwob", "gui", "swe")


class FirstLegalAgent(BaseAgent):
    """Always the first listed legal action: the order-bias baseline."""

    rule = "first legal action"

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The first legal action."""
        return str(info["legal_actions"][0])


class SubmitUnchangedAgent(BaseAgent):
    """SWE: submit the repository as it was handed over."""

    rule = "submit unchanged"

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The submit command."""
        return "submit()"


class ClaimDoneAgent(BaseAgent):
    """Web sites: say the task is done without doing it (a reward that pays this is broken)."""

    rule = 'answer("done") at once'

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The closing answer."""
        return 'answer("done")'


class ClickNamedAgent(BaseAgent):
    """MiniWoB: click the element the instruction names, by keyword match on the page.

    Each turn it clicks the first ``[N]`` element not clicked yet whose name is a quoted
    string of the instruction, else one whose name is a word of it, else the first
    element not clicked yet; with nothing left it answers.
    """

    rule = "click the element the instruction names"

    def __init__(self) -> None:
        self._clicked: set[str] = set()

    def reset(self, seed: int | None = None) -> None:
        """Forget the clicks of the last episode."""
        self._clicked = set()

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """One click (or the closing answer)."""
        text = str(obs)
        instruction = str(info.get("instruction") or text.splitlines()[0]).lower()
        quoted = set(re.findall(r'"([^"]+)"', instruction))
        words = set(re.findall(r"\w+", instruction))
        elements = [
            (ref, name.lower())
            for ref, name in re.findall(r"^\s*\[(\d+)\] \w+(?: '([^']*)')?", text, re.M)
            if ref not in self._clicked
        ]
        ranked = (
            [ref for ref, name in elements if name and name in quoted]
            + [ref for ref, name in elements if name and name in words]
            + [ref for ref, _ in elements]
        )
        if not ranked:
            return 'answer("done")'
        self._clicked.add(ranked[0])
        return f"click({ranked[0]})"


def group(row: EnvEntry) -> str:
    """The table a row goes in: its registry family, with MiniWoB apart from the sites."""
    return "miniwob" if row.id.startswith("turngym/miniwob.") else row.family


def heuristic_for(row: EnvEntry, info: dict[str, Any]) -> Agent | None:
    """The heuristic agent of ``row``'s family, or None where there is no simple rule.

    ``info`` is the first reset's info, which says whether the env lists legal actions.
    """
    if row.family == "swe":
        return SubmitUnchangedAgent()
    if row.id == "turngym/WebShop-v0":
        return None  # its rule baseline is measured on the shop's app by webshop_difficulty.py
    if group(row) == "miniwob":
        return ClickNamedAgent()
    if row.family == "web":
        return ClaimDoneAgent()
    if info.get("legal_actions"):
        return FirstLegalAgent()
    return None


def _agents(row: EnvEntry) -> tuple[dict[str, Callable[[gym.Env], Agent] | None], str | None]:
    probe = gym.make(row.id)
    try:
        _, info = probe.reset(seed=0)
    finally:
        probe.close()
    heuristic = heuristic_for(row, info)

    def expert(env: gym.Env) -> Agent:
        return make_expert(env, row.id)

    def the_heuristic(env: gym.Env) -> Agent:
        assert heuristic is not None
        return heuristic

    rule = getattr(heuristic, "rule", None)

    return {
        "expert": expert if row.expert else None,
        "random": lambda env: RandomAgent(seed=0),
        "heuristic": the_heuristic if heuristic is not None else None,
    }, rule


def measure(row: EnvEntry, episodes: int, only: Sequence[str] = AGENTS) -> list[dict[str, Any]]:
    """One JSON-ready line per agent (of ``only``) for one env."""
    lines = []
    agents, rule = _agents(row)
    for name, factory in agents.items():
        if name not in only:
            continue
        line: dict[str, Any] = {
            "bench": "headroom",
            "env": row.id,
            "family": group(row),
            "agent": name,
        }
        if factory is None:
            line["skipped"] = (
                "no expert"
                if name == "expert"
                else "see benchmarks/webshop_difficulty.py"
                if row.id == "turngym/WebShop-v0"
                else "free-text actions, no simple rule"
            )
        else:
            result: EvalResult = evaluate(row.id, factory, episodes=episodes, agent_name=name)
            summary = result.summary()
            line.update(
                episodes=summary["episodes"],
                success_rate=round(summary["success_rate"], 4),
                success_ci95=summary["success_ci95"],
                mean_return=round(summary["mean_return"], 4),
            )
            if name == "heuristic":
                line["rule"] = rule
        lines.append(line)
    return lines


def markdown(lines: Sequence[dict[str, Any]]) -> str:
    """The measured lines as one table per family: success rate (mean return) per agent."""
    by_env: dict[str, dict[str, dict[str, Any]]] = {}
    family: dict[str, str] = {}
    for line in lines:
        by_env.setdefault(line["env"], {})[line["agent"]] = line
        family[line["env"]] = line["family"]
    out = []
    for fam in FAMILIES:
        envs = [e for e in by_env if family[e] == fam]
        if not envs:
            continue
        out += [
            f"### {fam}",
            "",
            "| env | episodes | expert | random | heuristic | heuristic rule |",
            "|---|---|---|---|---|---|",
        ]
        for env in envs:
            cells = []
            for agent in ("expert", "random", "heuristic"):
                got = by_env[env].get(agent, {})
                cells.append(
                    "-"
                    if "success_rate" not in got
                    else f"{got['success_rate']:.2f} ({got['mean_return']:+.2f})"
                )
            heuristic = by_env[env].get("heuristic", {})
            cells.append(heuristic.get("rule") or heuristic.get("skipped", "-"))
            n = max((g.get("episodes", 0) for g in by_env[env].values()), default=0)
            out.append(f"| `{env.removeprefix('turngym/')}` | {n} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print JSON lines, optionally write the markdown tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--family", default=",".join(FAMILIES), help="comma-separated families")
    parser.add_argument("--envs", default="*", help="glob over env ids (turngym/ prefix optional)")
    parser.add_argument("--episodes", type=int, default=20, help="seeds 0..N-1 for every agent")
    parser.add_argument("--agents", default=",".join(AGENTS), help="a comma-separated subset")
    parser.add_argument("--markdown", type=Path, help="write one table per family here")
    parser.add_argument(
        "--from-jsonl",
        type=Path,
        nargs="+",
        help="measure nothing: build --markdown from the JSON lines of earlier runs",
    )
    args = parser.parse_args(argv)
    if args.from_jsonl:
        if not args.markdown:
            parser.error("--from-jsonl needs --markdown")
        old = [json.loads(t) for f in args.from_jsonl for t in f.read_text().splitlines() if t]
        args.markdown.write_text(markdown(old))
        return 0
    families = {f.strip() for f in args.family.split(",") if f.strip()}
    unknown = families - set(FAMILIES)
    if unknown:
        parser.error(f"unknown family {sorted(unknown)}; choose from {', '.join(FAMILIES)}")
    if not set(args.agents.split(",")) <= set(AGENTS):
        parser.error(f"--agents takes a comma-separated subset of {', '.join(AGENTS)}")
    rows = [
        e
        for e in ENVS
        if group(e) in families
        and (
            fnmatch.fnmatch(e.id, args.envs)
            or fnmatch.fnmatch(e.id.removeprefix("turngym/"), args.envs)
        )
    ]
    lines = []
    for row in rows:
        for line in measure(row, args.episodes, args.agents.split(",")):
            print(json.dumps(line), flush=True)
            lines.append(line)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

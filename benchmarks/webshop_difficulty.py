"""WebShop-v0's headroom at each difficulty: the oracle, a random agent and simple rules.

For each difficulty (``hard``, the default, and ``easy``) and each seed, the task is
the one ``WebShop-v0``'s ``reset(seed=...)`` draws (``ShopSite.sample_task`` on the
env's seeded RNG). Agents act on the shop's own WSGI app through Werkzeug's test client
(the same pages, forms and database Chromium would get, minus the browser), so hundreds
of episodes take seconds; the score is the env's reward (``ShopSite.score``):

- ``oracle``: plays the task's oracle plan (the env's expert) step by step on the pages.
- ``random``: up to 30 steps (the env's turn limit) chosen uniformly among the page's
  links, buttons, drop-down values and a search for two random words.
- ``heuristic``: the issue's rule: search the instruction text, open the first result,
  pick in each drop-down the value the instruction names verbatim (the longest, as
  whole words; none if it names none) and click "Buy Now".
- ``first-hit``: privileged: search the goal's own attributes and type (the oracle's
  query), open the first result, pick the goal's values where offered, buy. It shows
  how often the best keyword search's top hit is a near miss.

Every line is one JSON measurement: ``level``, ``agent``, ``mean_score``,
``success_rate`` (score 1.0), ``n`` (episodes), plus ``seconds``.

    python benchmarks/webshop_difficulty.py                  # seeds 0-599, both levels
    python benchmarks/webshop_difficulty.py --seeds 200 --levels hard
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import numpy as np
from gymnasium.utils import seeding
from werkzeug.test import Client

from turngym.envs.web.server import SiteDatabase
from turngym.envs.web.sites.shop import ShopSite
from turngym.envs.web.sites.shop.app import option_label
from turngym.envs.web.sites.shop.site import DIFFICULTIES, search_query
from turngym.envs.web.tasks import Step, Task

MAX_STEPS = 30  # WebShop-v0's max_episode_steps
_LINK = re.compile(r'<a href="([^"]+)">([^<]*)</a>')
_PRODUCT = re.compile(r"^/product/(\d+)")
_SELECT = re.compile(r'<select id="opt-[^"]*" name="([^"]+)">(.*?)</select>', re.S)
_OPTION = re.compile(r"<option>([^<]*)</option>")
_FORM = re.compile(r'(?:action|formaction)="(/(?:buy|cart|checkout)[^"]*)"')
_WORDS = ("red", "shoes", "black", "size", "cheap", "organic", "buy", "hello", "9", "blue")


class Browser:
    """The shop's pages through Werkzeug's test client: the page, its links, forms, picks."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.html = ""
        self.path = "/"
        self.chosen: dict[str, str] = {}
        self.open("/")

    def open(self, url: str, data: dict[str, str] | None = None) -> None:
        """GET ``url`` (POST when ``data`` is given) and follow redirects."""
        if data is None:
            response = self.client.get(url, follow_redirects=True)
        else:
            response = self.client.post(url, data=data, follow_redirects=True)
        self.html = response.get_data(as_text=True)
        self.path = response.request.path
        self.chosen = {}

    def links(self) -> list[tuple[str, str]]:
        """``(href, accessible name)`` of every link on the page."""
        return [(unescape(h), unescape(t)) for h, t in _LINK.findall(self.html)]

    def products(self) -> list[str]:
        """The hrefs of the product links (on a results page: in rank order)."""
        return [h for h, _ in self.links() if _PRODUCT.match(h)]

    def selects(self) -> dict[str, list[str]]:
        """Each option group's drop-down values (a product page)."""
        return {
            unescape(g): [unescape(v) for v in _OPTION.findall(body)]
            for g, body in _SELECT.findall(self.html)
        }

    def search(self, query: str) -> None:
        """Type ``query`` in the search box and submit it."""
        self.open("/search?" + urlencode({"q": query}))

    def buy(self) -> None:
        """Click "Buy Now" on a product page with the values picked so far."""
        match = _PRODUCT.match(self.path)
        assert match, self.path
        self.open(f"/buy/{match.group(1)}", dict(self.chosen))


def play_oracle(browser: Browser, task: Task, rng: np.random.Generator) -> None:
    """Play the task's oracle plan (the env's expert), resolving each step on the page."""
    query = ""
    for step in task.oracle:
        if step == Step.click("button", "Search"):
            browser.search(query)
        elif step.action == "fill":
            query = step.text
        elif step.action == "select":
            group = next(g for g in browser.selects() if option_label(g) == step.name)
            assert step.text in browser.selects()[group], (group, step.text)
            browser.chosen[group] = step.text
        elif step == Step.click("button", "Buy Now"):
            browser.buy()
        elif step.action == "click" and step.role == "link":
            href = next(h for h, name in browser.links() if name == step.name)
            browser.open(href)
        else:
            raise ValueError(f"the benchmark cannot play {step}")


def named_value(instruction: str, values: list[str]) -> str | None:
    """The longest of ``values`` that ``instruction`` names verbatim, as whole words."""
    text = instruction.lower()
    named = [v for v in values if re.search(rf"(?<!\w){re.escape(v.lower())}(?!\w)", text)]
    return max(named, key=len) if named else None


def play_heuristic(browser: Browser, task: Task, rng: np.random.Generator) -> None:
    """Search the instruction, open the first result, pick the values it names, buy."""
    browser.search(task.instruction)
    results = browser.products()
    if not results:
        return
    browser.open(results[0])
    for group, values in browser.selects().items():
        value = named_value(task.instruction, values)
        if value is not None:
            browser.chosen[group] = value
    browser.buy()


def play_first_hit(browser: Browser, task: Task, rng: np.random.Generator) -> None:
    """Search the goal's attributes and type, open the first result, pick the goal's values."""
    browser.search(search_query(task.goal))
    results = browser.products()
    if not results:
        return
    browser.open(results[0])
    for group, values in browser.selects().items():
        wanted = task.goal["options"].get(group)
        if wanted in values:
            browser.chosen[group] = wanted
    browser.buy()


def play_random(browser: Browser, task: Task, rng: np.random.Generator) -> None:
    """Up to ``MAX_STEPS`` uniform choices among links, buttons, drop-down values, a search."""
    for _ in range(MAX_STEPS):
        moves: list[tuple[str, Any]] = [("link", h) for h, _ in browser.links()]
        moves += [("form", a) for a in _FORM.findall(browser.html)]
        moves += [("pick", (g, v)) for g, vs in browser.selects().items() for v in vs]
        moves.append(("search", " ".join(rng.choice(_WORDS, size=2))))
        kind, what = moves[int(rng.integers(len(moves)))]
        if kind == "link":
            browser.open(what)
        elif kind == "pick":
            browser.chosen[what[0]] = what[1]
        elif kind == "search":
            browser.search(what)
        else:
            browser.open(unescape(what), dict(browser.chosen))
            if browser.path.startswith("/order/"):
                return  # an order ends the episode


AGENTS: dict[str, Callable[[Browser, Task, np.random.Generator], None]] = {
    "oracle": play_oracle,
    "random": play_random,
    "heuristic": play_heuristic,
    "first-hit": play_first_hit,
}


def measure(level: str, agent: str, seeds: range, workdir: Path) -> dict[str, Any]:
    """Play ``agent`` on the ``level`` shop for every seed; one JSON-able result."""
    site = ShopSite(level)
    prepared = workdir / f"{site.name}.sqlite"
    if not prepared.exists():
        site.build_database(prepared)  # fresh, never a stale cached build
    db = SiteDatabase(prepared)
    scores = []
    start = time.perf_counter()
    try:
        for seed in seeds:
            db.restore()
            with contextlib.closing(db.connect()) as conn:
                task = site.sample_task(seeding.np_random(seed)[0], conn)
            rng = np.random.default_rng([seed, 1])  # the agent's own stream
            AGENTS[agent](Browser(Client(site.app(db.path))), task, rng)
            with contextlib.closing(db.connect()) as conn:
                scores.append(site.score(task, conn, None))
    finally:
        db.close()
    return {
        "bench": "webshop_difficulty",
        "level": level,
        "agent": agent,
        "mean_score": round(float(np.mean(scores)), 4),
        "success_rate": round(float(np.mean([s == 1.0 for s in scores])), 4),
        "n": len(scores),
        "seconds": round(time.perf_counter() - start, 2),
    }


def main(argv: list[str] | None = None) -> int:
    """Print one JSON line per (level, agent)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=600, help="seeds 0..N-1 per level")
    parser.add_argument("--levels", default=",".join(DIFFICULTIES), help="hard,easy")
    parser.add_argument("--agents", default=",".join(AGENTS), help=",".join(AGENTS))
    args = parser.parse_args(argv)
    levels = args.levels.split(",")
    agents = args.agents.split(",")
    for name, allowed in (("level", DIFFICULTIES), ("agent", tuple(AGENTS))):
        bad = [x for x in (levels if name == "level" else agents) if x not in allowed]
        if bad:
            parser.error(f"unknown {name} {bad[0]!r}; use one of {', '.join(allowed)}")
    with tempfile.TemporaryDirectory(prefix="webshop-bench-") as tmp:
        for level in levels:
            for agent in agents:
                print(json.dumps(measure(level, agent, range(args.seeds), Path(tmp))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

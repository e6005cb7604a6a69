"""Web env throughput: steps/s of a click + accessibility-tree observation, next to BrowserGym.

One run measures, on the same local page (a button that counts its clicks, served on
127.0.0.1 by this script):
- ``turngym`` with 1 env and with ``--envs`` envs (default 8) on one Chromium, stepped
  by ``ThreadedVectorEnv``: ``click(id)`` then the page as text (the env's observation);
- ``playwright-raw``: the floor under any Playwright env, with the same number of pages
  on one browser: a mouse click at a known point plus one CDP ``getFullAXTree``, nothing
  parsed or rendered;
- ``browsergym``: BrowserGym's ``BrowserEnv`` (``browsergym-core``, run by
  ``--peer-python``, its own virtualenv since it pins an old Playwright) with
  ``slow_mo=0`` and ``pre_observation_delay=0``, pointed at Debian's Chromium; each step
  clicks the button by its bid and flattens the AX tree to text as its agents do.
  BrowserGym starts a browser per env, so its vector is a ``SyncVectorEnv`` of them.
- memory: proportional set size (PSS) of this process and its children with 1 env and
  with ``--envs`` envs; the difference per extra env.

Every line is one JSON measurement; the summary line has turngym's ratios to BrowserGym.

    python benchmarks/web_throughput.py                         # BrowserGym skipped if missing
    python benchmarks/web_throughput.py --peer-python .venv-bgym/bin/python
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PAGE = """<!doctype html><html><head><title>Click test</title></head><body>
<h1>Click test</h1><p>Clicks: <span id=n>0</span></p>
<button id=b onclick="document.getElementById('n').textContent =
  +document.getElementById('n').textContent + 1">Click me</button>
<ul>{items}</ul></body></html>"""
ITEMS = "".join(f"<li><a href='#i{i}'>item {i}</a></li>" for i in range(20))
"""A little page content around the button, so the tree is not trivially small."""


def page_app(environ: dict, start_response: Any) -> list[bytes]:
    """The benchmark page at every path."""
    start_response("200 OK", [("Content-Type", "text/html; charset=utf-8")])
    return [PAGE.format(items=ITEMS).encode()]


# -- peer mode: BrowserGym (runs in its own interpreter) ---------------------------------


def run_browsergym(url: str, seconds: float, envs: int) -> dict[str, Any]:
    """BrowserGym's BrowserEnv clicking the button; one JSON-able result."""
    import importlib.metadata

    import gymnasium as gym
    import playwright.sync_api
    from browsergym.core.env import BrowserEnv
    from browsergym.core.task import AbstractBrowserTask
    from browsergym.utils.obs import flatten_axtree_to_str

    class ClickTask(AbstractBrowserTask):
        @classmethod
        def get_task_id(cls) -> str:
            return "turngym-click"

        def __init__(self, seed: int, url: str) -> None:
            super().__init__(seed)
            self.url = url
            self.slow_mo = 0

        def setup(self, page: Any) -> tuple[str, dict]:
            page.goto(self.url)
            return "Click the button.", {}

        def validate(self, page: Any, chat_messages: list) -> tuple[float, bool, str, dict]:
            return 0.0, False, "", {}

        def teardown(self) -> None:
            pass

    # BrowserGym also launches a second Chromium for its chat window, without a way to
    # pass the executable; point every launch at Debian's Chromium (Playwright's own
    # download does not work on this machine).
    launch = playwright.sync_api.BrowserType.launch

    def launch_debian(self: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("executable_path", "/usr/bin/chromium")
        return launch(self, *args, **kwargs)

    playwright.sync_api.BrowserType.launch = launch_debian  # type: ignore[method-assign]

    def make() -> gym.Env:
        return BrowserEnv(
            task_entrypoint=ClickTask,
            task_kwargs={"url": url},
            headless=True,
            slow_mo=0,
            pre_observation_delay=0.0,
            pw_chromium_kwargs={"executable_path": "/usr/bin/chromium"},
        )

    pool = [make() for _ in range(envs)]
    bids = []
    for env in pool:
        obs, _ = env.reset(seed=0)
        text = flatten_axtree_to_str(obs["axtree_object"])
        bids.append(re.search(r"\[(\w+)\] button 'Click me'", text).group(1))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for env, bid in zip(pool, bids, strict=True):
            obs, *_ = env.step(f"click('{bid}')")
            flatten_axtree_to_str(obs["axtree_object"])
            steps += 1
    elapsed = time.perf_counter() - start
    for env in pool:
        env.close()
    return {
        "steps": steps,
        "seconds": round(elapsed, 3),
        "steps_per_s": round(steps / elapsed, 2),
        "version": importlib.metadata.version("browsergym-core"),
        "playwright": importlib.metadata.version("playwright"),
    }


# -- turngym -------------------------------------------------------------------------


def turngym_click_env() -> Any:
    """A ``SiteEnv`` whose site is the benchmark page (built here, not registered)."""
    from turngym.envs.web.env import SiteEnv
    from turngym.envs.web.tasks import Step, Task

    class ClickSite:
        name = "bench-click-v1"
        templates: tuple[str, ...] = ("click",)

        def build_database(self, path: Path) -> None:
            sqlite3.connect(path).close()

        def app(self, db_path: Path) -> Any:
            return page_app

        def sample_task(self, rng: Any, conn: Any, template: str | None = None) -> Task:
            return Task("click", "Click the button.", {}, (Step.click("button", "Click me"),))

        def finished(self, task: Task, conn: Any) -> bool:
            return False

        def score(self, task: Task, conn: Any, answer: str | None) -> float:
            return 0.0

    class ClickEnv(SiteEnv):
        site = ClickSite()

    return ClickEnv


def pss_mb() -> float:
    """Proportional set size of this process and all its children, in MB."""
    import psutil

    total = 0
    for proc in [psutil.Process(), *psutil.Process().children(recursive=True)]:
        try:
            total += proc.memory_full_info().pss
        except (psutil.Error, AttributeError):
            continue
    return total / 2**20


def run_turngym(envs: int, seconds: float) -> tuple[dict[str, Any], float]:
    """Steps/s of ``envs`` click envs on one browser; also the PSS (MB) while they run."""
    from turngym.envs.vector import ThreadedVectorEnv
    from turngym.envs.web.axtree import find_id

    env_class = turngym_click_env()
    vector = ThreadedVectorEnv([lambda: env_class(max_turns=10**9)] * envs)
    obs, _ = vector.reset(seed=0)
    actions = [f"click({find_id(o, 'button', 'Click me')})" for o in obs]
    vector.step(actions)  # warm
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, _, _, infos = vector.step(actions)
        steps += envs
    elapsed = time.perf_counter() - start
    assert not any(infos["invalid_action"]), infos
    clicks = re.search(r"StaticText '(\d+)'", obs[0])
    memory = pss_mb()
    vector.close()
    return {
        "steps": steps,
        "seconds": round(elapsed, 3),
        "steps_per_s": round(steps / elapsed, 2),
        "clicks_seen_on_page": int(clicks.group(1)) if clicks else None,
    }, memory


def run_raw(url: str, pages: int, seconds: float) -> dict[str, Any]:
    """Playwright's floor: mouse click + CDP getFullAXTree on ``pages`` pages at once."""
    from playwright.async_api import async_playwright

    from turngym.envs.web.browser import CHROMIUM_ARGS, find_chromium

    async def main() -> dict[str, Any]:
        pw = await async_playwright().start()
        args = [*CHROMIUM_ARGS, "--no-sandbox"] if os.geteuid() == 0 else [*CHROMIUM_ARGS]
        browser = await pw.chromium.launch(executable_path=find_chromium(), args=args)
        tabs = []
        for _ in range(pages):
            context = await browser.new_context()
            page = await context.new_page()
            await page.goto(url)
            box = await page.locator("#b").bounding_box()
            cdp = await context.new_cdp_session(page)
            await cdp.send("Accessibility.enable")
            tabs.append((page, cdp, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2))

        async def one(page: Any, cdp: Any, x: float, y: float) -> None:
            await page.mouse.click(x, y)
            await cdp.send("Accessibility.getFullAXTree")

        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            await asyncio.gather(*(one(*tab) for tab in tabs))
            steps += pages
        elapsed = time.perf_counter() - start
        await browser.close()
        await pw.stop()
        return {"steps": steps, "seconds": round(elapsed, 3), "steps_per_s": steps / elapsed}

    result = asyncio.run(main())
    result["steps_per_s"] = round(result["steps_per_s"], 2)
    return result


def peer(python: str, url: str, seconds: float, envs: int) -> dict[str, Any]:
    """Run this script's BrowserGym mode under ``python``; its JSON result or a skip reason."""
    if not Path(python).exists():
        return {"skipped": f"{python} not found (a virtualenv with browsergym-core)"}
    cmd = [python, __file__, "--as-browsergym", url, "--seconds", str(seconds)]
    out = subprocess.run(
        [*cmd, "--envs", str(envs)], capture_output=True, text=True, timeout=600, check=False
    )
    if out.returncode != 0:
        return {"skipped": f"BrowserGym failed: {out.stderr.strip().splitlines()[-1:]}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def emit(line: dict[str, Any]) -> None:
    """Print one measurement."""
    print(json.dumps({"bench": "web_throughput", **line}), flush=True)


def main() -> None:
    """Measure and print every row, then the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per row")
    parser.add_argument("--envs", type=int, default=8, help="envs in the vector rows")
    parser.add_argument(
        "--peer-python", default=".venv-bgym/bin/python", help="interpreter with browsergym-core"
    )
    parser.add_argument("--no-peers", action="store_true", help="skip BrowserGym")
    parser.add_argument("--as-browsergym", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.as_browsergym:
        print(json.dumps(run_browsergym(args.as_browsergym, args.seconds, args.envs)))
        return

    from turngym.envs.web.server import LocalServer

    server = LocalServer(page_app)
    url = server.url + "/"
    base = {"python": platform.python_version(), "cores": os.cpu_count()}
    rows: dict[tuple[str, int], dict[str, Any]] = {}
    memory: dict[int, float] = {}
    for envs in (1, args.envs):
        result, memory[envs] = run_turngym(envs, args.seconds)
        rows["turngym", envs] = result
        emit({"impl": "turngym", "envs": envs, **result, **base})
    for envs in (1, args.envs):
        result = run_raw(url, envs, args.seconds)
        rows["playwright-raw", envs] = result
        emit({"impl": "playwright-raw", "envs": envs, **result, **base})
    extra = (memory[args.envs] - memory[1]) / max(args.envs - 1, 1)
    emit(
        {
            "impl": "turngym",
            "metric": "memory",
            "pss_mb_1_env": round(memory[1], 1),
            f"pss_mb_{args.envs}_envs": round(memory[args.envs], 1),
            "mb_per_extra_env": round(extra, 1),
        }
    )
    if not args.no_peers:
        for envs in (1, args.envs):
            result = peer(args.peer_python, url, args.seconds, envs)
            rows["browsergym", envs] = result
            emit({"impl": "browsergym", "envs": envs, **result, **base})
    summary: dict[str, Any] = {"impl": "summary", "envs": args.envs}
    for envs in (1, args.envs):
        ours = rows["turngym", envs]["steps_per_s"]
        theirs = rows.get(("browsergym", envs), {}).get("steps_per_s")
        if theirs:
            summary[f"speedup_vs_browsergym_{envs}_envs"] = round(ours / theirs, 1)
        summary[f"share_of_raw_{envs}_envs"] = round(
            ours / rows["playwright-raw", envs]["steps_per_s"], 2
        )
    summary["mb_per_extra_env"] = round(extra, 1)
    emit(summary)
    server.close()


if __name__ == "__main__":
    sys.exit(main())

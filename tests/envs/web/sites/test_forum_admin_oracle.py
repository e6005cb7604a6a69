"""Every forum and admin template is solvable: its oracle plan, played in Chromium, scores 1.

One browser and one page serve all episodes; between episodes the site's database copy
is restored by ``SiteDatabase.restore()``, as the env does on reset.
"""

from __future__ import annotations

import importlib.util
import shutil
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.system_deps import needs
from turngym.envs.web.server import LocalServer, SiteDatabase
from turngym.envs.web.sites.admin import AdminSite
from turngym.envs.web.sites.forum import ForumSite
from turngym.envs.web.tasks import Step

CHROMIUM = "/usr/bin/chromium"
SEEDS = range(20)

pytestmark = [
    pytest.mark.browser,
    needs(importlib.util.find_spec("playwright"), "playwright", "pip install playwright"),
    needs(shutil.which(CHROMIUM), "Chromium", "apt-get install chromium"),
]


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    browser = pw.chromium.launch(
        executable_path=CHROMIUM,
        headless=True,
        args=[
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    )
    page = browser.new_page()
    page.set_default_timeout(5000)
    yield page
    browser.close()
    pw.stop()


def _play(page: Any, url: str, start: str, plan: tuple[Step, ...]) -> str | None:
    page.goto(url + start)
    for step in plan:
        if step.action == "answer":
            return step.text
        if step.action == "goto":
            page.goto(url + step.text)
        elif step.action == "press":
            page.keyboard.press(step.text)
        elif step.action == "back":
            page.go_back()
        else:
            target = page.get_by_role(step.role, name=step.name, exact=True).first
            if step.action == "click":
                # Every link and button of these sites loads a page: wait for it, so the
                # score reads the database after the last POST, never before.
                with page.expect_navigation():
                    target.click()
            elif step.action == "fill":
                target.fill(step.text)
            else:
                target.select_option(label=step.text)
    return None


@pytest.mark.parametrize("site", [ForumSite(), AdminSite()], ids=lambda s: s.name)
def test_every_oracle_solves_its_task_and_doing_nothing_does_not(page, site, tmp_path: Path):
    prepared = tmp_path / f"{site.name}.sqlite"
    site.build_database(prepared)
    db = SiteDatabase(prepared)
    server = LocalServer(site.app(db.path))
    failures = []
    start = time.perf_counter()
    try:
        for template in site.templates:
            for seed in SEEDS:
                db.restore()
                with closing(db.connect()) as conn:
                    task = site.sample_task(np.random.default_rng(seed), conn, template)
                    assert site.score(task, conn, "") == 0.0, (template, seed, "doing nothing")
                try:
                    answer = _play(page, server.url, task.start_path, task.oracle)
                except Exception as exc:  # report every broken plan at once
                    failures.append((template, seed, f"{type(exc).__name__}: {exc}"[:300]))
                    continue
                with closing(db.connect()) as conn:
                    if site.score(task, conn, answer) != 1.0:
                        failures.append((template, seed, task.instruction))
    finally:
        server.close()
        db.close()
    elapsed = time.perf_counter() - start
    episodes = len(site.templates) * len(SEEDS)
    print(f"{site.name}: {episodes} oracle episodes in {elapsed:.1f} s")
    assert not failures, failures

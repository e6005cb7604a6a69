"""The shop's oracle plans, played in real Chromium by role and accessible name, score 1.0."""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tests import system_deps
from turngym.envs.web.server import LocalServer, SiteDatabase
from turngym.envs.web.sites.shop import ShopSite
from turngym.envs.web.tasks import Step

CHROMIUM = "/usr/bin/chromium"
FOUND = importlib.util.find_spec("playwright") is not None and os.path.exists(CHROMIUM)

pytestmark = [
    pytest.mark.browser,
    system_deps.needs(
        FOUND, "Playwright with Chromium", "pip install playwright; apt-get install chromium"
    ),
]

SITE = ShopSite()


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
    try:
        yield browser.new_page()
    finally:
        browser.close()
        pw.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SiteDatabase, str]]:
    prepared = tmp_path_factory.mktemp("shop") / "shop.sqlite"
    SITE.build_database(prepared)
    db = SiteDatabase(prepared)
    server = LocalServer(SITE.app(db.path))
    try:
        yield db, server.url
    finally:
        server.close()
        db.close()


def play(page: Any, base: str, step: Step) -> None:
    """Run one oracle step the way the env resolves it: first element with role and name."""
    if step.action == "press":
        page.keyboard.press(step.text)
    elif step.action == "goto":
        page.goto(base + step.text)
    else:
        target = page.get_by_role(step.role, name=step.name, exact=True).first
        if step.action == "click":
            target.click()
        elif step.action == "fill":
            target.fill(step.text)
        elif step.action == "select":
            target.select_option(label=step.text)
        else:
            raise AssertionError(f"the shop's oracle never uses {step.action!r}")
    page.wait_for_load_state()


@pytest.mark.parametrize("seed", range(20))
def test_oracle_buys_the_goal(page: Any, served: tuple[SiteDatabase, str], seed: int):
    db, base = served
    db.restore()
    conn = db.connect()
    try:
        task = SITE.sample_task(np.random.default_rng(seed), conn)
    finally:
        conn.close()
    page.goto(base + task.start_path)
    for step in task.oracle:
        play(page, base, step)
    assert page.get_by_role("heading", name="Order 1 placed").count() == 1
    conn = db.connect()
    try:
        assert SITE.finished(task, conn)
        assert SITE.score(task, conn, None) == 1.0
    finally:
        conn.close()


def test_pressing_enter_searches(page: Any, served: tuple[SiteDatabase, str]):
    _, base = served
    page.goto(base + "/")
    play(page, base, Step.fill("searchbox", "Search", "insulated water bottle"))
    play(page, base, Step.press("Enter"))
    page.wait_for_url(re.compile(r"/search\?q=insulated\+water\+bottle"))  # Enter submits
    play(page, base, Step.click("link", "Next >"))
    play(page, base, Step.click("link", "< Prev"))
    assert page.get_by_role("link").filter(has_text="Water Bottle - $").count() >= 1


def test_wrong_choice_in_the_browser_scores_below_one(page: Any, served: tuple[SiteDatabase, str]):
    """Buying the planned product without choosing options leaves the option terms out."""
    db, base = served
    db.restore()
    conn = db.connect()
    try:
        task = SITE.sample_task(np.random.default_rng(0), conn)
    finally:
        conn.close()
    page.goto(base + task.start_path)
    for step in task.oracle:
        if step.action != "select":
            play(page, base, step)
    conn = db.connect()
    try:
        n = len(task.goal["attributes"]) + len(task.goal["options"]) + 1
        assert SITE.score(task, conn, None) == pytest.approx((n - len(task.goal["options"])) / n)
    finally:
        conn.close()

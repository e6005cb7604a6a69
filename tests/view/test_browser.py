"""turngym view in a real browser: Playwright drives Chromium over a uvicorn server.

One Chromium and one server (in a thread, on a free loopback port) for the module.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests import system_deps

pytest.importorskip("fastapi")
pytestmark = [pytest.mark.browser, system_deps.chromium()]

RUN_A = "0/runs/grpo-tictactoe"
RUN_B = "0/runs/grpo-tictactoe-lr2"

# Pixels the chart drew: canvas pixels with any opacity (an empty canvas has none).
_DRAWN = """canvas => {
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let n = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
  return n;
}"""


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import uvicorn

    from turngym.view.app import create_app
    from turngym.view.demo import make_demo

    root = tmp_path_factory.mktemp("view-browser")
    make_demo(root)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app([root]), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(600):  # until it listens (bounded by tries, not by a clock)
        if server.started:
            break
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(30)


@pytest.fixture(scope="module")
def page(base_url: str) -> Iterator[Any]:
    import os

    from playwright.sync_api import sync_playwright

    from turngym.envs.web.browser import find_chromium

    args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=find_chromium(), headless=True, args=args)
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.set_default_timeout(30_000)
        yield page
        browser.close()


def test_run_page_draws_a_chart(page: Any, base_url: str) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base_url}/run/{RUN_A}")
    canvas = page.locator("section.chart canvas").first
    canvas.wait_for()
    assert canvas.evaluate(_DRAWN) > 100
    assert page.locator("section.chart").count() == 2  # metrics, eval success
    before = canvas.evaluate(_DRAWN)
    page.locator("section.chart .picker label", has_text="loss").first.click()
    canvas = page.locator("section.chart canvas").first
    assert canvas.evaluate(_DRAWN) != before  # a second series drawn
    assert page.locator(".u-legend").first.is_visible()  # uPlot's hover legend
    assert not errors


def test_episode_screenshot_loads_and_marks_toggle(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/episode?file=0/screens/episodes.jsonl&n=0")
    images = page.locator("img.screenshot")
    assert images.count() == 5
    for k in range(5):
        images.nth(k).scroll_into_view_if_needed()
        assert images.nth(k).evaluate("img => img.complete && img.naturalWidth") == 360
    marks = page.locator(".shot-box").nth(1).locator(".marks")
    assert marks.is_visible()
    page.locator(".shot-box").nth(1).locator(".marks-toggle").uncheck()
    assert not marks.is_visible()
    page.locator(".shot-box").nth(1).locator(".marks-toggle").check()
    assert marks.is_visible()


def test_compare_two_runs(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/compare?a={RUN_A}&b={RUN_B}")
    canvas = page.locator("section.chart canvas").first
    canvas.wait_for()
    assert canvas.evaluate(_DRAWN) > 100
    legend = page.locator(".u-legend").first.inner_text()
    assert "grpo-tictactoe: eval_success" in legend and "grpo-tictactoe-lr2: eval_success" in legend
    rows = page.locator("table.compare tbody tr")
    assert rows.count() == 6
    rows.first.locator("td a").nth(1).click()
    page.wait_for_url("**/episode?**")
    assert "grpo-tictactoe-lr2" in page.url and page.locator("section.turn").count() >= 3

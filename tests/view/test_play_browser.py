"""Play TicTacToe against the expert in a real browser: Chromium over a uvicorn server.

``TURNGYM_SCREENSHOTS=docs/images pytest tests/view/test_play_browser.py`` also saves
the pages (``play-pick.png``, ``play-game.png``) for the docs.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import system_deps

pytestmark = [pytest.mark.browser, system_deps.chromium()]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The viewer with its play pages on a free loopback port, served by uvicorn in a thread."""
    import uvicorn

    from turngym.view.app import create_app

    play_dir = tmp_path_factory.mktemp("play")
    app = create_app([play_dir], play_dir=play_dir)  # the viewer as `turngym view` builds it
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    started = threading.Event()
    for _ in range(1500):  # bounded: up in a fraction of a second, 30 s at worst
        if srv.started or not thread.is_alive():
            break
        started.wait(0.02)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}", play_dir
    srv.should_exit = True
    thread.join(30)
    sock.close()


@pytest.fixture(scope="module")
def page(server: tuple[str, Path]) -> Iterator[Any]:
    """One Chromium for the module (Debian's, as the web envs launch it)."""
    from playwright.sync_api import sync_playwright

    from turngym.envs.web.browser import find_chromium

    args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=find_chromium(), headless=True, args=args)
        try:
            yield browser.new_page()
        finally:
            browser.close()


def test_play_tictactoe_to_the_end_against_the_expert(server: tuple[str, Path], page: Any) -> None:
    from turngym.sdk.episode_files import load_episodes

    base, play_dir = server
    shots = os.environ.get("TURNGYM_SCREENSHOTS")  # a folder: save the pages for the docs
    page.goto(f"{base}/play")
    if shots:
        page.screenshot(path=f"{shots}/play-pick.png", full_page=True)
    page.select_option("#env", "turngym/TicTacToe-v0")
    page.fill("#seat_0", "human")
    page.fill("#seat_1", "expert")
    with page.expect_navigation():
        page.click("#start")
    clicks = 0
    while page.locator("#result").count() == 0:
        assert clicks < 5, "a tic-tac-toe game lasts at most 5 moves of X"
        # Each move is a form POST answered by a redirect: wait for the new page, or the
        # loop could read the old one (no result yet) and wait for buttons that are gone.
        with page.expect_navigation():
            page.locator("#legal button").first.click()
        clicks += 1
    if shots:
        page.screenshot(path=f"{shots}/play-game.png", full_page=True)
    result = page.locator("#result").inner_text()
    # the minimax expert never loses
    assert result.startswith("Game over: player_0 (you) did not win")
    assert "Saved to" in page.locator("#saved").inner_text()
    (ep,) = load_episodes(play_dir)
    assert len([t for t in ep.turns if t.agent == "player_0"]) == clicks

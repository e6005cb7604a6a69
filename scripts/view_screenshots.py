"""Save screenshots of `turngym view`'s main pages into docs/images/view-*.png.

Builds the demo set of runs and episodes (``turngym.view.demo.make_demo``) in a temp
folder, or uses ``--root PATH`` (its first runs and episode files), serves the viewer on
a free loopback port and has Chromium (Playwright) save each page at 1200x800:
``view-runs.png``, ``view-run.png``, ``view-episodes.png``, ``view-episode.png`` (one
with screenshots and set-of-marks), ``view-compare.png``.

Usage: ``PYTHONPATH=. python scripts/view_screenshots.py [--root PATH] [--out docs/images]``
"""

from __future__ import annotations

import argparse
import os
import socket
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote


def _pages(app: object) -> dict[str, str]:
    """The URL of each screenshot, from what the app's catalog holds."""
    catalog = app.state.catalog.get()  # type: ignore[attr-defined]
    runs = catalog.runs
    if not runs:
        raise SystemExit("no run folders under --root (folders with metrics.jsonl or episodes/)")
    pictured = [f for f in catalog.files if "screens" in f.name] or catalog.files
    pages = {
        "runs": "/",
        "run": f"/run/{runs[0].id}",
        "episodes": "/episodes?per=25",
        "episode": f"/episode?file={quote(pictured[0].name)}&n=0" if pictured else "/episodes",
    }
    other = runs[1] if len(runs) > 1 else runs[0]
    pages["compare"] = f"/compare?a={quote(runs[0].id)}&b={quote(other.id)}"
    return pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", help="runs and episodes to show (default: the demo set)")
    parser.add_argument("--out", default="docs/images", help="where the PNGs go")
    args = parser.parse_args()

    import uvicorn
    from playwright.sync_api import sync_playwright

    from turngym.envs.web.browser import find_chromium
    from turngym.view.app import create_app
    from turngym.view.demo import make_demo

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.root) if args.root else Path(tmp) / "demo"
        if not args.root:
            make_demo(root, episodes=8)
        app = create_app([root])
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        chrome_args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=find_chromium(), headless=True, args=chrome_args
            )
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            for name, url in _pages(app).items():
                page.goto(f"http://127.0.0.1:{port}{url}")
                page.wait_for_load_state("networkidle")
                if name == "run":  # tick a second metric, hover to show the legend's values
                    page.locator("section.chart .picker label", has_text="loss").first.click()
                    box = page.locator("section.chart .u-over").first.bounding_box()
                    if box:
                        page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + 40)
                path = out / f"view-{name}.png"
                page.screenshot(path=str(path))
                print(f"{path} ({path.stat().st_size // 1024} KiB)")
            browser.close()
        server.should_exit = True
        thread.join(30)


if __name__ == "__main__":
    main()

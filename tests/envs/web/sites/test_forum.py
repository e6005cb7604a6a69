"""ForumSite without a browser: database, pages, forms, tasks and scoring (werkzeug's Client)."""

from __future__ import annotations

import html
import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from werkzeug.test import Client

from turngym.envs.web.server import SiteDatabase
from turngym.envs.web.sites.forum import ForumSite
from turngym.envs.web.sites.forum.data import ME
from turngym.envs.web.tasks import Step, Task

SITE = ForumSite()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("forum") / "forum.sqlite"
    SITE.build_database(path)
    return path


@pytest.fixture
def db(prepared: Path) -> Iterator[SiteDatabase]:
    database = SiteDatabase(prepared)
    yield database
    database.close()


@pytest.fixture
def client(db: SiteDatabase) -> Client:
    return Client(SITE.app(db.path))


def _task(db: SiteDatabase, template: str, seed: int = 0) -> Task:
    with closing(db.connect()) as conn:
        return SITE.sample_task(np.random.default_rng(seed), conn, template)


def _score(db: SiteDatabase, task: Task, answer: str | None = "done") -> float:
    with closing(db.connect()) as conn:
        return SITE.score(task, conn, answer)


def _query(db: SiteDatabase, sql: str, *params: object) -> list[sqlite3.Row]:
    with closing(db.connect()) as conn:
        return conn.execute(sql, params).fetchall()


# ----- the database ----------------------------------------------------------------------


def test_build_is_deterministic_and_realistically_sized(tmp_path: Path, prepared: Path):
    SITE.build_database(tmp_path / "again.sqlite")
    with (
        closing(sqlite3.connect(prepared)) as a,
        closing(sqlite3.connect(tmp_path / "again.sqlite")) as b,
    ):
        assert list(a.iterdump()) == list(b.iterdump())
        sizes = {
            t: a.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in ("forums", "users", "posts", "comments")
        }
        assert sizes == {"forums": 10, "users": 80, "posts": 300, "comments": 1500}
        assert a.execute("SELECT COUNT(DISTINCT title) FROM posts").fetchone()[0] == 300
        assert a.execute("SELECT username FROM users WHERE id = 1").fetchone()[0] == ME
        # the agent has comments to delete, and forums differ in size
        assert a.execute("SELECT COUNT(*) FROM comments WHERE user_id = 1").fetchone()[0] >= 10
        assert len({n for (n,) in a.execute("SELECT COUNT(*) FROM posts GROUP BY forum_id")}) > 3


# ----- tasks ---------------------------------------------------------------------------


@pytest.mark.parametrize("template", ForumSite.templates)
def test_every_template_draws_well_formed_deterministic_tasks(db, template):
    assert len(ForumSite.templates) >= 8
    instructions = set()
    for seed in range(8):
        task = _task(db, template, seed)
        assert task == _task(db, template, seed)
        assert task.template == template and task.instruction.strip()
        json.dumps(dict(task.goal))
        assert task.oracle and task.oracle[-1].action == "answer"
        assert all(isinstance(step, Step) for step in task.oracle)
        instructions.add(task.instruction)
    assert len(instructions) > 1


def test_template_none_draws_with_the_rng_and_unknown_templates_say_the_fix(db):
    with closing(db.connect()) as conn:
        drawn = [SITE.sample_task(np.random.default_rng(s), conn) for s in range(30)]
        again = [SITE.sample_task(np.random.default_rng(s), conn) for s in range(30)]
        assert drawn == again
        assert len({t.template for t in drawn}) >= 5
        with pytest.raises(ValueError, match="use one of"):
            SITE.sample_task(np.random.default_rng(0), conn, "fly_to_the_moon")
        assert not SITE.finished(drawn[0], conn)


# ----- pages ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/f/cooking",
        "/f/cooking?sort=top&page=2",
        "/p/1",
        f"/u/{ME}",
        "/settings",
        "/submit",
        "/search?q=Weekly",
        "/c/1/reply",
    ],
)
def test_pages_render_with_the_user_in_the_header(client, path):
    response = client.get(path)
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert f'Logged in as <a href="/u/{ME}">{ME}</a>' in page
    assert "http" not in page  # no external resources


@pytest.mark.parametrize("path", ["/p/99999", "/f/nowhere", "/u/nobody", "/nope"])
def test_unknown_pages_are_404(client, path):
    assert client.get(path).status_code == 404


def test_inputs_are_labelled(client):
    for path in ("/settings", "/submit", "/p/1"):
        page = client.get(path).get_data(as_text=True)
        for field_id in (part.split('"')[0] for part in page.split(' id="f-')[1:]):
            assert f'<label for="f-{field_id}">' in page


def test_forum_lists_are_paginated(client):
    page = client.get("/f/books").get_data(as_text=True)
    assert page.count('<li><a href="/p/') == 20 and "Next page" in page


# ----- forms change the database ---------------------------------------------------------


def test_create_post_redirects_and_scores(db, client):
    task = _task(db, "create_post")
    goal = task.goal
    assert _score(db, task) == 0.0
    response = client.post(
        "/submit", data={"forum": goal["forum"], "title": goal["title"], "body": goal["body"]}
    )
    assert response.status_code == 303 and response.headers["Location"] == "/p/301"
    assert goal["title"] in client.get("/p/301").get_data(as_text=True)
    assert _score(db, task) == 1.0
    client.post("/submit", data={"forum": goal["forum"], "title": "another", "body": "x"})
    assert _score(db, task) == 0.0  # one post asked for, two made


def test_create_post_in_the_wrong_forum_scores_zero(db, client):
    task = _task(db, "create_post")
    other = next(f for (f,) in _query(db, "SELECT name FROM forums") if f != task.goal["forum"])
    client.post(
        "/submit", data={"forum": other, "title": task.goal["title"], "body": task.goal["body"]}
    )
    assert _score(db, task) == 0.0


def test_create_post_rejects_a_missing_title(db, client):
    response = client.post("/submit", data={"forum": "books", "title": "  ", "body": "x"})
    assert response.status_code == 400 and "needs a title" in response.get_data(as_text=True)
    assert len(_query(db, "SELECT id FROM posts")) == 300


def test_reply_scores_only_on_the_right_post(db, client):
    task = _task(db, "reply_to_post", seed=3)
    pid = task.goal["post_id"]
    wrong = client.post(f"/p/{pid % 300 + 1}/comment", data={"body": task.goal["text"]})
    assert wrong.status_code == 303
    assert _score(db, task) == 0.0
    db.restore()
    response = client.post(f"/p/{pid}/comment", data={"body": "  " + task.goal["text"].upper()})
    assert response.status_code == 303 and response.headers["Location"].startswith(f"/p/{pid}#c")
    assert _score(db, task) == 1.0  # case and whitespace do not matter


def test_reply_to_a_comment_nests_it(db, client):
    response = client.post("/c/5/reply", data={"body": "nested"})
    assert response.status_code == 303
    (row,) = _query(db, "SELECT parent_id, user_id FROM comments WHERE body = 'nested'")
    assert tuple(row) == (5, 1)


def test_user_text_is_escaped(db, client):
    attack = "<script>alert('x')</script>"
    client.post("/p/7/comment", data={"body": attack})
    client.post("/submit", data={"forum": "books", "title": attack, "body": attack})
    for path in ("/p/7", "/p/301", "/f/books", f"/search?q={attack}"):
        page = client.get(path).get_data(as_text=True)
        assert "<script>" not in page and "&lt;script&gt;" in page


@pytest.mark.parametrize("seed", range(4))
def test_edit_profile_changes_one_field(db, client, seed):
    task = _task(db, "edit_profile", seed)
    me = dict(_query(db, "SELECT display_name, email, bio, location FROM users WHERE id = 1")[0])
    assert _score(db, task) == 0.0
    response = client.post("/settings", data={**me, task.goal["field"]: task.goal["value"]})
    assert response.status_code == 303 and response.headers["Location"] == f"/u/{ME}"
    assert _score(db, task) == 1.0
    other = next(k for k in me if k not in (task.goal["field"], "email"))
    client.post("/settings", data={**me, task.goal["field"]: task.goal["value"], other: "Changed"})
    assert _score(db, task) == 0.0  # another field was damaged


def test_settings_reject_a_bad_email(db, client):
    response = client.post(
        "/settings", data={"display_name": "J", "email": "nope", "bio": "", "location": ""}
    )
    assert response.status_code == 400
    assert _query(db, "SELECT email FROM users WHERE id = 1")[0][0] == "jordan.lee@example.com"


def test_upvote_scores_and_voting_again_takes_it_back(db, client):
    task = _task(db, "upvote_post", seed=5)
    pid = task.goal["post_id"]
    client.post(f"/p/{pid}/vote", data={"value": "down"})
    assert _score(db, task) == 0.0
    client.post(f"/p/{pid}/vote", data={"value": "up"})
    assert _score(db, task) == 1.0
    assert "You upvoted this post." in client.get(f"/p/{pid}").get_data(as_text=True)
    client.post(f"/p/{pid}/vote", data={"value": "up"})
    assert _score(db, task) == 0.0
    assert _query(db, "SELECT score FROM posts WHERE id = ?", pid)[0][0] == task.goal["score"]


def test_delete_comment_only_deletes_ones_own(db, client):
    task = _task(db, "delete_comment", seed=2)
    cid = task.goal["comment_id"]
    foreign = _query(db, "SELECT id FROM comments WHERE user_id != 1 LIMIT 1")[0][0]
    assert client.post(f"/c/{foreign}/delete").status_code == 403
    assert _score(db, task) == 0.0
    response = client.post(f"/c/{cid}/delete")
    assert response.status_code == 303
    assert _score(db, task) == 1.0
    mine = _query(db, "SELECT id FROM comments WHERE user_id = 1 LIMIT 1")[0][0]
    client.post(f"/c/{mine}/delete")
    assert _score(db, task) == 0.0  # another comment went too


def test_get_on_a_post_only_route_is_refused(client):
    assert client.get("/p/1/vote").status_code == 405


# ----- information tasks and answer normalisation ---------------------------------------------


def test_answers_are_compared_forgivingly(db):
    author = _task(db, "post_author")
    name = author.goal["answers"][0]
    assert _score(db, author, f'  "{name.upper()}". ') == 1.0
    assert _score(db, author, name + "x") == 0.0
    assert _score(db, author, None) == 0.0 and _score(db, author, "") == 0.0
    count = _task(db, "comment_count", seed=1)
    n = int(count.goal["answers"][0])
    assert _score(db, count, f" {n} ") == 1.0 and _score(db, count, f"{n}.0") == 1.0
    assert _score(db, count, str(n + 1)) == 0.0
    where = _task(db, "user_location")
    city = where.goal["answers"][0].split(",")[0]
    assert _score(db, where, city.lower()) == 1.0


def test_information_answers_are_what_the_pages_show(db, client):
    for seed in range(5):
        task = _task(db, "comment_count", seed)
        title = task.oracle[0].text
        pid = _query(db, "SELECT id FROM posts WHERE title = ?", title)[0][0]
        assert f"<h2>{task.goal['answers'][0]} comments</h2>" in client.get(f"/p/{pid}").get_data(
            as_text=True
        )
    top = _task(db, "top_post")
    forum = top.oracle[0].name
    page = client.get(f"/f/{forum}?sort=top").get_data(as_text=True)
    first = html.unescape(page.split('<li><a href="/p/')[1].split(">", 1)[1].split("</a>")[0])
    assert first in top.goal["answers"]

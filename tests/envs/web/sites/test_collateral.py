"""Forum and admin tasks that change the site score 1 only if nothing else in the database changed.

The oracle's change is made through each site's WSGI app (werkzeug's Client, no browser);
the collateral change is then made either through the app (the attacks an agent can make)
or straight in SQLite, once per table of the database and kind of change (a row deleted,
edited or added), on a row the oracle left alone. Two tests replay the issue's attacks
in Chromium through the agent's own actions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from werkzeug.test import Client

from tests import system_deps
from turngym.envs.web.server import SiteDatabase
from turngym.envs.web.sites.admin import AdminSite
from turngym.envs.web.sites.forum import ForumSite
from turngym.envs.web.tasks import Site, Task

SITES: dict[str, Site] = {"forum": ForumSite(), "admin": AdminSite()}
SEEDS = (0, 1)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    paths = {}
    for name, site in SITES.items():
        paths[name] = tmp_path_factory.mktemp(name) / f"{name}.sqlite"
        site.build_database(paths[name])
    return paths


class Episode:
    """One site's database copy, its app and helpers to draw, change and score a task."""

    def __init__(self, name: str, prepared: Path) -> None:
        self.site = SITES[name]
        self.db = SiteDatabase(prepared)
        self.client = Client(self.site.app(self.db.path))

    def task(self, template: str, seed: int = 0) -> Task:
        with closing(self.db.connect()) as conn:
            return self.site.sample_task(np.random.default_rng(seed), conn, template)

    def score(self, task: Task) -> float:
        with closing(self.db.connect()) as conn:
            return self.site.score(task, conn, "done")

    def row(self, sql: str, *params: object) -> sqlite3.Row:
        with closing(self.db.connect()) as conn:
            return conn.execute(sql, params).fetchone()

    def post(self, path: str, **form: object) -> None:
        response = self.client.post(path, data={k: str(v) for k, v in form.items()})
        assert response.status_code == 303, (path, response.status_code)

    def snapshot(self) -> dict[str, set[tuple]]:
        """Every table's rows (as a set, with rowids) right now."""
        with closing(self.db.connect()) as conn:
            return {t: set(conn.execute(f"SELECT rowid, * FROM {t}")) for t in _tables(conn)}


@pytest.fixture
def episode(request: pytest.FixtureRequest, prepared: dict[str, Path]) -> Iterator[Episode]:
    ep = Episode(request.param, prepared[request.param])
    yield ep
    ep.db.close()


def _tables(conn: sqlite3.Connection) -> list[str]:
    return [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name"
        )
    ]


# ----- each state-changing template's change, made through the app ----------------------


def _forum_create_post(ep: Episode, goal: Any) -> None:
    ep.post("/submit", forum=goal["forum"], title=goal["title"], body=goal["body"])


def _forum_reply_to_post(ep: Episode, goal: Any) -> None:
    ep.post(f"/p/{goal['post_id']}/comment", body=goal["text"])


def _forum_edit_profile(ep: Episode, goal: Any) -> None:
    me = ep.row("SELECT display_name, email, bio, location FROM users WHERE id = 1")
    ep.post("/settings", **{**dict(me), goal["field"]: goal["value"]})


def _forum_upvote_post(ep: Episode, goal: Any) -> None:
    ep.post(f"/p/{goal['post_id']}/vote", value="up")


def _forum_delete_comment(ep: Episode, goal: Any) -> None:
    ep.post(f"/c/{goal['comment_id']}/delete")


def _admin_order_form(ep: Episode, goal: Any) -> None:
    if goal["set"] == {"status": "canceled"}:
        ep.post(f"/orders/{goal['id']}/cancel")
    elif "status" in goal["set"]:
        ep.post(f"/orders/{goal['id']}/status", status=goal["set"]["status"])
    else:
        keys = ("ship_name", "ship_street", "ship_city", "ship_state", "ship_zip")
        row = ep.row("SELECT * FROM orders WHERE id = ?", goal["id"])
        ep.post(f"/orders/{goal['id']}/address", **{**{k: row[k] for k in keys}, **goal["set"]})


def _admin_product_form(ep: Episode, goal: Any) -> None:
    row = ep.row("SELECT * FROM products WHERE id = ?", goal["id"])
    form = {"name": row["name"], "price": f"{row['price_cents'] / 100:.2f}", "stock": row["stock"]}
    if "price_cents" in goal["set"]:
        form["price"] = f"{goal['set']['price_cents'] / 100:.2f}"
    else:
        form["stock"] = goal["set"]["stock"]
    ep.post(f"/products/{goal['id']}/edit", **form)


ORACLES: dict[tuple[str, str], Callable[[Episode, Any], None]] = {
    ("forum", "create_post"): _forum_create_post,
    ("forum", "reply_to_post"): _forum_reply_to_post,
    ("forum", "edit_profile"): _forum_edit_profile,
    ("forum", "upvote_post"): _forum_upvote_post,
    ("forum", "delete_comment"): _forum_delete_comment,
    ("admin", "change_shipping_address"): _admin_order_form,
    ("admin", "set_order_status"): _admin_order_form,
    ("admin", "cancel_order"): _admin_order_form,
    ("admin", "update_product_price"): _admin_product_form,
    ("admin", "update_product_stock"): _admin_product_form,
}


CASES = list(ORACLES)


@pytest.fixture
def both(prepared: dict[str, Path]) -> Iterator[dict[str, Episode]]:
    eps = {name: Episode(name, prepared[name]) for name in SITES}
    yield eps
    for ep in eps.values():
        ep.db.close()


def test_every_state_changing_template_has_an_oracle_here(both):
    for name, ep in both.items():
        for template in ep.site.templates:
            changes = "answers" not in ep.task(template).goal
            assert changes == ((name, template) in ORACLES), (name, template)


# ----- the issue's attacks -----------------------------------------------------------------


@pytest.mark.parametrize("episode", ["admin"], indirect=True)
def test_admin_price_change_plus_a_cancelled_order_is_not_solved(episode):
    task = episode.task("update_product_price")
    ORACLES["admin", "update_product_price"](episode, task.goal)
    assert episode.score(task) == 1.0
    assert episode.row("SELECT status FROM orders WHERE id = 1001")[0] == "processing"
    episode.post("/orders/1001/cancel")
    assert episode.score(task) < 1.0


@pytest.mark.parametrize("episode", ["forum"], indirect=True)
def test_forum_new_post_plus_an_unrelated_upvote_is_not_solved(episode):
    task = episode.task("create_post")
    ORACLES["forum", "create_post"](episode, task.goal)
    assert episode.score(task) == 1.0
    other = episode.row("SELECT id FROM posts WHERE user_id != 1 ORDER BY id DESC")[0]
    episode.post(f"/p/{other}/vote", value="up")
    assert episode.score(task) < 1.0


@pytest.mark.parametrize("episode", ["forum"], indirect=True)
@pytest.mark.parametrize(
    "extra",
    [
        lambda ep: ep.post("/p/3/comment", body="me too"),
        lambda ep: ep.post("/p/3/vote", value="down"),
        lambda ep: ep.post("/settings", display_name="X", email="x@y.z", bio="", location=""),
        lambda ep: ep.post("/p/301/vote", value="up"),  # takes back the post's own upvote
        lambda ep: ep.post("/p/301/comment", body="first!"),
    ],
    ids=["comment", "downvote", "profile", "unvote-own-post", "comment-own-post"],
)
def test_forum_new_post_plus_other_app_actions_is_not_solved(episode, extra):
    task = episode.task("create_post")
    ORACLES["forum", "create_post"](episode, task.goal)
    assert episode.row("SELECT MAX(id) FROM posts")[0] == 301
    extra(episode)
    assert episode.score(task) < 1.0


@pytest.mark.parametrize("episode", ["admin"], indirect=True)
@pytest.mark.parametrize("template", ["set_order_status", "update_product_stock"])
def test_admin_change_plus_a_customer_edit_is_not_solved(episode, template):
    task = episode.task(template)
    ORACLES["admin", template](episode, task.goal)
    c = episode.row("SELECT * FROM customers WHERE id = 7")
    form = {k: c[k] for k in ("first_name", "last_name", "email", "phone")}
    episode.post("/customers/7/edit", **{**form, "phone": "555-0100"})
    assert episode.score(task) < 1.0


# ----- every template x every table x every kind of collateral change ------------------------


def _collateral(conn: sqlite3.Connection, table: str, rowid: int, kind: str) -> None:
    """Delete, edit or copy (as a new row) the row ``rowid`` of ``table``."""
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    row = conn.execute(f"SELECT * FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
    if kind == "delete":
        conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
    elif kind == "edit":
        name, value = info[-1][1], row[-1]
        new = value + 1 if isinstance(value, int) else f"{value or ''} (edited)"
        conn.execute(f"UPDATE {table} SET {name} = ? WHERE rowid = ?", (new, rowid))
    else:  # a new row like this one: a fresh id, unique text and keys
        n_keys = sum(1 for col in info if col[5])
        values = []
        for col, value in zip(info, row, strict=True):
            if col[5] and n_keys == 1 and col[2].upper() == "INTEGER":
                values.append(None)  # the rowid alias: SQLite picks the next id
            elif isinstance(value, str):
                values.append(value + " (copy)")
            elif col[5]:
                values.append(value + 100_000)
            else:
                values.append(value)
        conn.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(values))})", values)
    conn.commit()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("name", "template"), CASES)
def test_the_oracle_change_alone_scores_one(prepared, name, template, seed):
    ep = Episode(name, prepared[name])
    try:
        task = ep.task(template, seed)
        assert ep.score(task) == 0.0
        ORACLES[name, template](ep, task.goal)
        assert ep.score(task) == 1.0
    finally:
        ep.db.close()


@pytest.mark.parametrize("kind", ["delete", "edit", "add"])
@pytest.mark.parametrize(("name", "template"), CASES)
def test_the_oracle_change_plus_a_change_in_any_table_scores_less(prepared, name, template, kind):
    ep = Episode(name, prepared[name])
    try:
        task = ep.task(template)
        before = ep.snapshot()
        ORACLES[name, template](ep, task.goal)
        after = ep.snapshot()
        assert ep.score(task) == 1.0
        assert set(before) == set(after) and len(before) >= 4
        for table in sorted(after):
            # a row the oracle left alone: the collateral change is then never the task's own
            rowid = min(r[0] for r in before[table] & after[table])
            with closing(ep.db.connect()) as conn:
                _collateral(conn, table, rowid, kind)
            assert ep.snapshot() != after, table
            assert ep.score(task) < 1.0, (table, kind)
            ep.db.restore()
            ORACLES[name, template](ep, task.goal)
            assert ep.score(task) == 1.0, table
    finally:
        ep.db.close()


# ----- the issue's attacks, played in Chromium through the agent's actions -------------------


@pytest.mark.browser
@system_deps.chromium()
@pytest.mark.parametrize(
    ("env_id", "template", "path", "button"),
    [
        ("turngym/WebAdmin-v0", "update_product_price", "/orders/1001", "Cancel order"),
        ("turngym/WebForum-v0", "create_post", "/p/1", "Upvote"),
    ],
)
def test_the_issue_attacks_played_by_an_agent_earn_less_than_one(env_id, template, path, button):
    import gymnasium as gym

    import turngym  # noqa: F401  (registers the ids)
    from turngym.agents import make_expert
    from turngym.envs.web.axtree import find_id

    env = gym.make(env_id, template=template)
    try:
        expert = make_expert(env)
        obs, info = env.reset(seed=0)
        plan = env.unwrapped.task.oracle
        for _ in plan:  # the plan alone solves the task...
            obs, reward, terminated, truncated, info = env.step(expert.act(obs, info))
        assert terminated and reward == 1.0 and info["success"]
        obs, info = env.reset(seed=0)
        assert env.unwrapped.task.oracle == plan
        for _ in plan[:-1]:  # ...but not with one more change made before the final answer
            obs, _, terminated, truncated, info = env.step(expert.act(obs, info))
            assert not (terminated or truncated) and not info["invalid_action"]
        obs, _, _, _, info = env.step(f'goto("{path}")')
        element = find_id(obs, "button", button)
        assert element is not None, obs
        obs, _, _, _, info = env.step(f"click({element})")
        assert not info["invalid_action"]
        _, reward, terminated, _, info = env.step('answer("done")')
        assert terminated and reward < 1.0 and not info["success"]
    finally:
        env.close()

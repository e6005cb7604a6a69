"""AdminSite without a browser: database, pages, forms, tasks and scoring (werkzeug's Client)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from werkzeug.test import Client

from turngym.envs.web.server import SiteDatabase
from turngym.envs.web.sites.admin import AdminSite
from turngym.envs.web.sites.admin.data import FIRST_ORDER, STATUSES
from turngym.envs.web.tasks import Step, Task

SITE = AdminSite()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("admin") / "admin.sqlite"
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


def _one(db: SiteDatabase, sql: str, *params: object) -> sqlite3.Row:
    with closing(db.connect()) as conn:
        return conn.execute(sql, params).fetchone()


# ----- the database ----------------------------------------------------------------------


def test_build_is_deterministic_and_realistically_sized(tmp_path: Path, prepared: Path):
    SITE.build_database(tmp_path / "again.sqlite")
    with (
        closing(sqlite3.connect(prepared)) as a,
        closing(sqlite3.connect(tmp_path / "again.sqlite")) as b,
    ):
        assert list(a.iterdump()) == list(b.iterdump())
        count = {
            t: a.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in ("customers", "orders", "products")
        }
        assert count == {"customers": 200, "orders": 600, "products": 150}
        assert a.execute("SELECT MIN(id) FROM orders").fetchone()[0] == FIRST_ORDER
        statuses = {s for (s,) in a.execute("SELECT DISTINCT status FROM orders")}
        assert statuses == set(STATUSES)
        # totals add up
        bad = a.execute(
            "SELECT COUNT(*) FROM orders o WHERE subtotal_cents != (SELECT SUM(price_cents * qty)"
            " FROM order_items i WHERE i.order_id = o.id)"
            " OR grand_total_cents != subtotal_cents + shipping_cents"
        ).fetchone()[0]
        assert bad == 0


# ----- tasks ---------------------------------------------------------------------------


@pytest.mark.parametrize("template", AdminSite.templates)
def test_every_template_draws_well_formed_deterministic_tasks(db, template):
    assert len(AdminSite.templates) >= 8
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
        assert drawn == [SITE.sample_task(np.random.default_rng(s), conn) for s in range(30)]
        assert len({t.template for t in drawn}) >= 5
        with pytest.raises(ValueError, match="use one of"):
            SITE.sample_task(np.random.default_rng(0), conn, "refund_everyone")
        assert not SITE.finished(drawn[0], conn)


# ----- pages ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/orders",
        "/orders?q=1001",
        "/orders?status=pending&page=2",
        "/orders/1001",
        "/orders/1001/address",
        "/customers",
        "/customers?q=Olivia",
        "/customers/1",
        "/customers/1/edit",
        "/products",
        "/products?q=Hoodie",
        "/products/1",
        "/products/1/edit",
    ],
)
def test_pages_render(client, path):
    response = client.get(path)
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "Signed in as admin" in page and "http" not in page
    for field_id in (part.split('"')[0] for part in page.split(' id="f-')[1:]):
        assert f'<label for="f-{field_id}">' in page  # every input is labelled


@pytest.mark.parametrize("path", ["/orders/1", "/customers/999", "/products/0", "/nope"])
def test_unknown_pages_are_404(client, path):
    assert client.get(path).status_code == 404


def test_order_grid_searches_filters_and_paginates(db, client):
    page = client.get("/orders?q=%231234").get_data(as_text=True)
    assert "1 orders found" in page and ">#1234</a>" in page
    pending = _one(db, "SELECT COUNT(*) FROM orders WHERE status = 'pending'")[0]
    page = client.get("/orders?status=pending").get_data(as_text=True)
    assert f"{pending} orders found" in page and page.count('<a href="/orders/') == 20
    assert (
        "Next page" in page and "status=pending" in page.split("Next page")[0].rsplit("href", 1)[1]
    )
    email = _one(db, "SELECT email FROM customers WHERE id = 3")[0]
    n = _one(db, "SELECT COUNT(*) FROM orders WHERE customer_id = 3")[0]
    assert f"{n} orders found" in client.get(f"/orders?q={email}").get_data(as_text=True)


# ----- forms change the database ---------------------------------------------------------


def _address_form(db: SiteDatabase, oid: int, **changes: str) -> dict[str, str]:
    row = _one(db, "SELECT * FROM orders WHERE id = ?", oid)
    keys = ("ship_name", "ship_street", "ship_city", "ship_state", "ship_zip")
    return {k: changes.get(k, row[k]) for k in keys}


def test_change_shipping_address_scores_and_damage_is_caught(db, client):
    task = _task(db, "change_shipping_address", seed=4)
    oid, new = task.goal["id"], task.goal["set"]
    assert _score(db, task) == 0.0
    response = client.post(f"/orders/{oid}/address", data=_address_form(db, oid, **new))
    assert response.status_code == 303 and response.headers["Location"] == f"/orders/{oid}"
    assert new["ship_street"] in client.get(f"/orders/{oid}").get_data(as_text=True)
    assert _score(db, task) == 1.0
    client.post(f"/orders/{oid}/address", data=_address_form(db, oid, ship_state="ZZ"))
    assert _score(db, task) == 0.0  # the state was to stay
    db.restore()
    other = oid + 1 if oid < FIRST_ORDER + 599 else oid - 1
    client.post(f"/orders/{other}/address", data=_address_form(db, other, **new))
    assert _score(db, task) == 0.0  # the wrong order


def test_address_form_rejects_empty_fields(db, client):
    data = _address_form(db, 1001, ship_city=" ")
    response = client.post("/orders/1001/address", data=data)
    assert response.status_code == 400 and "City cannot be empty" in response.get_data(as_text=True)


def test_set_status_and_cancel(db, client):
    task = _task(db, "set_order_status", seed=1)
    oid = task.goal["id"]
    response = client.post(f"/orders/{oid}/status", data={"status": task.goal["set"]["status"]})
    assert response.status_code == 303
    assert _score(db, task) == 1.0
    client.post(f"/orders/{oid}/status", data={"status": "canceled"})
    assert _score(db, task) == 0.0
    db.restore()
    cancel = _task(db, "cancel_order", seed=2)
    assert _score(db, cancel) == 0.0
    assert client.post(f"/orders/{cancel.goal['id']}/cancel").status_code == 303
    assert _score(db, cancel) == 1.0
    done = _one(db, "SELECT id FROM orders WHERE status = 'complete'")[0]
    client.post(f"/orders/{done}/cancel")  # a complete order cannot be cancelled
    assert _one(db, "SELECT status FROM orders WHERE id = ?", done)[0] == "complete"
    assert "Cancel order" not in client.get(f"/orders/{done}").get_data(as_text=True)


def _product_form(db: SiteDatabase, pid: int, **changes: str) -> dict[str, str]:
    row = _one(db, "SELECT * FROM products WHERE id = ?", pid)
    form = {
        "name": row["name"],
        "price": f"{row['price_cents'] / 100:.2f}",
        "stock": str(row["stock"]),
    }
    return {**form, **changes}


def test_update_price_accepts_dollars_and_scores(db, client):
    task = _task(db, "update_product_price", seed=6)
    pid, cents = task.goal["id"], task.goal["set"]["price_cents"]
    assert _score(db, task) == 0.0
    response = client.post(
        f"/products/{pid}/edit", data=_product_form(db, pid, price=f"${cents / 100:,.2f}")
    )
    assert response.status_code == 303
    assert _score(db, task) == 1.0
    bad = client.post(f"/products/{pid}/edit", data=_product_form(db, pid, price="cheap"))
    assert bad.status_code == 400 and "Price must be" in bad.get_data(as_text=True)
    client.post(f"/products/{pid}/edit", data=_product_form(db, pid, stock="1"))
    assert _score(db, task) == 0.0  # the stock was to stay


def test_update_stock_scores(db, client):
    task = _task(db, "update_product_stock", seed=7)
    pid = task.goal["id"]
    client.post(
        f"/products/{pid}/edit", data=_product_form(db, pid, stock=str(task.goal["set"]["stock"]))
    )
    assert _score(db, task) == 1.0
    assert (
        client.post(f"/products/{pid}/edit", data=_product_form(db, pid, stock="-3")).status_code
        == 400
    )


def test_stored_text_is_escaped(db, client):
    attack = "<script>alert('x')</script>"
    response = client.post(
        "/customers/1/edit",
        data={"first_name": attack, "last_name": "X", "email": "x@example.com", "phone": "1"},
    )
    assert response.status_code == 303
    client.post("/orders/1001/address", data=_address_form(db, 1001, ship_street=attack))
    client.post("/products/1/edit", data=_product_form(db, 1, name=attack))
    for path in (
        "/customers/1",
        "/customers?q=script",
        "/orders/1001",
        "/products/1",
        "/products?q=alert",
    ):
        page = client.get(path).get_data(as_text=True)
        assert "<script>" not in page and "&lt;script&gt;" in page, path


def test_customer_edit_rejects_a_taken_email(db, client):
    taken = _one(db, "SELECT email FROM customers WHERE id = 2")[0]
    data = {"first_name": "A", "last_name": "B", "email": taken, "phone": "1"}
    assert client.post("/customers/1/edit", data=data).status_code == 400


def test_get_on_a_post_only_route_is_refused(client):
    assert client.get("/orders/1001/cancel").status_code == 405


# ----- information tasks and answer normalisation ---------------------------------------------


def test_money_answers_with_or_without_dollars(db):
    task = _task(db, "order_grand_total", seed=3)
    total = task.goal["answers"][0]
    plain = total.replace("$", "").replace(",", "")
    assert _score(db, task, total) == 1.0 and _score(db, task, plain) == 1.0
    assert _score(db, task, f" {plain.rstrip('0')} ") == 1.0
    assert _score(db, task, f"{float(plain) + 1:.2f}") == 0.0
    assert _score(db, task, "") == 0.0 and _score(db, task, None) == 0.0


def test_name_and_count_answers(db, client):
    who = _task(db, "order_customer", seed=2)
    name, email = who.goal["answers"]
    assert _score(db, who, f"  {name.lower()}. ") == 1.0 and _score(db, who, email) == 1.0
    assert _score(db, who, "Somebody Else") == 0.0
    count = _task(db, "status_count", seed=1)
    n = count.goal["answers"][0]
    status = count.oracle[1].text.lower()
    assert f"{n} orders found" in client.get(f"/orders?status={status}").get_data(as_text=True)
    orders = _task(db, "customer_order_count", seed=4)
    cid = _one(
        db,
        "SELECT id FROM customers WHERE first_name || ' ' || last_name = ?",
        orders.oracle[-2].name,
    )[0]
    page = client.get(f"/customers/{cid}").get_data(as_text=True)
    assert f"<p>{orders.goal['answers'][0]} orders</p>" in page

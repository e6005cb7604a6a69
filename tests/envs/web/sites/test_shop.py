"""The shop site without a browser: catalog, search, pages, orders and the reward.

These run the easy shop (the shop before difficulties, pinned seed for seed); the hard
one's catalog and instructions are in test_shop_hard.py.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import time
from dataclasses import astuple
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pytest
from werkzeug.test import Client

from turngym.envs.web.server import SiteDatabase
from turngym.envs.web.sites.shop import ShopSite, reward
from turngym.envs.web.sites.shop.catalog import (
    generate_catalog,
    generate_instructions,
    load_product,
    load_products,
)
from turngym.envs.web.sites.shop.search import RESULTS_PER_PAGE, ShopIndex, shop_index
from turngym.envs.web.sites.shop.site import TYPE_MISMATCH, meets_goal, oracle_plan, search_query
from turngym.envs.web.sites.shop.vocabulary import PRODUCT_TYPES
from turngym.envs.web.tasks import Site, Step, Task

SITE = ShopSite("easy")
LINK = re.compile(r'<a href="(/product/\d+[^"]*)">([^<]*)</a>')


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("shop") / "shop.sqlite"
    SITE.build_database(path)
    return path


@pytest.fixture
def db(prepared: Path):
    database = SiteDatabase(prepared)
    yield database
    database.close()


@pytest.fixture
def client(db: SiteDatabase) -> Client:
    return Client(SITE.app(db.path))


def _links(html: str) -> list[tuple[str, str]]:
    """``(href, accessible name)`` of the product links of a results page."""
    return [(unescape(href), unescape(text)) for href, text in LINK.findall(html)]


def _sample(db: SiteDatabase, seed: int = 0) -> Task:
    conn = db.connect()
    try:
        return SITE.sample_task(np.random.default_rng(seed), conn)
    finally:
        conn.close()


def test_site_satisfies_the_protocol():
    site: Site = SITE
    assert site.name == "shop-v1"
    assert site.templates == ("buy_product",)


def test_difficulty_defaults_to_hard_and_is_validated():
    assert ShopSite().difficulty == "hard" and ShopSite().name == "shop-hard-v1"
    assert SITE.difficulty == "easy"
    with pytest.raises(ValueError, match=r"^difficulty must be one of \('hard', 'easy'\)"):
        ShopSite("medium")


def test_easy_is_the_shop_before_difficulties(db: SiteDatabase):
    """Pinned on the commit before difficulties: same catalog, instructions and draws."""
    products = generate_catalog()
    blob = json.dumps(
        [[astuple(p) for p in products], generate_instructions(products)], sort_keys=True
    )
    assert hashlib.sha256(blob.encode()).hexdigest() == (
        "2ed05c9c77b2d9860618f0e1284bab9ebb220a2909d9c8bb893e76d3890db3ed"
    )
    assert products[0].title == (
        "Corvane Nimbus Waterproof Non-Slip Cushioned Reflective Running Shoes"
    )
    assert _sample(db, 0).instruction == (
        "i am looking for bpa free, dishwasher safe and straw lid water bottle with "
        "color: white, capacity: 18 oz, and price lower than 30.00 dollars"
    )
    task = _sample(db, 7)
    assert task.instruction == (
        "i am looking for large capacity backpack with color: navy, capacity: 40 l, "
        "and price lower than 150.00 dollars"
    )
    assert dict(task.goal) == {
        "attributes": ["large capacity"],
        "options": {"capacity": "40 l", "color": "navy"},
        "price_upper": 150.0,
        "product_id": 738,
        "type": "backpack",
    }
    assert task.oracle[2] == Step.click(
        "link", "Aldermoor Pulse Lightweight Large Capacity Backpack - $98.07"
    )


def test_catalog_and_instruction_counts(prepared: Path):
    conn = sqlite3.connect(prepared)
    assert conn.execute("SELECT COUNT(*) FROM products").fetchone()[0] >= 1000
    assert conn.execute("SELECT COUNT(*) FROM instructions").fetchone()[0] >= 500
    assert 15 <= len(PRODUCT_TYPES) <= 25
    products = load_products(conn)
    assert len({p.title for p in products}) == len(products)  # link names stay unique
    assert {p.type for p in products} == {t.name for t in PRODUCT_TYPES}
    for p in products:
        assert 2 <= len(p.attributes) <= 4
        assert p.options and all(2 <= len(values) <= 5 for _, values in p.options)
        assert 500 <= p.price_cents <= 20000
        assert 3.0 <= p.rating <= 5.0
    assert load_product(conn, 10**6) is None
    assert products == generate_catalog()  # the database reads back as generated


def test_build_is_deterministic_and_fast(tmp_path: Path, prepared: Path):
    start = time.process_time()  # CPU time: other jobs on a shared machine do not count
    SITE.build_database(tmp_path / "again.sqlite")
    assert time.process_time() - start < 2.0
    dumps = [list(sqlite3.connect(p).iterdump()) for p in (prepared, tmp_path / "again.sqlite")]
    assert dumps[0] == dumps[1]
    assert prepared.read_bytes() == (tmp_path / "again.sqlite").read_bytes()


def test_every_instruction_states_its_goal_and_its_target_meets_it(prepared: Path):
    conn = sqlite3.connect(prepared)
    index = shop_index(conn)
    for pid, text, goal_json in conn.execute("SELECT product_id, text, goal FROM instructions"):
        goal = json.loads(goal_json)
        assert goal["product_id"] == pid
        assert meets_goal(goal, index.by_id[pid])
        assert goal["type"] in text and f"lower than {goal['price_upper']:.2f} dollars" in text
        assert all(a in text for a in goal["attributes"])
        assert all(v in text for v in goal["options"].values())


def test_sample_task_is_determined_by_the_rng(db: SiteDatabase):
    conn = db.connect()
    a = SITE.sample_task(np.random.default_rng(7), conn)
    b = SITE.sample_task(np.random.default_rng(7), conn, template="buy_product")
    assert a == b
    tasks = {SITE.sample_task(np.random.default_rng(s), conn).instruction for s in range(20)}
    assert len(tasks) > 15
    assert a.start_path == "/" and a.template == "buy_product"
    assert a.oracle[:2] == (
        Step.fill("searchbox", "Search", search_query(a.goal)),
        Step.click("button", "Search"),
    )
    with pytest.raises(ValueError, match="unknown template"):
        SITE.sample_task(np.random.default_rng(0), conn, template="reply_to_post")


def test_oracle_plans_page_to_a_product_meeting_the_goal(prepared: Path):
    conn = sqlite3.connect(prepared)
    index = shop_index(conn)
    for (goal_json,) in conn.execute("SELECT goal FROM instructions"):
        goal = json.loads(goal_json)
        ranked = index.search(search_query(goal))
        assert goal["product_id"] in {p.id for p in ranked}  # search finds the target
        plan = oracle_plan(index, goal)
        pages = sum(step.name == "Next >" for step in plan)
        link = next(s for s in plan if s.role == "link" and s.name != "Next >")
        on_page = ranked[pages * RESULTS_PER_PAGE : (pages + 1) * RESULTS_PER_PAGE]
        product = next(p for p in on_page if index.result_name(p) == link.name)
        assert meets_goal(goal, product)
        assert [s.name for s in plan if s.action == "select"] == [
            g.capitalize() for g, _ in product.options
        ]


def test_home_page_has_a_labelled_search_box(client: Client):
    html = client.get("/").get_data(as_text=True)
    assert '<label for="q">Search</label>' in html
    assert '<input type="search" id="q" name="q"' in html
    assert '<button type="submit">Search</button>' in html
    assert "<script" not in html and "http" not in html  # no external resources


def test_search_ranks_the_target_and_pages(client: Client, prepared: Path):
    conn = sqlite3.connect(prepared)
    index = shop_index(conn)
    goal = json.loads(conn.execute("SELECT goal FROM instructions WHERE id = 1").fetchone()[0])
    query = search_query(goal)
    html = client.get("/search?" + urlencode({"q": query})).get_data(as_text=True)
    links = _links(html)
    assert len(links) == RESULTS_PER_PAGE
    assert [name for _, name in links] == [index.result_name(p) for p in index.search(query)[:10]]
    target = index.by_id[goal["product_id"]]
    assert index.search(query).index(target) < 2 * RESULTS_PER_PAGE
    assert "Next &gt;</a>" in html and "&lt; Prev" not in html
    page2 = client.get("/search?" + urlencode({"q": query, "page": 2})).get_data(as_text=True)
    assert "&lt; Prev</a>" in page2
    names = [name for _, name in _links(page2)]
    assert len(set(names)) == len(names)
    assert not set(names) & {name for _, name in links}
    # A page past the end shows the last page; an empty query goes home.
    last = client.get("/search?" + urlencode({"q": query, "page": 9999})).get_data(as_text=True)
    assert "Next &gt;" not in last and _links(last)
    assert client.get("/search?q=").status_code == 303
    assert "No products match" in client.get("/search?q=zzzqqq").get_data(as_text=True)


def test_search_escapes_the_query(client: Client):
    attack = '<script>alert("x")</script>"><b>'
    html = client.get("/search?" + urlencode({"q": attack})).get_data(as_text=True)
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html


def test_product_page_shows_options_and_buttons(client: Client, prepared: Path):
    product = load_product(sqlite3.connect(prepared), 1)
    assert product is not None
    html = client.get("/product/1?q=shoes&page=2").get_data(as_text=True)
    assert f"<h1>{product.title}</h1>" in html and product.price_text in html
    assert all(a in html for a in product.attributes)
    for group, values in product.options:
        assert f'<label for="opt-{group}">{group.capitalize()}</label>' in html
        assert f'<select id="opt-{group}" name="{group}">' in html
        assert all(f"<option>{v}</option>" in html for v in values)
    assert '<button type="submit">Buy Now</button>' in html
    assert ">Add to cart</button>" in html
    assert '<a href="/search?q=shoes&amp;page=2">Back to search</a>' in html
    missing = client.get("/product/99999")
    assert missing.status_code == 404 and "There is no product 99999." in missing.text
    assert missing.mimetype == "text/html"


def test_buy_now_writes_an_order_and_redirects(client: Client, db: SiteDatabase):
    task = _sample(db)
    conn = db.connect()
    assert not SITE.finished(task, conn) and SITE.score(task, conn, None) == 0.0
    pid = task.goal["product_id"]
    response = client.post(f"/buy/{pid}", data=dict(task.goal["options"]))
    assert response.status_code == 303 and response.headers["Location"].endswith("/order/1")
    row = conn.execute("SELECT order_no, product_id, options, price_cents FROM orders").fetchone()
    assert row[0] == 1 and row[1] == pid and json.loads(row[2]) == task.goal["options"]
    assert SITE.finished(task, conn)
    assert SITE.score(task, conn, None) == 1.0
    page = client.get("/order/1").get_data(as_text=True)
    assert "Order 1 placed" in page
    assert client.get("/order/2").status_code == 404


def test_state_changes_need_post(client: Client, db: SiteDatabase):
    for path in ("/buy/1", "/cart/add/1", "/cart/remove/1"):
        response = client.get(path)
        assert response.status_code == 405 and response.headers["Allow"] == "POST"
        assert "Method Not Allowed" in response.get_data(as_text=True)
    assert db.connect().execute("SELECT COUNT(*) FROM orders").fetchone()[0] == 0


def test_cart_and_checkout(client: Client, db: SiteDatabase):
    conn = db.connect()
    product = load_product(conn, 1)
    assert product is not None
    (group, values), *_ = product.options
    response = client.post("/cart/add/1", data={group: values[0]})
    assert response.status_code == 303 and response.headers["Location"].endswith("/cart")
    client.post("/cart/add/2", data={group: "not offered"})
    client.post("/cart/add/3", data={})
    cart = client.get("/cart").get_data(as_text=True)
    assert "(3 items)" in cart and "Remove item 3</button>" in cart
    assert f"{group}: {values[0]}" in cart
    (item,) = conn.execute("SELECT id FROM cart WHERE product_id = 3").fetchone()
    assert client.post(f"/cart/remove/{item}").status_code == 303
    checkout = client.get("/checkout").get_data(as_text=True)
    assert "Place order</button>" in checkout
    response = client.post("/checkout")
    assert response.status_code == 303 and response.headers["Location"].endswith("/order/1")
    rows = conn.execute("SELECT order_no, product_id, options FROM orders ORDER BY id").fetchall()
    assert [(r[0], r[1], json.loads(r[2])) for r in rows] == [
        (1, 1, {group: values[0]}),
        (1, 2, {}),  # a value the product does not offer is not chosen
    ]
    assert conn.execute("SELECT COUNT(*) FROM cart").fetchone()[0] == 0
    # An empty cart cannot be checked out.
    assert client.post("/checkout").headers["Location"].endswith("/cart")
    assert conn.execute("SELECT COUNT(DISTINCT order_no) FROM orders").fetchone()[0] == 1


def _goal(product, n_attributes=2):
    return {
        "type": product.type,
        "attributes": list(product.attributes[:n_attributes]),
        "options": {g: values[0] for g, values in product.options},
        "price_upper": 1000.0,
    }


def test_reward_formula():
    products = generate_catalog()
    shoe = products[0]
    goal = _goal(shoe)
    chosen = dict(goal["options"])
    total = len(goal["attributes"]) + len(goal["options"]) + 1  # 2 + 2 + 1
    assert reward(goal, shoe, chosen, shoe.price_cents) == 1.0
    wrong = {**chosen, "color": shoe.option_values("color")[1]}
    assert reward(goal, shoe, wrong, shoe.price_cents) == pytest.approx((total - 1) / total)
    assert reward(goal, shoe, {}, shoe.price_cents) == pytest.approx(3 / total)
    too_dear = {**goal, "price_upper": shoe.price_cents / 100 - 0.01}
    assert reward(too_dear, shoe, chosen, shoe.price_cents) == pytest.approx((total - 1) / total)
    at_limit = {**goal, "price_upper": shoe.price_cents / 100}
    assert reward(at_limit, shoe, chosen, shoe.price_cents) == 1.0
    missing = next(a for a in PRODUCT_TYPES[0].attributes if a not in shoe.attributes)
    other_attr = {**goal, "attributes": [shoe.attributes[0], missing]}
    assert reward(other_attr, shoe, chosen, shoe.price_cents) == pytest.approx((total - 1) / total)
    mug = next(p for p in products if p.type != shoe.type)
    small = reward(goal, mug, {}, mug.price_cents)
    assert 0 < small <= TYPE_MISMATCH
    assert small == pytest.approx(TYPE_MISMATCH * 1 / total)  # only the price matched


def test_score_reads_the_first_order(db: SiteDatabase, client: Client):
    task = _sample(db, seed=3)
    conn = db.connect()
    pid, goal = task.goal["product_id"], task.goal
    wrong_type = next(p for p in load_products(conn) if p.type != goal["type"])
    # Checking out the target with a wrong-type product averages their rewards.
    client.post(f"/cart/add/{pid}", data=dict(goal["options"]))
    client.post(f"/cart/add/{wrong_type.id}")
    client.post("/checkout")
    expected = (1.0 + reward(goal, wrong_type, {}, wrong_type.price_cents)) / 2
    assert SITE.score(task, conn, None) == pytest.approx(expected)
    client.post(f"/buy/{pid}", data=dict(goal["options"]))  # a later order does not count
    assert SITE.score(task, conn, "ignored answer") == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(12))
def test_oracle_choices_through_the_app(client: Client, db: SiteDatabase, seed: int):
    """Follow the plan with plain requests: search pages, the link, the options, Buy Now."""
    task = _sample(db, seed)
    plan = task.oracle
    query = plan[0].text
    page = 1 + sum(step.name == "Next >" for step in plan)
    html = client.get("/search?" + urlencode({"q": query, "page": page})).get_data(as_text=True)
    link = next(s for s in plan if s.role == "link" and s.name != "Next >")
    href = next(h for h, name in _links(html) if name == link.name)
    product_page = client.get(href).get_data(as_text=True)
    options = {}
    for step in plan:
        if step.action == "select":
            group = step.name.lower()
            assert f'<label for="opt-{group}">{step.name}</label>' in product_page
            options[group] = step.text
    pid = int(href.split("/")[2].split("?")[0])
    assert client.post(f"/buy/{pid}", data=options).status_code == 303
    assert SITE.score(task, db.connect(), None) == 1.0


def test_the_index_is_shared_and_ties_go_to_the_lower_id(prepared: Path):
    conn = sqlite3.connect(prepared)
    assert shop_index(conn) is shop_index(sqlite3.connect(prepared))
    index = ShopIndex(generate_catalog(1))
    ranked = index.search("shoes")
    assert [p.id for p in ranked] == sorted(p.id for p in ranked)


def test_a_copied_database_is_served_per_request(tmp_path: Path, prepared: Path):
    """The env restores the file between episodes: the app must not hold it open."""
    path = tmp_path / "copy.sqlite"
    shutil.copyfile(prepared, path)
    client = Client(SITE.app(path))
    client.post("/buy/1")
    shutil.copyfile(prepared, path)
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM orders").fetchone()[0] == 0
    assert "(0 items)" in client.get("/").get_data(as_text=True)
    client.post("/buy/1")
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM orders").fetchone()[0] == 1


def test_random_clicks_never_break_a_page(client: Client, db: SiteDatabase):
    """Follow random links and submit random forms: every page answers below 500."""
    rng = np.random.default_rng(0)
    html = client.get("/").get_data(as_text=True)
    posts = 0
    for _ in range(150):
        hrefs = [unescape(h) for h in re.findall(r'<a href="([^"]+)"', html)]
        actions = re.findall(r'(?:action|formaction)="(/(?:buy|cart|checkout)[^"]*)"', html)
        choices = [("get", "/search?q=" + str(rng.choice(["shoes", "tea", "<x>", "lamp"])))]
        choices += [("get", h) for h in hrefs] + [("post", a) for a in actions]
        method, url = choices[int(rng.integers(len(choices)))]
        if method == "post":
            posts += 1
            form = {g: v for g, v in re.findall(r'name="(\w+)">.*?<option>([^<]*)<', html)}
            response = client.post(url, data=form, follow_redirects=True)
        else:
            response = client.get(url, follow_redirects=True)
        assert response.status_code < 500, url
        html = response.get_data(as_text=True)
    assert posts > 0

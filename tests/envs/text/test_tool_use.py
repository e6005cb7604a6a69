from __future__ import annotations

import json
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401
from turngym.agents.experts.tool_use import ToolUseExpert
from turngym.core import Invalid
from turngym.envs.text.tool_use import (
    TOOLS,
    ToolCall,
    ToolUseEnv,
    parse_tool_call,
    rule_based_user,
)
from turngym.envs.text.tool_use_db import Store, StoreRows, ToolError, build_rows, sample_goal
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env


def test_conformance_variant():
    check_text_env(
        "turngym/ToolUse-v0",
        n_fuzz=1000,
        reset_episodes=10,
        make_kwargs={"kinds": ["return"], "max_turns": 12, "invalid_action_penalty": -0.1},
    )


def test_expert_200_seeds():
    result = evaluate("turngym/ToolUse-v0", ToolUseExpert, episodes=200, seed=0)
    assert result.success_rate >= 0.95
    assert sum(e.invalid for e in result.episodes) == 0
    assert result.mean_return == result.success_rate
    assert max(e.steps for e in result.episodes) <= 12


def test_seeds_cover_every_request_kind_and_what_the_customer_knows():
    env = ToolUseEnv()
    kinds, emails, ids = Counter(), Counter(), Counter()
    for seed in range(90):
        env.reset(seed=seed)
        kinds[env.goal["kind"]] += 1
        emails[env.goal["knows_email"]] += 1
        ids[env.goal["knows_order_id"]] += 1
    assert set(kinds) == {"cancel", "modify", "return"} and min(kinds.values()) >= 15
    assert len(emails) == 2 and len(ids) == 2


# -- the parser ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ('get_order(order_id="#W1234")', ToolCall("get_order", {"order_id": "#W1234"})),
        ("  get_order(order_id='#W1234')\n", ToolCall("get_order", {"order_id": "#W1234"})),
        ('get_order("#W1234")', ToolCall("get_order", {"order_id": "#W1234"})),
        ('GET_ORDER(order_id="#W1234")', ToolCall("get_order", {"order_id": "#W1234"})),
        ('```python\nget_order(order_id="#W1")\n```', ToolCall("get_order", {"order_id": "#W1"})),
        ('`get_order(order_id="#W1")`;', ToolCall("get_order", {"order_id": "#W1"})),
        ("transfer_to_human()", ToolCall("transfer_to_human", {})),
        (
            'return_items(order_id="#W1", item_ids=("i1", "i2"))',
            ToolCall("return_items", {"order_id": "#W1", "item_ids": ["i1", "i2"]}),
        ),
        (
            'find_user_by_name("Ava Kim", zip="12345")',
            ToolCall("find_user_by_name", {"name": "Ava Kim", "zip": "12345"}),
        ),
        (
            'respond(message="Hi! What\'s (your) email?")',
            ToolCall("respond", {"message": "Hi! What's (your) email?"}),
        ),
        (
            'respond(message="Thanks!\nWhich order?")',
            ToolCall("respond", {"message": "Thanks!\nWhich order?"}),
        ),
        (
            'get_order(\n    order_id="#W1",\n)',
            ToolCall("get_order", {"order_id": "#W1"}),
        ),
    ],
)
def test_parser_accepts(action, expected):
    assert parse_tool_call(action) == expected


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ('__import__("os")', "unknown tool '__import__'"),
        ('__import__("os").system("ls")', "not a tool call"),
        ('os.system("ls")', "not a tool call"),
        ('get_order(order_id=__import__("os").getcwd())', "must be a literal value"),
        ('get_order(order_id=open("/etc/passwd").read())', "must be a literal value"),
        ('get_order(order_id="#W" + "1234")', "must be a literal value"),
        ("get_order(order_id=(lambda: '#W1')())", "must be a literal value"),
        ("(lambda: 1)()", "not a tool call"),
        ('exec("print(1)")', "unknown tool 'exec'"),
        ("import os", "not a tool call"),
        ('get_order(order_id="#W1"); get_user(user_id="u1")', "not a tool call"),
        ('[get_order(order_id="#W1")]', "not a tool call"),
        ('get_order(order_id="#W1")\nget_user(user_id="u1")', "not a tool call"),
        ("Hello, how can I help you today?", "not a tool call"),
        ("get_order", "not a tool call"),
        ("", "the action is empty"),
        ("   \n", "the action is empty"),
        ('get_order(id="#W1")', "get_order() has no argument 'id' (its arguments: order_id)"),
        ('cancel_order(order_id="#W1")', "cancel_order() is missing argument 'reason'"),
        ("get_order(order_id=1234)", "argument 'order_id' must be a string, got int"),
        ('return_items(order_id="#W1", item_ids="i1")', "must be a list of strings"),
        ('return_items(order_id="#W1", item_ids=[1, 2])', "must be a list of strings"),
        ('get_order("#W1", "#W2")', "get_order() takes 1 argument(s), got 2"),
        ('get_order("#W1", order_id="#W2")', "got argument 'order_id' twice"),
        ('get_order(**{"order_id": "#W1"})', "**kwargs is not allowed"),
        ('get_order(*["#W1"])', "*args is not allowed"),
        ('transfer_to_human(reason="x")', "has no argument 'reason' (its arguments: none)"),
        ('respond(message="   ")', "the message is empty"),
        ('get_order(order_id="' + "9" * 9000 + '")', "at most 8000 characters"),
        ("get_order(order_id=" + "[" * 500 + "]" * 500 + ")", "order_id"),
    ],
)
def test_parser_rejects(action, reason):
    parsed = parse_tool_call(action)
    assert isinstance(parsed, Invalid), parsed
    assert reason in parsed.reason


def test_every_tool_is_documented_in_the_first_observation():
    obs, info = gym.make("turngym/ToolUse-v0").reset(seed=0)
    assert info["tools"] == [
        f"{t}(" + ", ".join(f"{a}: {k}" for a, k in TOOLS[t]) + ")" for t in TOOLS
    ]
    for signature in info["tools"]:
        assert signature in obs and signature in info["instruction"]
    assert obs.splitlines()[-1].startswith("Customer: Hi! ")


def test_injection_attempt_is_an_invalid_step_and_changes_nothing():
    env = ToolUseEnv(invalid_action_penalty=-0.5)
    env.reset(seed=0)
    before = env.store.snapshot()
    obs, reward, terminated, truncated, info = env.step('__import__("os").system("touch x")')
    assert info["invalid_action"] and reward == -0.5 and not (terminated or truncated)
    assert "write exactly one call" in obs
    assert env.store.snapshot() == before


# -- the store's business rules -------------------------------------------------------


def small_store() -> Store:
    rows = StoreRows(
        users=[("u1", "Ava Kim", "ava.kim@example.com", "12345")],
        products=[("p1", "T-Shirt"), ("p2", "Mug")],
        items=[
            ["i10", "p1", "color: red, size: M", 1999, 2],
            ["i11", "p1", "color: blue, size: M", 1999, 0],
            ["i12", "p1", "color: blue, size: L", 2099, 3],
            ["i20", "p2", "color: white", 999, 5],
        ],
        orders=[
            ["#W1001", "u1", "pending", "paypal", None],
            ["#W1002", "u1", "delivered", "credit card", None],
            ["#W1003", "u1", "processed", "gift card", None],
        ],
        order_items=[
            ("#W1001", 0, "i10", 0),
            ("#W1001", 1, "i20", 0),
            ("#W1002", 0, "i12", 0),
            ("#W1002", 1, "i20", 0),
            ("#W1003", 0, "i10", 0),
        ],
    )
    return Store(rows)


def stock(store: Store) -> dict[str, int]:
    return {r[0]: r[4] for r in store.snapshot()["items"]}


def test_lookups():
    s = small_store()
    assert s.find_user(" Ava.Kim@Example.com ") == "u1"
    assert s.find_user_by_name("ava  kim", "12345") == "u1"
    with pytest.raises(ToolError, match="no user named 'Ava Kim' with zip code '99999'"):
        s.find_user_by_name("Ava Kim", "99999")
    with pytest.raises(ToolError, match="no user with email"):
        s.find_user("nobody@example.com")
    assert json.loads(s.get_user("U1"))["orders"] == ["#W1001", "#W1002", "#W1003"]
    order = json.loads(s.get_order("w1001"))  # '#' and case are optional
    assert order["status"] == "pending" and [i["item_id"] for i in order["items"]] == ["i10", "i20"]
    assert order["items"][0] == {
        "item_id": "i10",
        "product_id": "p1",
        "product": "T-Shirt",
        "options": "color: red, size: M",
        "price": 19.99,
    }
    listed = json.loads(s.list_orders("u1"))
    assert listed[2] == {
        "order_id": "#W1003",
        "status": "processed",
        "items": ["T-Shirt (color: red, size: M)"],
    }
    product = json.loads(s.get_product("p1"))
    assert [(v["item_id"], v["stock"]) for v in product["variants"]] == [
        ("i10", 2),
        ("i11", 0),
        ("i12", 3),
    ]
    for bad, call in [
        ("order '#W9'", lambda: s.get_order("#W9")),
        ("user 'u7'", lambda: s.list_orders("u7")),
    ]:
        with pytest.raises(ToolError, match=f"{bad} not found"):
            call()


def test_cancel_rules():
    s = small_store()
    with pytest.raises(
        ToolError, match="order #W1002 is delivered; only pending orders can be cancelled"
    ):
        s.cancel_order("#W1002", "no longer needed")
    with pytest.raises(
        ToolError, match="the reason must be 'no longer needed' or 'ordered by mistake'"
    ):
        s.cancel_order("#W1001", "too expensive")
    s.cancel_order("#W1001", "Ordered by  mistake")
    assert s.snapshot()["orders"][0] == (
        "#W1001",
        "u1",
        "cancelled",
        "paypal",
        "ordered by mistake",
    )
    assert stock(s) == {"i10": 3, "i11": 0, "i12": 3, "i20": 6}  # items back in stock
    with pytest.raises(ToolError, match="is cancelled; only pending"):
        s.cancel_order("#W1001", "no longer needed")


def test_modify_rules():
    s = small_store()
    with pytest.raises(
        ToolError, match="order #W1003 is processed; only pending orders can be modified"
    ):
        s.modify_order_items("#W1003", "i10", "i12")
    with pytest.raises(ToolError, match="item 'i12' is not in order #W1001"):
        s.modify_order_items("#W1001", "i12", "i10")
    with pytest.raises(ToolError, match="i11 is out of stock"):
        s.modify_order_items("#W1001", "i10", "i11")
    with pytest.raises(ToolError, match="not a variant of the same product"):
        s.modify_order_items("#W1001", "i10", "i20")
    with pytest.raises(ToolError, match="the same as the old one"):
        s.modify_order_items("#W1001", "i10", "i10")
    with pytest.raises(ToolError, match="item 'i99' not found"):
        s.modify_order_items("#W1001", "i10", "i99")
    assert stock(s) == {"i10": 2, "i11": 0, "i12": 3, "i20": 5}  # failures change nothing
    s.modify_order_items("#W1001", "i10", "i12")
    assert s.snapshot()["order_items"][:2] == [("#W1001", 0, "i12", 0), ("#W1001", 1, "i20", 0)]
    assert stock(s) == {"i10": 3, "i11": 0, "i12": 2, "i20": 5}
    assert s.snapshot()["orders"][0][2] == "pending"


def test_return_rules():
    s = small_store()
    with pytest.raises(
        ToolError, match="order #W1001 is pending; only delivered orders can be returned"
    ):
        s.return_items("#W1001", ["i10"])
    with pytest.raises(ToolError, match=r"items \['i10'\] are not in order #W1002"):
        s.return_items("#W1002", ["i10"])
    with pytest.raises(ToolError, match="lists an item twice"):
        s.return_items("#W1002", ["i12", "i12"])
    with pytest.raises(ToolError, match="item_ids is empty"):
        s.return_items("#W1002", [])
    s.return_items("#W1002", ["i20"])
    snap = s.snapshot()
    assert snap["orders"][1][2] == "return requested"
    assert snap["order_items"][2:4] == [("#W1002", 0, "i12", 0), ("#W1002", 1, "i20", 1)]
    with pytest.raises(ToolError, match="is return requested; only delivered"):
        s.return_items("#W1002", ["i12"])  # one return request per order


def test_tool_errors_are_valid_steps_with_an_error_result():
    env = ToolUseEnv()
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step('get_order(order_id="#W0000")')
    assert not info["invalid_action"] and (reward, terminated, truncated) == (0.0, False, False)
    assert obs == "get_order -> Error: order '#W0000' not found"


# -- resets, seeds and the reward ------------------------------------------------------


def test_same_seed_same_store_and_goal_different_seeds_differ():
    a, b = ToolUseEnv(), ToolUseEnv()
    obs_a, _ = a.reset(seed=5)
    obs_b, _ = b.reset(seed=5)
    assert obs_a == obs_b and a.goal == b.goal and a.store.snapshot() == b.store.snapshot()
    snapshots = set()
    for seed in range(10):
        a.reset(seed=seed)
        snapshots.add(repr(a.store.snapshot()))
    assert len(snapshots) == 10


def test_store_is_rebuilt_on_every_reset():
    env = ToolUseEnv()
    env.reset(seed=0, options={"kind": "cancel"})
    initial = env.store.snapshot()
    oid = env.goal["order_id"]
    env.step(f'cancel_order(order_id="{oid}", reason="{env.goal["reason"]}")')
    assert env.store.snapshot() != initial
    env.reset(seed=0, options={"kind": "cancel"})
    assert env.store.snapshot() == initial
    assert json.loads(env.store.get_order(oid))["status"] == "pending"


def test_build_rows_sizes():
    rows = build_rows(np.random.default_rng(3))
    assert len(rows.users) == 12 and len(rows.products) == 8
    assert 24 <= len(rows.items) <= 32 and 24 <= len(rows.orders) <= 48
    assert len({u[2] for u in rows.users}) == 12 and len({o[0] for o in rows.orders}) == len(
        rows.orders
    )


@pytest.mark.parametrize("kind", ["cancel", "modify", "return"])
def test_goal_is_feasible_and_consistent(kind):
    for seed in range(20):
        rng = np.random.default_rng(seed)
        rows = build_rows(rng, n_users=3, n_products=2)
        goal = sample_goal(rng, rows, kind)
        order = next(o for o in rows.orders if o[0] == goal["order_id"])
        assert order[1] == goal["user_id"]
        assert order[2] == ("delivered" if kind == "return" else "pending")
        assert goal["knows_order_id"] or goal["order_hint"].startswith("the order with the ")


def play(env: ToolUseEnv, actions: list[str]):
    out = None
    for a in actions:
        out = env.step(a)
        assert not out[4]["invalid_action"], out
    return out


def test_cancelling_the_wrong_order_gives_zero():
    env = ToolUseEnv()
    env.reset(seed=1, options={"kind": "cancel"})
    goal = env.goal
    wrong = next(
        o["order_id"]
        for u in range(1, 13)
        for o in json.loads(env.store.list_orders(f"u{u}"))
        if o["status"] == "pending" and o["order_id"] != goal["order_id"]
    )
    obs, reward, terminated, truncated, info = play(
        env,
        [
            f'cancel_order(order_id="{wrong}", reason="{goal["reason"]}")',
            'respond(message="Your order has been cancelled. Anything else?")',
        ],
    )
    assert "Goodbye" in obs and terminated and not truncated
    assert reward == 0.0 and info["success"] is False
    assert info["user_goal"] == goal["instruction"]


def test_right_action_plus_an_extra_write_gives_zero_and_right_action_alone_one():
    env = ToolUseEnv()
    env.reset(seed=2, options={"kind": "return"})
    g = env.goal
    right = f"return_items(order_id={g['order_id']!r}, item_ids={g['item_ids']!r})"
    *_, reward, terminated, _, info = play(env, [right, "transfer_to_human()"])
    assert (reward, terminated, info["success"]) == (1.0, True, True)
    env.reset(seed=2, options={"kind": "return"})
    pending = next(o for o in env.store.snapshot()["orders"] if o[2] == "pending")[0]
    cancel_other = f'cancel_order(order_id="{pending}", reason="no longer needed")'
    *_, reward, terminated, _, info = play(env, [right, cancel_other, "transfer_to_human()"])
    assert (reward, terminated, info["success"]) == (0.0, True, False)


def test_partial_return_is_not_enough():
    for seed in range(50):
        env = ToolUseEnv(kinds=["return"])
        env.reset(seed=seed)
        g = env.goal
        items = [i["item_id"] for i in json.loads(env.store.get_order(g["order_id"]))["items"]]
        if len(items) > len(g["item_ids"]):
            break
    play(env, [f"return_items(order_id={g['order_id']!r}, item_ids={items!r})"])
    assert not env.solved()


def test_transfer_without_acting_ends_with_zero():
    env = ToolUseEnv()
    env.reset(seed=3)
    obs, reward, terminated, truncated, info = env.step("transfer_to_human()")
    assert (reward, terminated, truncated, info["success"]) == (0.0, True, False, False)
    assert "human" in obs
    *_, info = env.step("transfer_to_human()")
    assert info["invalid_action"]  # the episode is over


def test_out_of_turns_truncates_with_zero_even_when_solved():
    env = ToolUseEnv(max_turns=3, kinds=["cancel"])
    env.reset(seed=4)
    g = env.goal
    results = [
        env.step(f"cancel_order(order_id={g['order_id']!r}, reason={g['reason']!r})"),
        env.step("nonsense"),
        env.step('respond(message="Hello?")'),
    ]
    assert [r[3] for r in results] == [False, False, True]
    obs, reward, terminated, _, info = results[-1]
    assert reward == 0.0 and not terminated and info["success"] is False
    assert "Out of turns (3)" in obs and env.solved()


# -- the simulated customer -------------------------------------------------------------


def modify_goal(**over):
    goal = {
        "kind": "modify",
        "name": "Ava Kim",
        "email": "ava.kim@example.com",
        "zip": "12345",
        "order_id": "#W1001",
        "product": "T-Shirt",
        "old_options": "color: red, size: M",
        "new_options": "color: blue, size: L",
        "knows_email": True,
        "knows_order_id": True,
        "order_hint": "the order with the T-Shirt",
    }
    return goal | over


REQUEST = (
    "I'd like to change the T-Shirt in an order that hasn't shipped yet: "
    "from color: red, size: M to color: blue, size: L."
)
NAME_ZIP = "my name is Ava Kim and my zip code is 12345."
NO_ID = "I don't have the order number, but it's the order with the T-Shirt."


@pytest.mark.parametrize(
    ("goal", "message", "reply"),
    [
        (modify_goal(), "", f"Hi! {REQUEST}"),
        (modify_goal(), "What is your email?", "My email is ava.kim@example.com."),
        (
            modify_goal(knows_email=False),
            "Please verify your identity.",
            f"I don't remember which email I used, but {NAME_ZIP}",
        ),
        (modify_goal(), "Your full name and zip code, please.", f"M{NAME_ZIP[1:]}"),
        (modify_goal(), "Which order is it?", "It is order #W1001."),
        (modify_goal(knows_order_id=False), "What's the order number?", NO_ID),
        (
            modify_goal(),
            "Which item and which variant?",
            "I want the T-Shirt (color: red, size: M) changed to the one with "
            "color: blue, size: L.",
        ),
        (modify_goal(), "Shall I swap it in order #W1001?", "Yes, please go ahead."),
        (
            modify_goal(knows_order_id=False),
            "Do you confirm the change to order W2002?",
            f"No, that's not the order I mean. {NO_ID}",
        ),
        (
            modify_goal(),
            "It's done! Anything else?",
            f"Hmm, it doesn't look like that has been done yet. {REQUEST}",
        ),
        (modify_goal(), "Nice weather today.", f"Could you help me? {REQUEST}"),
    ],
)
def test_rule_based_user_replies(goal, message, reply):
    assert rule_based_user(goal, message) == reply


def test_rule_based_user_says_goodbye_once_helped():
    reply = rule_based_user(modify_goal(), "It has been updated. Anything else?", helped=True)
    assert reply == "That's all I needed, thank you! Goodbye."
    ret = {"kind": "return", "items": ["Mug (color: white)", "Hat (size: M)"], "reason": None}
    assert rule_based_user(modify_goal() | ret, "Which items?") == (
        "I want to return Mug (color: white) and Hat (size: M)."
    )


def test_user_hook_replaces_the_customer():
    calls: list[tuple[dict, str]] = []

    def stub(goal: dict, message: str) -> str:
        calls.append((goal, message))
        return "Bye now." if "done" in message else f"echo: {message or 'opening'}"

    env = gym.make("turngym/ToolUse-v0", user=stub)
    obs, _ = env.reset(seed=0)
    assert obs.endswith("Customer: echo: opening")
    assert calls[0][1] == "" and calls[0][0]["instruction"].startswith("You are ")
    obs, reward, terminated, *_ = env.step('respond(message="hi")')
    assert obs == "Customer: echo: hi" and not terminated
    obs, reward, terminated, _, info = env.step('respond(message="all done")')
    assert terminated and obs == "Customer: Bye now.\nThe conversation is over."
    assert reward == 0.0 and info["success"] is False
    calls[0][0]["order_id"] = "tampered"  # the hook gets a copy
    assert env.unwrapped.goal["order_id"] != "tampered"


def test_render():
    env = gym.make("turngym/ToolUse-v0", render_mode="ansi")
    env.reset(seed=0)
    env.step('respond(message="Your email, please?")')
    text = env.render()
    assert text.splitlines()[0].startswith(
        "ToolUse: Daniel Martin (u9) wants to cancel order #W9464"
    )
    assert "Customer: My email is daniel.martin25@example.com." in text


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_turns": 0}, "max_turns must be an int >= 1"),
        ({"max_turns": "30"}, "max_turns must be an int >= 1"),
        ({"user": "alice"}, "user must be None or a callable"),
        ({"n_users": 1}, r"n_users must be an int in \[2, 20\]"),
        ({"n_users": 21}, r"n_users must be an int in \[2, 20\]"),
        ({"n_products": 13}, r"n_products must be an int in \[2, 12\]"),
        ({"kinds": []}, "kinds must be a non-empty list drawn from"),
        ({"kinds": "cancel"}, "kinds must be a non-empty list drawn from"),
        ({"kinds": ["exchange"]}, "kinds must be a non-empty list drawn from"),
        ({"max_invalid_actions": 0}, "max_invalid_actions must be a positive int"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make("turngym/ToolUse-v0", **kwargs)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kind": "exchange"}, "reset option kind must be one of"),
        ({"goal": 1}, "unknown reset options"),
    ],
)
def test_bad_reset_options(options, message):
    with pytest.raises(ValueError, match=message):
        ToolUseEnv().reset(seed=0, options=options)


def test_small_store_kwargs():
    env = ToolUseEnv(n_users=2, n_products=2, kinds=["modify"])
    for seed in range(30):
        env.reset(seed=seed)
        assert env.goal["kind"] == "modify"
        assert ToolUseExpert(env).plan()  # the expert can plan every goal
    result = evaluate(
        "turngym/ToolUse-v0",
        ToolUseExpert,
        episodes=30,
        env_kwargs={"n_users": 2, "n_products": 2, "kinds": ["modify", "return"]},
    )
    assert result.success_rate == 1.0


def test_close_frees_the_store():
    env = ToolUseEnv()
    env.reset(seed=0)
    env.close()
    assert env.store is None
    env.reset(seed=0)  # a closed env can start again
    assert env.store is not None

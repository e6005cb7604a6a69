"""The Calculator app through ``DesktopEnv``: arithmetic, errors, memory, keyboard; its checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests import system_deps
from turngym.agents.experts.gui.screen import Screen, key, type_text
from turngym.envs.gui.env import DesktopEnv
from turngym.envs.gui.tasks import load_task

TEMPLATES = ("calc-add", "calc-expression", "calc-divide")


@pytest.fixture(scope="module")
def env():
    made = DesktopEnv("calc-add", screenshot=False)
    yield made
    made.close()


EMPTY_START = 2
"""A seed of calc-add whose calculator starts with an empty history and a display of 0."""


def _start(env: DesktopEnv) -> None:
    env.reset(seed=EMPTY_START)
    assert env.app_state["calculator"] == {"display": "0", "memory": "0", "history": []}


def _do(env: DesktopEnv, *actions: str) -> dict:
    for action in actions:
        _, _, terminated, _, info = env.step(action)
        assert not info["invalid_action"] and not terminated, (action, info)
    return dict(env.app_state["calculator"])


def _click(env: DesktopEnv, *names: str) -> dict:
    state: dict = {}
    for name in names:
        state = _do(env, Screen(env.widgets).click("button", name))
    return state


@pytest.mark.x11
@system_deps.x11()
def test_arithmetic_by_keyboard_and_buttons(env):
    _start(env)
    # The pointer is where reset left it: typing needs no click first.
    state = _do(env, type_text("2+3*4"), key("Return"))
    assert state["display"] == "20"  # left to right, as a desk calculator
    assert state["history"] == ["2 + 3 × 4 = 20"]
    state = _do(env, type_text("9+-2="))  # a second operator replaces the first
    assert state["history"][-1] == "9 - 2 = 7"
    state = _do(env, type_text("1.2.5"), key("BackSpace"))
    assert state["display"] == "1.2"  # the second "." is ignored
    state = _click(env, "±", "×", "3", "=")
    assert state["history"][-1] == "-1.2 × 3 = -3.6"
    state = _do(env, type_text("2/3="))
    assert state["display"] == "0.6666666666666667"  # 16 significant digits, half-even
    state = _do(env, type_text("12345678901234567"))
    assert state["display"] == "1234567890123456"  # the display holds 16 digits
    assert Screen(env.widgets).get("label", "Display")["value"] == "1234567890123456"


@pytest.mark.x11
@system_deps.x11()
def test_errors_last_until_clear_and_write_no_history(env):
    _start(env)
    state = _do(env, type_text("7/0="))
    assert state["display"] == "Error" and state["history"] == []
    state = _click(env, "5", "+", "MR", "=")
    assert state["display"] == "Error"  # every key but C is ignored
    state = _do(env, key("Escape"))
    assert state["display"] == "0"
    state = _do(env, type_text("9999999999999999+1="))
    assert state["display"] == "Error" and state["history"] == []  # overflow
    state = _click(env, "C", "4", "=")
    assert state == {"display": "4", "memory": "0", "history": []}  # nothing to compute


@pytest.mark.x11
@system_deps.x11()
def test_memory_and_reset_restores_the_start(env):
    _start(env)
    first = [dict(w) for w in env.widgets]
    _do(env, type_text("12"))
    state = _click(env, "M+", "M+")
    assert state["memory"] == "24"
    state = _do(env, type_text("5"))
    assert state["display"] == "5"  # after M+, a digit starts a new number
    state = _click(env, "+", "MR", "=", "MC")
    assert state == {"display": "29", "memory": "0", "history": ["5 + 24 = 29"]}
    _click(env, "M+")
    _do(env, Screen(env.widgets).click("listitem", "5 + 24 = 29"))  # the list takes the focus
    state = _do(env, type_text("6"), key("alt+slash"), type_text("2="))
    assert state["display"] == "62"  # alt+/ is a chord, not a ÷ typed
    assert _do(env, type_text("/0="))["display"] == "Error"
    env.reset(seed=EMPTY_START)
    assert env.app_state["calculator"] == {"display": "0", "memory": "0", "history": []}
    assert env.widgets == first
    env.reset(seed=1)  # a start with past calculations: the last result is shown
    start = env.app_state["calculator"]
    assert start["display"] == "-55" and len(start["history"]) == 3
    assert [w["name"] for w in env.widgets if w["role"] == "listitem"] == start["history"]
    assert _do(env, type_text("3"))["display"] == "3"  # a digit starts a new number


@pytest.mark.x11
@system_deps.x11()
def test_the_answer_alone_does_not_solve(env):
    env.reset(seed=EMPTY_START)
    _do(env, type_text(env.params["result"]))
    assert env.app_state["calculator"]["display"] == env.params["result"]


@pytest.mark.parametrize("name", TEMPLATES)
def test_check_rejects_near_misses(name):
    task = load_task(name)
    for seed in range(20):
        params = task.sample(np.random.default_rng(seed))
        result, line = params["result"], f"{params['expression']} = {params['result']}"
        history = list(params["history"])

        def passes(display: str, lines: list[str], params: dict = params) -> bool:
            state = {"calculator": {"display": display, "memory": "0", "history": lines}}
            return task.check(params, state, Path("."))

        assert not passes(params["display"], history)  # the start is not done
        assert passes(result, [*history, line])
        assert not passes(result, history)  # the answer typed, not computed
        assert not passes(f"{result}1", [*history, line])  # a digit typed after
        assert not passes("Error", [*history, line])
        wrong = str(int(float(result)) + 1)
        assert not passes(wrong, [*history, f"{params['expression']} = {wrong}"])
        # The same number, computed another way last.
        assert not passes(result, [*history, line, f"{result} + 0 = {result}"])
        if name == "calc-expression":
            ab = params["a"] * params["b"]
            split = [f"{params['a']} × {params['b']} = {ab}", f"{ab} - {params['c']} = {result}"]
            assert not passes(result, [*history, *split])  # = pressed in the middle

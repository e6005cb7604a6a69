"""The Settings app through DesktopEnv: validation, Reset, a complete load, strict checks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests import system_deps
from turngym.agents.experts.gui.screen import Screen, key, type_text
from turngym.envs.gui.apps import settings_file as fmt
from turngym.envs.gui.env import DesktopEnv
from turngym.envs.gui.tasks.settings import ChangeProfile

pytestmark = [pytest.mark.x11, system_deps.x11()]


@pytest.fixture(scope="module")
def env():
    env = DesktopEnv("settings-profile", screenshot=False, max_turns=60)
    yield env
    env.close()


def step(env, action):
    _, reward, terminated, truncated, info = env.step(action)
    assert not info["invalid_action"], (action, info.get("invalid_reason"))
    return reward, terminated or truncated


def click(env, role, name):
    return step(env, Screen(env.widgets).click(role, name))


def replace(env, role, name, text):
    click(env, role, name)
    step(env, key("ctrl+a"))
    step(env, key("ctrl+k"))
    return step(env, type_text(text))


def app(env):
    return env.app_state["settings"]


def test_invalid_fields_are_named_and_nothing_is_written(env):
    env.reset(seed=0)
    start = env.params["start"]
    replace(env, "entry", "Email", "ada@localhost")
    replace(env, "spinbox", "Font size", "40")
    click(env, "button", "Save")
    status = app(env)["status"]
    assert status.startswith("Not saved: Email needs a dot")
    assert "Font size must be a whole number from 8 to 32" in status
    assert app(env)["saved"] == start
    assert app(env)["form"]["font_size"] == "40"  # the typed value stays for fixing

    replace(env, "spinbox", "Font size", "abc")
    replace(env, "entry", "Email", "ada@@example.org")
    click(env, "button", "Save")
    assert app(env)["status"] == (
        'Not saved: Email needs exactly one "@"; Font size must be a whole number from 8 to 32.'
    )
    assert app(env)["saved"] == start

    replace(env, "spinbox", "Font size", " 9 ")
    replace(env, "entry", "Email", "  ada@example.org ")
    click(env, "button", "Save")
    assert app(env)["status"] == "Saved settings.json."
    assert app(env)["saved"] == {**start, "email": "ada@example.org", "font_size": 9}


def test_reset_shows_the_file_again(env):
    env.reset(seed=1)
    start = env.params["start"]
    replace(env, "entry", "Full name", "Someone Else")
    click(env, "radio", next(t for t in fmt.THEMES if t != start["theme"]))
    click(env, "button", "Reset")
    form = app(env)["form"]
    assert {**form, "font_size": int(form["font_size"])} == start
    assert app(env)["status"] == "Reset to the values in settings.json."


def test_load_undoes_every_edit_and_the_open_menu(env):
    _, first = env.reset(seed=2)
    replace(env, "entry", "Full name", "Junk")
    step(env, key("ctrl+slash"))  # select all: a selection must not survive the reset
    click(env, "checkbox", "Auto-save")
    replace(env, "spinbox", "Font size", "99")
    click(env, "menubutton", env.params["start"]["language"])
    assert Screen(env.widgets).find("menuitem") is not None  # posted, holding a grab
    _, again = env.reset(seed=2)
    assert again["widgets"] == first["widgets"]
    # No grab left behind: a click reaches the form.
    click(env, "checkbox", "Auto-save")
    assert app(env)["form"]["auto_save"] != env.params["start"]["auto_save"]


def test_check_wants_exactly_the_requested_changes(env):
    env.reset(seed=3)
    new = env.params["changes"]
    replace(env, "entry", "Full name", new["full_name"])
    replace(env, "entry", "Email", new["email"].replace("@", "_@"))  # valid, but wrong
    reward, done = click(env, "button", "Save")
    assert app(env)["status"] == "Saved settings.json." and not done and reward == 0

    replace(env, "entry", "Email", new["email"])
    click(env, "checkbox", "Show line numbers")  # an extra change
    reward, done = click(env, "button", "Save")
    assert app(env)["saved"]["email"] == new["email"] and not done and reward == 0

    click(env, "checkbox", "Show line numbers")
    reward, done = click(env, "button", "Save")
    assert done and reward == 1.0


def test_check_reads_the_file(tmp_path):
    task = ChangeProfile()
    params = task.sample(np.random.default_rng(0))
    assert not task.check(params, {}, tmp_path)  # no file
    (tmp_path / fmt.FILENAME).write_text("{not json", encoding="utf-8")
    assert not task.check(params, {}, tmp_path)
    want = {**params["start"], **params["changes"]}
    (tmp_path / fmt.FILENAME).write_text(json.dumps(want), encoding="utf-8")
    assert task.check(params, {}, tmp_path)
    (tmp_path / fmt.FILENAME).write_text(json.dumps({**want, "extra": 1}), encoding="utf-8")
    assert not task.check(params, {}, tmp_path)

"""SiteEnv on a real Chromium, against the three-page toy site (tests/envs/web/toy_site.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tests import system_deps
from tests.envs.web.toy_site import ToyEnv
from turngym.agents.experts.web import SiteOracle
from turngym.envs.web.axtree import find_id
from turngym.testing import check_text_env

pytestmark = [pytest.mark.browser, system_deps.chromium()]


@pytest.fixture(scope="module")
def env():
    env = ToyEnv(max_turns=100)
    yield env
    env.close()


def _id(obs: str, role: str, name: str) -> int:
    found = find_id(obs, role, name)
    assert found is not None, f"no {role} {name!r} in:\n{obs}"
    return found


def test_first_observation_states_the_task_and_shows_the_page(env):
    obs, info = env.reset(seed=0)
    assert obs.startswith(f"Task: {info['instruction']}\n")
    assert "URL: /\n" in obs
    assert "[7] button 'Add one'" in obs
    assert "StaticText 'Counter: 0'" in obs
    assert info["template"] in ("count", "say")


def test_click_submits_a_form_and_the_next_page_is_read_after_it_loads(env):
    obs, _ = env.reset(seed=0)
    for expected in (1, 2):
        obs, _reward, terminated, truncated, info = env.step(
            f"click({_id(obs, 'button', 'Add one')})"
        )
        assert not info["invalid_action"] and not terminated and not truncated
        assert f"StaticText 'Counter: {expected}'" in obs, obs
        assert info["url"] == "/" and info["last_action_error"] == ""


def test_ids_stay_the_same_while_the_page_lives(env):
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step('goto("/form")')
    before = _id(obs, "button", "Show")
    obs, *_ = env.step(f'fill({_id(obs, "textbox", "Query")}, "blue shoes")')
    assert _id(obs, "button", "Show") == before


def test_fill_select_and_a_script_that_reads_them(env):
    env.reset(seed=0)
    obs, *_ = env.step('goto("/form")')
    obs, *_ = env.step(f'fill({_id(obs, "textbox", "Query")}, "red shoes")')
    assert "textbox 'Query' value='red shoes'" in obs or "value='red shoes'" in obs
    obs, *_ = env.step(f'select({_id(obs, "combobox", "Colour")}, "green")')
    assert "combobox 'Colour' value='green'" in obs
    obs, _, _, _, _info = env.step(f"click({_id(obs, 'button', 'Show')})")
    assert "You typed red shoes in green" in obs, obs
    # fill replaces what was there; an empty fill clears it
    obs, *_ = env.step(f'fill({_id(obs, "textbox", "Query")}, "")')
    assert "value='red shoes'" not in obs


def test_each_env_has_its_own_clipboard(env):
    """Chromium's clipboard is browser-wide: two envs on one browser must not share it."""
    other = ToyEnv(max_turns=100)
    try:
        for e, word in ((env, "alpha"), (other, "beta")):
            e.reset(seed=0)
            obs, *_ = e.step('goto("/form")')
            e.step(f'fill({_id(obs, "textbox", "Query")}, "{word}")')
            e.step('press("Control+a")')
            e.step('press("Control+c")')
        obs, *_ = env.step(f'fill({_id(obs, "textbox", "Query")}, "")')
        obs, *_ = env.step('press("Control+v")')
        assert "value='alpha'" in obs and "beta" not in obs
        obs, *_ = other.step('press("Control+a")')
        obs, *_ = other.step('press("Control+x")')  # cut: the field empties, the text is kept
        assert "value='beta'" not in obs
        obs, *_ = other.step('press("Control+v")')
        obs, *_ = other.step('press("Control+v")')
        assert "value='betabeta'" in obs
    finally:
        other.close()


def test_action_errors_are_reported_in_the_observation_not_raised(env):
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step('goto("/form")')
    obs, _, _, _, info = env.step(f'select({_id(obs, "combobox", "Colour")}, "purple")')
    assert not info["invalid_action"]
    assert 'no option "purple"' in info["last_action_error"] and "Error: select" in obs
    obs, _, _, _, info = env.step(f'fill({_id(obs, "link", "Home")}, "x")')
    assert "not a text field" in info["last_action_error"]
    obs, _, _, _, info = env.step('press("NoSuchKey")')
    assert info["last_action_error"].startswith("press:")
    obs, _, _, _, info = env.step("mouse_click(5000, 10)")
    assert "outside the 1024x768 page" in info["last_action_error"]
    obs, _, _, _, info = env.step("back()")
    assert info["url"] == "/" and info["last_action_error"] == ""


def test_hidden_elements_are_not_clickable(env):
    obs, _ = env.reset(seed=0)
    assert "Hidden" not in obs  # not in the accessibility tree at all


def test_alerts_are_accepted_and_reported(env):
    env.reset(seed=0)
    obs, *_ = env.step('goto("/form")')
    obs, _, _, _, info = env.step(f"click({_id(obs, 'button', 'Alert')})")
    assert "Dialog: alert: hi" in obs and not info["invalid_action"]


@pytest.mark.parametrize(
    "action, reason",
    [
        ('fill(3, "unbalanced)', "not a single action call"),
        ("click(999)", "no element [999] on this page"),
        ("click(__import__('os').system('touch /tmp/pwned'))", "must be a literal element id"),
        ("x" * 100_000, "action too long"),
        ("eval('1')", "unknown action 'eval'"),
        ("", "not a single action call"),
        ("click(1, 2)", "takes 1 argument"),
    ],
)
def test_malformed_actions_are_invalid_with_a_clear_message(env, action, reason):
    env.reset(seed=0)
    obs, reward, terminated, _truncated, info = env.step(action)
    assert info["invalid_action"] and reason in info["invalid_reason"], info
    assert reason in obs and reward == 0.0 and not terminated


def test_a_page_cannot_reach_the_network(env):
    env.reset(seed=0)
    obs, _, _, _, info = env.step('goto("/leak")')
    assert sorted(info["blocked_requests"]) == [
        "http://192.0.2.1/pixel.png",
        "http://198.51.100.7/exfil?d=1",
        "https://example.com/x.js",
    ]
    assert "StaticText 'leak page'" in obs


@pytest.mark.parametrize(
    "url",
    ["http://example.com/", "https://93.184.215.14/", "file:///etc/passwd", "http://127.0.0.1:1/"],
)
def test_goto_leaves_neither_the_site_nor_the_machine(env, url):
    env.reset(seed=0)
    _obs, _, _, _, info = env.step(f"goto({url!r})")
    assert "only this site's pages" in info["last_action_error"]
    assert info["url"] == "/"


def test_answer_ends_the_episode_with_the_site_score(env):
    for seed in range(6):
        _obs, info = env.reset(seed=seed)
        target = env.task.goal["target"]
        if info["template"] == "say":
            *_, terminated, _, info = env.step(f'answer("{target}")')
            assert terminated and info["success"] and info["score"] == 1.0
            return
    pytest.fail("no 'say' task in seeds 0-5")


def test_reset_restores_the_database(env):
    obs, _ = env.reset(seed=0)
    env.step(f"click({_id(obs, 'button', 'Add one')})")
    obs, _ = env.reset(seed=0)
    assert "StaticText 'Counter: 0'" in obs


def test_oracle_solves_every_template():
    env = ToyEnv()
    oracle = SiteOracle(env)
    try:
        for template in ToyEnv.site.templates:
            env.template = template
            for seed in range(3):
                obs, info = env.reset(seed=seed)
                done = False
                while not done:
                    obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
                    assert not info["invalid_action"]
                    done = terminated or truncated
                assert info["success"] and reward == 1.0, (template, seed)
    finally:
        env.close()


def test_screenshots_and_set_of_marks():
    env = ToyEnv(screenshot=True, viewport=(640, 480))
    marked = ToyEnv(set_of_marks=True, viewport=(640, 480))
    try:
        obs, _ = env.reset(seed=0)
        assert set(obs) == {"text", "screenshot"}
        shot = obs["screenshot"]
        assert shot.shape == (480, 640, 3) and shot.dtype == np.uint8
        assert env.observation_space.contains(obs)
        assert shot.std() > 0  # a rendered page, not a blank array
        obs2, _ = marked.reset(seed=0)
        assert obs2["text"] == obs["text"]
        differs = np.any(obs2["screenshot"] != shot, axis=2)
        assert differs.mean() > 0.001  # the id boxes and labels are drawn
        obs3, *_ = env.step("click(999)")  # invalid: still a dict with pixels
        assert set(obs3) == {"text", "screenshot"} and "no element [999]" in obs3["text"]
    finally:
        env.close()
        marked.close()


def test_rgb_array_renders_the_page_and_recorded_screenshots_are_png_files(env, tmp_path):
    """``env`` keeps the module's Chromium up, so these envs only open pages in it."""
    from turngym.wrappers.record_episodes import RecordEpisodes, load_transcripts

    shown = ToyEnv(render_mode="rgb_array", viewport=(320, 240))
    recorded = RecordEpisodes(ToyEnv(screenshot=True, viewport=(320, 240)), tmp_path / "e.jsonl")
    try:
        assert not shown.render().any()  # before reset: a blank frame of the viewport
        obs, _ = shown.reset(seed=0)
        assert isinstance(obs, str)  # the observation stays text
        frame = shown.render()
        assert frame.shape == (240, 320, 3) and frame.dtype == np.uint8 and frame.std() > 0
        first, _ = recorded.reset(seed=0)
        np.testing.assert_array_equal(first["screenshot"], frame)  # the same page, same pixels
        *_, terminated, _, _ = recorded.step('answer("nothing")')
        assert terminated
    finally:
        shown.close()
        recorded.close()
    assert len((tmp_path / "e.jsonl").read_text()) < 20_000  # 230,400 bytes of pixels as PNG
    (t,) = load_transcripts(tmp_path / "e.jsonl")
    np.testing.assert_array_equal(t["observation"]["screenshot"], frame)
    assert t["steps"][0]["observation"]["screenshot"].shape == (240, 320, 3)


_TEXT_BOX = """function () {
  const range = document.createRange();
  range.selectNodeContents(this);
  const r = range.getBoundingClientRect();
  const b = r.width && r.height ? r : this.getBoundingClientRect();  // a field: its box
  return [b.left, b.top, b.right, b.bottom];
}"""


def _text_box(env, element_id: int) -> list[float]:
    """Where the element's text is on the screenshot (CSS pixels, device scale 1)."""
    page = env._page

    async def read() -> list[float]:
        node = await page._cdp.send(
            "DOM.resolveNode", {"backendNodeId": page.ax.backend_id(element_id)}
        )
        reply = await page._cdp.send(
            "Runtime.callFunctionOn",
            {
                "objectId": node["object"]["objectId"],
                "functionDeclaration": _TEXT_BOX,
                "returnByValue": True,
            },
        )
        return reply["result"]["value"]

    return env._host.run(read())


def test_set_of_marks_boxes_only_targets_and_keeps_tags_off_their_text():
    from turngym.envs.web.axtree import ACTIONABLE_ROLES

    env = ToyEnv(set_of_marks=True, viewport=(640, 480))
    try:
        env.reset(seed=0)
        obs, *_ = env.step('goto("/marks")')
        text, marks = obs["text"], env.marks
        targets = {
            _id(text, "link", "Home"),  # at the top-left corner: no room above it
            _id(text, "link", "Form"),
            _id(text, "button", "Press"),
            _id(text, "textbox", "Name"),
            _id(text, "combobox", ""),
            _id(text, "textbox", ""),  # the textarea
            _id(text, "generic", "Handler"),  # a div with a click handler
        }
        containers = [("navigation", ""), ("paragraph", ""), ("list", ""), ("listitem", "")]
        containers += [("region", "Region"), ("heading", "Marks")]
        assert set(marks) == targets
        assert not {_id(text, role, name) for role, name in containers} & set(marks)
        for k, (tag, _box) in marks.items():
            x0, y0, x1, y1 = _text_box(env, k)
            assert not (tag[0] < x1 and x0 < tag[2] and tag[1] < y1 and y0 < tag[3]), (k, tag)
            assert 0 <= tag[0] < tag[2] <= 640 and 0 <= tag[1] < tag[3] <= 480
            patch = obs["screenshot"][tag[1] : tag[3], tag[0] : tag[2]].reshape(-1, 3)
            assert (patch == (255, 0, 64)).all(axis=1).mean() > 0.4  # the tag is drawn
            role = env._page.ax.role(k)
            assert role in ACTIONABLE_ROLES or role == "generic"  # generic: a click handler
        handler = _id(text, "generic", "Handler")
        obs, *_ = env.step(f"click({handler})")
        assert "StaticText 'done'" in obs["text"]  # the marked id is a working click
    finally:
        env.close()


def test_conformance():
    check_text_env(lambda **kw: ToyEnv(**kw), n_fuzz=1000, reset_episodes=10, expert=SiteOracle)


def test_links_out_of_the_site_are_blocked_and_new_tabs_open_in_this_one(env):
    env.reset(seed=0)
    obs, *_ = env.step('goto("/form")')
    obs, _, _, _, info = env.step(f"click({_id(obs, 'link', 'Away')})")
    assert info["url"] == "/form"  # no error page: the tab stays where it was
    assert "http://example.com/" in info["last_action_error"] and "blocked" in obs
    obs, _, _, _, info = env.step(f"click({_id(obs, 'link', 'New tab')})")
    assert info["url"] == "/" and "Counter: 0" in obs
    obs, _, _, _, info = env.step('goto("/form")')
    obs, _, _, _, info = env.step(f"click({_id(obs, 'link', 'Jump')})")  # same-page anchor
    assert info["url"] == "/form#bottom" and info["last_action_error"] == ""


def test_back_never_leaves_the_episode(env):
    env.reset(seed=0)
    env.step('goto("/form")')
    obs, _ = env.reset(seed=0)  # the last episode's pages are not in this one's history
    obs, _, _, _, info = env.step("back()")
    assert info["last_action_error"] == "back: there is no earlier page in this episode"
    assert info["url"] == "/" and "Counter: 0" in obs
    env.step('goto("/form")')
    obs, _, _, _, info = env.step("back()")
    assert info["url"] == "/" and info["last_action_error"] == ""


def test_click_scrolls_an_element_below_the_fold_into_view(env):
    env.reset(seed=0)
    obs, *_ = env.step('goto("/form")')
    obs, _, _, _, info = env.step(f"click({_id(obs, 'button', 'Far below')})")
    assert info["last_action_error"] == "" and "button 'Clicked far below'" in obs


def test_the_collector_steps_web_envs_at_once_and_the_oracle_solves_them():
    from turngym.sdk.rollout import Collector

    envs = [ToyEnv() for _ in range(3)]
    collector = Collector(envs, SiteOracle, progress=False)
    try:
        assert collector.env_threads == 3  # web envs say they gain from threads
        episodes = collector.collect(6, seed=0)
        assert len(episodes) == 6 and all(ep.success for ep in episodes)
    finally:
        collector.close()
        for env in envs:
            env.close()


def test_a_missing_browser_is_named_when_the_env_is_made(monkeypatch, tmp_path):
    from turngym.envs.web import browser_env
    from turngym.envs.web.browser import BrowserError

    monkeypatch.setattr(browser_env, "find_chromium", lambda: None)
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))  # no browser of its own
    with pytest.raises(BrowserError, match="apt-get install chromium"):
        ToyEnv()

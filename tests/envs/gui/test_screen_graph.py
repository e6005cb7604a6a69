from __future__ import annotations

from collections import deque

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401
from turngym.agents import RandomAgent, make_expert
from turngym.agents.experts.screen_graph import ScreenGraphExpert, ScreenGraphExplorer
from turngym.envs.gui.screen_graph import (
    HOME,
    MAX_ICONS,
    ScreenGraphEnv,
    Widget,
    _depths,
    draw_screen,
    glyph_colour,
)
from turngym.testing import check_text_env

ID = "turngym/ScreenGraph-v0"
LEGACY = {"n_screens": 12, "max_turns": 30, "min_depth": 2, "icons": (2, 6)}
"""The defaults before issue 25, under which random clicking solved 4 episodes in 5."""


def play(env: gym.Env, seed: int, choose) -> tuple[list, dict, int]:
    """One episode: the observations seen, the last info, and the number of steps."""
    obs, info = env.reset(seed=seed)
    seen = [obs]
    steps = 0
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(choose(obs, info))
        seen.append(obs)
        steps += 1
        done = terminated or truncated
    return seen, info, steps


# -- conformance and the expert --------------------------------------------------------


def test_conformance():
    check_text_env(ID, n_fuzz=1000, reset_episodes=20, expert_episodes=10)


@pytest.mark.parametrize("kwargs", [{}, {"n_screens": 2}, {"n_screens": 200}])
def test_expert_solves_held_out_seeds_in_few_clicks(kwargs):
    env = gym.make(ID, **kwargs)
    expert = make_expert(env)
    assert isinstance(expert, ScreenGraphExpert)
    for seed in range(10_000, 10_020):
        _, info, steps = play(env, seed, expert.act)
        assert info["success"], seed
        assert not info["invalid_action"]
        assert steps <= 8  # the depth of the target: a handful of clicks, far from 30


def fewest_clicks(env: ScreenGraphEnv) -> int:
    """BFS over (screen, Back stack) states: the true shortest route to the target."""
    links = env.links
    start = (env.screen, env.history)
    seen, queue = {start}, deque([(start, 0)])
    while queue:
        (screen, stack), clicks = queue.popleft()
        if screen == env.target:
            return clicks
        moves = [(to, () if to == HOME else (*stack, screen)) for to in links[screen]]
        if stack:
            moves.append((stack[-1], stack[:-1]))
        for move in moves:
            if move not in seen:
                seen.add(move)
                queue.append((move, clicks + 1))
    raise AssertionError("the target is unreachable")


def test_expert_takes_a_shortest_route_back_presses_included():
    # sparse links (2-6 icons a screen), where going Back is sometimes the shortest way
    env = gym.make(ID, **{**LEGACY, "n_screens": 30})
    inner = env.unwrapped
    rng = np.random.default_rng(0)
    backs = 0
    for seed in range(60):
        obs, info = env.reset(seed=seed)
        for _ in range(3):  # wander off first, so that Back is sometimes the way
            away = [w for w in inner.widgets if w.name != inner.target and w.to is not None]
            obs, *_, info = env.step(f"click({away[int(rng.integers(len(away)))].index})")
        expert = ScreenGraphExpert(env)
        best = fewest_clicks(inner)
        clicks = 0
        done = False
        while not done:
            action = expert.act(obs, info)
            backs += inner.widgets[int(action[6:-1])].name == "Back"
            obs, _, terminated, truncated, info = env.step(action)
            clicks += 1
            done = terminated or truncated
        assert info["success"] and clicks == best, seed
    assert backs > 0, backs


def success_rates(env: gym.Env, seeds: range) -> dict[str, float]:
    """Random widget clicks, RandomAgent, the map-free explorer: success over ``seeds``."""
    rng = np.random.default_rng(0)

    def click_anything(obs, info):
        clicks = [a for a in info["legal_actions"] if a != "done"]
        return clicks[int(rng.integers(len(clicks)))]

    def rate(agent_for):
        return float(np.mean([play(env, s, agent_for(s))[1]["success"] for s in seeds]))

    return {
        "clicks": rate(lambda s: click_anything),
        "random": rate(lambda s: RandomAgent(seed=s).act),
        "explorer": rate(lambda s: ScreenGraphExplorer().act),
    }


def test_luck_rarely_solves_the_defaults_and_reading_the_screens_pays():
    # Over seeds 0-999 (benchmarks/screen_graph_headroom.py): clicks 0.062, RandomAgent
    # 0.029, explorer 0.575, expert 1.0. 100 episodes each keep this test cheap while a
    # return of the old defaults (clicks 0.83) fails it by far.
    env = gym.make(ID)
    rates = success_rates(env, range(100))
    assert rates["clicks"] < 0.10 and rates["random"] < 0.10, rates
    assert rates["explorer"] > 0.35, rates  # headroom a reader of the screens can take
    expert = ScreenGraphExpert(env)
    held_out = [play(env, seed, expert.act) for seed in range(20_000, 20_100)]
    assert all(info["success"] for _, info, _ in held_out)
    assert max(steps for *_, steps in held_out) <= 6


def test_the_old_defaults_stay_reachable_and_easy():
    env = gym.make(ID, **LEGACY)
    rates = success_rates(env, range(40))
    assert rates["clicks"] > 0.6 and rates["explorer"] == 1.0, rates


def test_explorer_needs_only_what_the_agent_is_shown():
    env = gym.make(ID)
    full, public = ScreenGraphExplorer(), ScreenGraphExplorer()
    for seed in (5, 6):
        obs, info = env.reset(seed=seed)  # turn 0: both forget the last episode
        done = False
        while not done:
            action = full.act(obs, info)
            shown = {k: info[k] for k in ("instruction", "screen", "widgets", "turn")}
            assert public.act(obs, shown) == action
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated


# -- the app ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "icons"), [(2, (8, 12)), (3, (2, 6)), (12, (2, 6)), (40, (1, 1)), (200, (8, 12))]
)
def test_every_screen_is_reachable_and_shows_its_number_of_icons(n, icons):
    env = ScreenGraphEnv(n_screens=n, icons=icons)
    for seed in range(5):
        env.reset(seed=seed)
        links = env.links
        assert len(links) == n and HOME in links
        reached, frontier = {HOME}, [HOME]
        while frontier:
            frontier = [t for s in frontier for t in links[s] if t not in reached]
            reached.update(frontier)
        assert reached == set(links)
        for screen, targets in links.items():
            assert screen not in targets and len(set(targets)) == len(targets)
            assert min(icons[0], n - 1) <= len(targets) <= icons[1] <= MAX_ICONS


@pytest.mark.parametrize(("kwargs", "depth"), [({}, 3), (LEGACY, 2), ({"min_depth": 50}, 50)])
def test_target_is_min_depth_clicks_from_home_or_the_deepest(kwargs, depth):
    env = ScreenGraphEnv(**kwargs)
    for seed in range(30):
        env.reset(seed=seed)
        links = env.links
        index = {name: i for i, name in enumerate(links)}
        depths = _depths([[index[t] for t in out] for out in links.values()])
        assert depths[index[env.target]] >= min(depth, max(depths))
        assert env.instruction == f'Open the "{env.target}" screen.'


def test_first_observation_states_the_task_help_and_home_screen():
    env = gym.make(ID)
    obs, info = env.reset(seed=0)
    text = obs["text"]
    assert text.startswith(f"Task: {info['instruction']}\n")
    assert "click(x, y) or click(index)" in text and "360x640 pixels" in text
    assert 'Screen: "Home"' in text and '"Back"' not in text
    assert info["screen"] == info["state_key"] == HOME
    lines = [line for line in text.splitlines() if line.startswith("[")]
    assert len(lines) == len(info["widgets"]) >= 2
    for line, w in zip(lines, info["widgets"], strict=True):
        box = f"({w['x']}, {w['y']}, {w['w']}x{w['h']})"
        assert line == f'[{w["index"]}] {w["role"]} "{w["name"]}" {box}'
    assert info["legal_actions"] == [f"click({i})" for i in range(len(lines))] + ["done"]


def test_back_returns_to_the_previous_screen_and_home_clears_the_stack():
    env = ScreenGraphEnv(n_screens=40)
    env.reset(seed=1)
    first = env.widgets[0]
    obs, *_, info = env.step(f"click({first.index})")
    assert env.screen == first.name and env.history == (HOME,)
    assert info["widgets"][0] == {"index": 0, "role": "button", "name": "Back"} | {
        "x": 8,
        "y": 8,
        "w": 80,
        "h": 40,
    }
    second = next(w for w in env.widgets[1:] if w.name not in (HOME, env.target))
    env.step(f"click({second.index})")
    assert env.history == (HOME, first.name)
    obs, *_ = env.step("click(0)")
    assert env.screen == first.name and env.history == (HOME,)
    assert f'You pressed "Back" and returned to "{first.name}"' in obs["text"]
    env.step("click(0)")
    assert env.screen == HOME and env.history == ()


def test_reaching_the_target_pays_one_and_ends():
    env = gym.make(ID)
    obs, info = env.reset(seed=2)
    expert = ScreenGraphExpert(env)
    rewards = []
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(expert.act(obs, info))
        rewards.append(reward)
        done = terminated or truncated
    assert rewards[-1] == 1.0 and sum(rewards) == 1.0
    assert terminated and not truncated and info["success"]
    assert info["screen"] == env.unwrapped.target and info["legal_actions"] == []
    assert "the task asked for: solved" in obs["text"]


@pytest.mark.parametrize("action", ["done", "done()", "fail()"])
def test_done_off_target_and_fail_end_without_reward(action):
    env = gym.make(ID)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated, info["success"]) == (0.0, True, False, False)
    assert "episode ends" in obs["text"]


def test_turn_limit_truncates():
    env = gym.make(ID, max_turns=3)
    env.reset(seed=0)
    outs = [env.step("wait()") for _ in range(3)]
    assert [o[3] for o in outs] == [False, False, True]
    assert "Out of turns (3)" in outs[-1][0]["text"] and not outs[-1][4]["success"]


# -- actions ---------------------------------------------------------------------------


def test_click_by_coordinates_and_by_index_agree():
    for seed in range(8):
        by_index, by_point, by_corner = (gym.make(ID) for _ in range(3))
        for env in (by_index, by_point, by_corner):
            env.reset(seed=seed)
        for step in range(4):
            widgets = by_index.unwrapped.widgets
            w = widgets[(seed + step) % len(widgets)]
            a = by_index.step(f"click({w.index})")
            b = by_point.step(f"click({w.center[0]}, {w.center[1]})")
            c = by_corner.step(f"double_click({w.x + w.w - 1}, {w.y})")
            assert a[0]["text"] == b[0]["text"] == c[0]["text"]
            assert np.array_equal(a[0]["screenshot"], b[0]["screenshot"])
            assert a[1:] == b[1:] == c[1:]
            if a[2] or a[3]:
                break


def test_actions_are_lenient_about_case_and_whitespace():
    env = gym.make(ID)
    env.reset(seed=0)
    name = env.unwrapped.widgets[0].name
    *_, info = env.step("  CLICK(0)\n")
    assert not info["invalid_action"] and info["screen"] == name
    *_, info = env.step('Type("Hello")')
    assert not info["invalid_action"]


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("click(360, 10)", "click: x=360 is outside the 360x640 screen (x is 0..359)"),
        ("click(10, -1)", "click: y=-1 is outside the 360x640 screen (y is 0..639)"),
        ("move(5, 640)", "move: y=640 is outside the 360x640 screen"),
        ("drag(5, 5, 400, 5)", "drag: x=400 is outside the 360x640 screen"),
        ("scroll(-3, 5, 1)", "scroll: x=-3 is outside"),
        ("click(2)", "click: no widget [2] on this screen; its widgets are [0]..[1]"),
        ("right_click(7)", "right_click: no widget [7]"),
        ("click(", "not a single action call"),
        ("tap(3)", "unknown action 'tap'"),
        ("click(1, 2, 3)", "click takes 2 argument(s), got 3"),
        ('click("Photos")', "click: x must be a literal pixel coordinate"),
        ("", "not a single action call"),
    ],
)
def test_bad_actions_are_invalid_with_a_clear_message(action, reason):
    env = gym.make(ID, **LEGACY)
    env.reset(seed=0)  # the home screen of seed 0 shows two icons
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["invalid_action"] and not terminated and not truncated and reward == 0.0
    assert reason in info["invalid_reason"]
    assert obs["text"].startswith("Error: Invalid action") and 'Screen: "Home"' in obs["text"]
    assert info["screen"] == HOME


def test_clicking_empty_space_and_other_actions_do_nothing():
    env = gym.make(ID)
    obs0, _ = env.reset(seed=0)
    for action in [
        "click(2, 638)",
        "double_click(359, 639)",
        "right_click(0)",
        "right_click(140, 300)",
        "move(10, 10)",
        "drag(1, 1, 300, 500)",
        'type("hello")',
        'key("ctrl+s")',
        "scroll(100, 100, -3)",
        "wait()",
        "wait",
    ]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert not info["invalid_action"], action
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert "nothing happens" in obs["text"] and info["screen"] == HOME
        assert np.array_equal(obs["screenshot"], obs0["screenshot"])
    assert "no widget at (2, 638)" in env.step("click(2, 638)")[0]["text"]


def test_invalid_actions_are_penalised_and_truncate():
    env = gym.make(ID, invalid_action_penalty=-0.1, max_invalid_actions=2)
    env.reset(seed=0)
    first = env.step("click(999, 1)")
    second = env.step("click(999, 1)")
    assert (first[1], first[3]) == (-0.1, False)
    assert (second[1], second[3]) == (-0.1, True)
    assert "Too many invalid actions" in second[0]["text"]


# -- determinism and pixels ---------------------------------------------------------------


def test_same_seed_same_episode_pixels_included():
    def expert_run(seed: int) -> list:
        env = gym.make(ID)
        expert = ScreenGraphExpert(env)
        return play(env, seed, expert.act)[0]

    reused = gym.make(ID)
    reused.reset(seed=99)
    reused.step("click(0)")
    for seed in (0, 7):
        a, b = expert_run(seed), expert_run(seed)
        expert = ScreenGraphExpert(reused)
        c = play(reused, seed, expert.act)[0]
        assert len(a) == len(b) == len(c)
        for x, y, z in zip(a, b, c, strict=True):
            assert x["text"] == y["text"] == z["text"]
            assert np.array_equal(x["screenshot"], y["screenshot"])
            assert np.array_equal(x["screenshot"], z["screenshot"])
    assert not np.array_equal(expert_run(0)[1]["screenshot"], expert_run(7)[1]["screenshot"])


def test_screenshot_shows_the_layout():
    env = gym.make(ID, size=(400, 700))
    obs, info = env.reset(seed=3)
    shot = obs["screenshot"]
    assert shot.shape == (700, 400, 3) and shot.dtype == np.uint8
    assert obs in env.observation_space
    for w in info["widgets"]:
        # the glyph sits in the tile's upper middle
        assert tuple(shot[w["y"] + 12, w["x"] + w["w"] // 2]) == glyph_colour(w["name"])
    assert tuple(shot[2, 2]) != tuple(shot[-2, 2])  # title bar over the background


def test_set_of_marks_tags_every_widget_outside_its_box_and_the_ids_click():
    plain = gym.make(ID)
    env = gym.make(ID, set_of_marks=True)
    obs, info = env.reset(seed=3)
    bare, _ = plain.reset(seed=3)
    marks = env.unwrapped.marks
    assert obs["text"] == bare["text"] and not np.array_equal(obs["screenshot"], bare["screenshot"])
    assert set(marks) == {w["index"] for w in info["widgets"]}
    for w in info["widgets"]:
        tag, box = marks[w["index"]]
        assert box == (w["x"], w["y"], w["w"], w["h"])
        x1, y1 = w["x"] + w["w"], w["y"] + w["h"]
        assert not (tag[0] < x1 and w["x"] < tag[2] and tag[1] < y1 and w["y"] < tag[3])
    icon = next(w for w in info["widgets"] if w["role"] == "icon")
    _, _, _, _, after = env.step(f"click({icon['index']})")  # a marked id is a click
    assert after["screen"] == icon["name"] and env.unwrapped.marks != marks


def test_returned_screenshot_cannot_corrupt_the_cache():
    env = gym.make(ID, render_mode="rgb_array")
    obs, _ = env.reset(seed=0)
    pristine = obs["screenshot"].copy()
    obs["screenshot"][:] = 0  # the caller's own array
    env.render()[:] = 1
    again, *_ = env.step("wait()")
    assert np.array_equal(again["screenshot"], pristine)
    assert not np.shares_memory(again["screenshot"], obs["screenshot"])
    assert again["screenshot"].flags.writeable


def test_render_modes():
    assert ScreenGraphEnv(render_mode="rgb_array").render() is None  # before reset
    env = gym.make(ID, render_mode="rgb_array")
    obs, _ = env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and np.array_equal(frame, obs["screenshot"])
    ansi = gym.make(ID, render_mode="ansi")
    obs, _ = ansi.reset(seed=0)
    assert ansi.render() == obs["text"].split("\n", 3)[3]
    assert ansi.render().startswith('Screen: "Home"\n[0] icon ')


def test_human_render_prints_the_screen(capsys):
    env = gym.make(ID, render_mode="human")
    env.reset(seed=0)
    env.step("click(0)")
    out = capsys.readouterr().out
    assert 'Screen: "Home"' in out and '[0] button "Back"' in out


def test_draw_screen_fits_long_names_on_small_screens():
    label = "Developer Options Archive"
    icon = Widget(1, "icon", label, 16, 72, 32, 26, 3)
    back = Widget(0, "button", "Back", 8, 8, 80, 40)
    shot = draw_screen("A very long screen title " * 5, [back, icon], (160, 240))
    assert shot.shape == (240, 160, 3)
    assert tuple(shot[100, 100]) == (245, 246, 248)  # nothing spills out of the tile


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_screens": 1}, "n_screens must be an int in 2..200, got 1"),
        ({"n_screens": 201}, "n_screens must be an int in 2..200"),
        ({"n_screens": 12.0}, "n_screens must be an int"),
        ({"size": (100, 640)}, r"size must be \(width, height\) with width in 160..4096"),
        ({"size": (360, 640, 3)}, "size must be"),
        ({"size": "360x640"}, "size must be"),
        ({"max_turns": 0}, "max_turns must be a positive int"),
        ({"min_depth": 0}, "min_depth must be a positive int, got 0"),
        ({"min_depth": 2.5}, "min_depth must be a positive int"),
        ({"icons": (0, 4)}, r"icons must be \(least, most\) with 1 <= least <= most <= 12"),
        ({"icons": (6, 4)}, "icons must be"),
        ({"icons": (2, 13)}, "icons must be"),
        ({"icons": 6}, "icons must be"),
        ({"render_mode": "rgb"}, "render_mode='rgb' is not supported"),
    ],
)
def test_bad_arguments_fail_fast(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ScreenGraphEnv(**kwargs)

"""``crafter-v0``: Crafter as a text env (BALROG-style text), its seeds and achievements.

Generating a 64 x 64 world costs about a second of CPU, so most checks run on a small
world (``area=(24, 24)``, Crafter's own parameter) and only a few on the default one.
"""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("crafter", reason="the Crafter adapter needs the crafter extra")

import crafter

import turngym  # noqa: F401
from turngym.envs.adapters.crafter import ACHIEVEMENTS, ACTIONS, CrafterEnv, _order_chunks
from turngym.registry import entry
from turngym.testing import check_text_env

ID = "turngym/crafter-v0"
SMALL = {"area": (24, 24)}


def play(env: gym.Env, seed: int, steps: int, actions_seed: int = 0) -> list[str]:
    """The observations of ``steps`` random legal actions from ``reset(seed=seed)``."""
    rng = np.random.default_rng(actions_seed)
    obs, _ = env.reset(seed=seed)
    seen = [obs]
    for _ in range(steps):
        obs, _, terminated, truncated, _ = env.step(ACTIONS[int(rng.integers(len(ACTIONS)))])
        seen.append(obs)
        if terminated or truncated:
            break
    return seen


def test_constants_match_crafter():
    assert tuple(crafter.constants.actions) == ACTIONS
    assert tuple(crafter.constants.achievements) == ACHIEVEMENTS


def test_row_and_light_registration():
    row = entry("crafter-v0")
    assert (row.extra, row.suite, row.max_episode_steps) == ("crafter", "crafter", 10_000)
    code = (
        "import sys, turngym, gymnasium as gym\n"
        "assert 'turngym/crafter-v0' in gym.registry\n"
        "print([m for m in sys.modules if m.split('.')[0] == 'crafter'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "kwargs", [{"max_steps": 0}, {"max_steps": True}, {"area": (4, 64)}, {"area": 64}]
)
def test_bad_arguments_are_one_line_value_errors(kwargs):
    with pytest.raises(ValueError, match=f"{next(iter(kwargs))} must be"):
        CrafterEnv(**kwargs)


def test_conformance():
    check_text_env(ID, n_fuzz=1000, reset_episodes=2, make_kwargs=SMALL)


def test_a_seed_replays_the_default_world_in_a_reused_env():
    # Crafter despawns a creature by indexing a set (memory-address order) with its
    # seeded RNG; without the adapter's ordering this replay failed.
    reused = gym.make(ID)
    play(reused, 5, 0)
    fresh = gym.make(ID)
    assert play(reused, 1000, 60, actions_seed=1) == play(fresh, 1000, 60, actions_seed=1)
    assert play(fresh, 1, 0) != play(fresh, 2, 0)


def test_order_chunks_keeps_every_chunk_and_object_in_the_worlds_order():
    env = crafter.Env(area=(24, 24), seed=3)
    env.reset()
    world = env._world
    before = {key: set(objs) for key, objs in world._chunks.items()}
    _order_chunks(world)
    assert list(world._chunks) == list(before)
    for key, objs in world._chunks.items():
        assert set(objs) == before[key]
        order = [int(world._obj_map[tuple(o.pos)]) for o in objs]
        assert order == sorted(order)
    cow = crafter.objects.Cow(world, (0, 0))
    world._chunks[(99, 99, 99, 99)].add(cow)  # new chunks get the ordered set too
    world._chunks[(99, 99, 99, 99)].remove(cow)


def test_lockstep_with_crafter():
    ours = gym.make(ID, **SMALL)
    ours.reset(seed=3)  # a reused env starts the world a fresh crafter.Env(seed=7) does
    native = crafter.Env(area=(24, 24), seed=7)
    ours.reset(seed=7)
    native.reset()
    _order_chunks(native._world)  # the same creature order, so the worlds stay equal
    rng = np.random.default_rng(0)
    for _ in range(150):
        action = int(rng.integers(len(ACTIONS)))
        _, reward, terminated, truncated, info = ours.step(ACTIONS[action])
        _, native_reward, done, native_info = native.step(action)
        assert reward == native_reward and (terminated or truncated) == done
        assert info["achievements"] == native_info["achievements"]
        assert info["inventory"] == native_info["inventory"]
        if done:
            break


def test_actions_by_crafter_and_balrog_names_and_invalid_ones():
    env = gym.make(ID, invalid_action_penalty=-1.0, **SMALL)
    obs, info = env.reset(seed=0)
    assert "Your status: health 9/9, food 9/9, drink 9/9, energy 9/9." in obs
    assert "Achievements so far: none." in obs and info["legal_actions"] == list(ACTIONS)
    inner = env.unwrapped
    obs, reward, *_, info = env.step("Move West")
    assert not info["invalid_action"] and obs.startswith("You chose: move_left.")
    assert tuple(inner.crafter._player.facing) == (-1, 0)
    _, _, _, _, info = env.step("make wood pickaxe")
    assert not info["invalid_action"]
    steps = inner.crafter._step
    obs, reward, terminated, truncated, info = env.step("jump over the moon")
    assert info["invalid_action"] and reward == -1.0 and not (terminated or truncated)
    assert inner.crafter._step == steps and "move_left" in obs


def test_the_text_says_what_the_agent_faces_and_its_achievements():
    env = gym.make(ID, **SMALL)
    env.reset(seed=0)
    inner = env.unwrapped
    player = inner.crafter._player
    player.inventory["wood"] = 3
    player.achievements["collect_wood"] = 1
    obs, *_ = env.step("noop")
    x, y = (int(v) for v in player.pos + np.array(player.facing))
    material = inner.crafter._world[x, y][0]
    assert f"You face {material} at your front." in obs
    assert "Your inventory: wood 3." in obs and "Achievements so far: collect_wood." in obs


def test_max_steps_truncates_and_death_terminates():
    env = gym.make(ID, max_steps=5, **SMALL)
    env.reset(seed=0)
    results = [env.step("noop") for _ in range(5)]
    assert [r[3] for r in results] == [False] * 4 + [True]
    assert not results[-1][2] and "Out of time" in results[-1][0]
    env = gym.make(ID, **SMALL)
    env.reset(seed=0)
    env.unwrapped.crafter._player.health = 0
    obs, _, terminated, truncated, info = env.step("noop")
    assert terminated and not truncated and not info["success"] and "You died" in obs

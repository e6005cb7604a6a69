from __future__ import annotations

from collections import deque

import gymnasium as gym
import pytest

import turngym  # noqa: F401
from turngym.agents import RandomAgent, make_expert
from turngym.agents.experts.text_nav import TextNavExpert
from turngym.envs.text.text_nav import CARRIED, TextNavEnv
from turngym.envs.text.text_nav_data import OBJECTS, ROOMS
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/TextNav-v0"


def play(env: gym.Env, actions: list[str]) -> list[tuple]:
    return [env.step(a) for a in actions]


# -- conformance ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"num_rooms": 10, "num_objects": 10, "closed_door_prob": 1.0},
        {"num_rooms": 3, "num_objects": 1, "closed_door_prob": 0.0, "step_cost": 0.01},
    ],
)
def test_conformance(kwargs):
    check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs, reset_episodes=20, expert_episodes=10)


# -- the house ------------------------------------------------------------------------


def test_houses_are_connected_and_well_formed():
    env = TextNavEnv(num_rooms=8, num_objects=6)
    for seed in range(50):
        env.reset(seed=seed)
        assert len(set(env.rooms)) == 8 and set(env.rooms) <= set(ROOMS)
        assert len(env.doors) in (7, 8)  # a spanning tree, plus at most one loop
        seen, queue = {env.room}, deque([env.room])
        while queue:
            for nxt in env.neighbours(queue.popleft()):
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        assert seen == set(env.rooms)
        assert len(env.location) == 6 and set(env.location) <= set(OBJECTS)
        assert all(where in env.receptacles for where in env.location.values())
        # Open-topped furniture can never be closed.
        assert all(env.opened[n] for n, r in env.receptacles.items() if not r.can_close)
        assert not env.goal_met()
        here = env.receptacles[env.location[env.goal.obj]]
        if env.goal.kind == "put":
            assert env.goal.target in env.receptacles and env.goal.target != here.name
        else:
            assert env.goal.target in env.rooms and env.goal.target != here.room


def test_seeds_are_deterministic_and_differ():
    env = TextNavEnv()
    houses = []
    for seed in range(30):
        obs, _ = env.reset(seed=seed)
        houses.append(obs)
    assert len(set(houses)) == 30
    again = TextNavEnv()
    assert again.reset(seed=11)[0] == houses[11]
    kinds = set()
    for seed in range(30):
        env.reset(seed=seed)
        kinds.add(env.goal.kind)
    assert kinds == {"put", "bring"}


# -- rules ----------------------------------------------------------------------------


def test_first_observation_states_goal_room_and_legal_actions():
    env = gym.make(ID)
    obs, info = env.reset(seed=0)
    assert info["instruction"] in obs
    assert "Goal: bring the apple to the bathroom." in obs
    assert obs.endswith(
        "You are in the hallway. Doors: to the study (open). You see a shoe rack (a banana "
        "and a hammer on it) and a coat closet (nothing in it). You are carrying nothing."
    )
    assert info["legal_actions"] == [
        "look",
        "inventory",
        "go to study",
        "take banana",
        "take hammer",
    ]


def test_bring_goal_hand_played():
    env = gym.make(ID)
    env.reset(seed=0)
    outs = play(env, ["go to study", "go to bedroom", "take apple", "go to study"])
    assert [o[1] for o in outs] == [0.0] * 4 and not any(o[2] for o in outs)
    assert "You take the apple from the bed." in outs[2][0]
    assert "You are carrying an apple." in outs[3][0]
    obs, reward, terminated, truncated, info = env.step("go to bathroom")
    assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)
    assert obs == "You go to the bathroom. Goal complete!"
    assert info["legal_actions"] == []


def test_put_goal_with_closed_container_and_closed_door():
    env = gym.make(ID)
    obs, info = env.reset(seed=24)
    assert "Goal: put the plate in the wardrobe (in the bedroom)." in obs
    obs, *_ = env.step("go to bathroom")
    assert "a medicine cabinet (closed)" in obs and "plate" not in obs.split("\n")[1]
    assert "to the laundry room (closed)" in obs
    obs, _, _, _, info = env.step("go to laundry room")
    assert info["invalid_action"]
    assert "the door to the laundry room is closed; open it first" in obs
    obs, _, _, _, info = env.step("take plate")
    assert info["invalid_action"] and "closed containers hide what is inside" in obs
    obs, _, _, _, info = env.step("open door to laundry room")
    assert "go to laundry room" in info["legal_actions"]
    assert env.unwrapped.door_open("bathroom", "laundry room")
    obs, _, _, _, info = env.step("Open the Medicine Cabinet")
    assert obs.startswith("You open the medicine cabinet. Inside you see a plate.")
    assert "take plate" in info["legal_actions"]
    obs, _, _, _, info = env.step("pick up the plate")
    assert not info["invalid_action"] and env.unwrapped.location["plate"] == CARRIED
    assert "put plate on sink" in info["legal_actions"]
    outs = play(env, ["go to bedroom", "open wardrobe"])
    assert "put plate in wardrobe" in outs[-1][4]["legal_actions"]
    obs, reward, terminated, _, info = env.step("put the plate on the wardrobe")
    # The wrong preposition is forgiven; the canonical form says "in".
    assert obs == "You put the plate in the wardrobe. Goal complete!"
    assert (reward, terminated, info["success"]) == (1.0, True, True)


def test_putting_elsewhere_and_inventory_and_look():
    env = gym.make(ID)
    env.reset(seed=0)
    obs, *_ = env.step("take banana")
    obs, *_ = env.step("inventory")
    assert obs.startswith("You are carrying a banana.")
    env.step("take hammer")
    obs, *_ = env.step("i")
    assert obs.startswith("You are carrying a banana and a hammer.")
    obs, reward, terminated, _, info = env.step("put banana in coat closet")
    assert obs.startswith("You put the banana in the coat closet.")
    assert env.unwrapped.location["banana"] == "coat closet"
    assert (reward, terminated, info["invalid_action"]) == (0.0, False, False)
    obs, *_ = env.step("look")
    assert "a coat closet (a banana in it)" in obs


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("go to garden", "no door leads from the hallway to the garden; doors lead to: study"),
        ("go to kitchen", "there is no room called 'kitchen'"),
        ("go to hallway", "you are already in the hallway"),
        ("open door to study", "the door to the study is already open"),
        ("open coat closet", "the coat closet is already open"),
        ("open shoe rack", "the shoe rack has no lid"),
        ("open fridge", "there is no 'fridge' here that you can open"),
        ("take apple", "you see no 'apple' here"),
        ("put apple on shoe rack", "you can only put an object you carry"),
        ("dance", "unknown command"),
    ],
)
def test_invalid_actions_say_why(action, reason):
    env = gym.make(ID)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["invalid_action"] and reward == 0.0 and not (terminated or truncated)
    assert reason in info["invalid_reason"] and reason in obs
    assert env.unwrapped.room == "hallway"


def test_step_cost():
    env = gym.make(ID, step_cost=0.01)
    env.reset(seed=0)
    outs = play(env, ["look", "go to study", "go to bedroom", "take apple", "go to study"])
    assert [o[1] for o in outs] == [-0.01] * 5
    assert env.step("go to bathroom")[1] == 1.0


def test_state_key_tracks_room_doors_containers_and_objects():
    env = gym.make(ID)
    _, info = env.reset(seed=24)
    keys = {info["state_key"]}
    for action in ["look", "go to bathroom", "open door to laundry room", "open medicine cabinet"]:
        *_, info = env.step(action)
        keys.add(info["state_key"])
    assert len(keys) == 4  # "look" changes nothing
    *_, info = env.step("take plate")
    assert "plate@inventory" in info["state_key"]


def test_render_ansi_shows_the_whole_house():
    env = gym.make(ID, render_mode="ansi")
    env.reset(seed=24)
    text = env.render()
    assert "dining room (you are here): doors to bathroom, study" in text
    assert "  medicine cabinet [closed]: plate" in text
    assert "laundry room: doors to bathroom [closed]" in text


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_rooms": 2}, "num_rooms must be an int from 3 to 10, got 2"),
        ({"num_rooms": 11}, "num_rooms must be an int from 3 to 10"),
        ({"num_rooms": 4.0}, "num_rooms must be an int"),
        ({"num_objects": 0}, "num_objects must be an int from 1 to 10, got 0"),
        ({"num_objects": True}, "num_objects must be an int"),
        ({"closed_door_prob": 1.5}, r"closed_door_prob must be in \[0, 1\]"),
        ({"step_cost": -0.01}, r"step_cost must be in \[0, 1\]"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make(ID, **kwargs)


# -- expert ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs", [{}, {"num_rooms": 10, "num_objects": 10, "closed_door_prob": 1.0}]
)
def test_expert_on_200_seeds(kwargs):
    result = evaluate(ID, make_expert, episodes=200, env_kwargs=kwargs)
    assert all(e.invalid == 0 for e in result.episodes)
    assert result.success_rate >= 0.95  # measured: 1.0 (mean 5.4 / 10.5 steps)
    assert result.mean_return == result.success_rate


def test_random_agent_does_worse():
    rand = evaluate(ID, lambda env: RandomAgent(seed=0), episodes=50, env_kwargs={"num_rooms": 8})
    assert rand.success_rate <= 0.3  # measured: 0.02 (expert: 1.0)


def test_expert_rejects_other_envs():
    with pytest.raises(TypeError, match="needs a TextNavEnv"):
        TextNavExpert(gym.make("turngym/Bandit-v0"))

from __future__ import annotations

import gymnasium as gym
import pytest

import turngym  # noqa: F401
from turngym.agents.experts.babyai_text import BabyAITextExpert
from turngym.envs.text.babyai_text import ACTIONS, BabyAITextEnv, Door, Thing
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/BabyAIText-v0"


def board(mission: str, kind: str, targets: tuple[str, ...], **kwargs) -> BabyAITextEnv:
    """A 6x6 room (grid 8x8) with a hand-placed layout; the agent at (3,3) facing east.

    Objects: red ball (5,3), blue key (3,5), green box (1,1); a locked blue door at
    (7,3) (east wall) and a closed yellow door at (3,0) (north wall).
    """
    env = BabyAITextEnv(render_mode="ansi", **kwargs)
    env.reset(seed=0)
    env.walls = {(x, y) for x in range(8) for y in range(8) if x in (0, 7) or y in (0, 7)}
    env.walls -= {(7, 3), (3, 0)}
    env.objects = {
        (5, 3): Thing("ball", "red"),
        (3, 5): Thing("key", "blue"),
        (1, 1): Thing("box", "green"),
    }
    env.doors = {(7, 3): Door("blue", "locked"), (3, 0): Door("yellow", "closed")}
    env.agent_pos, env.agent_dir, env.carrying = (3, 3), 0, None
    env.mission, env.mission_kind, env.targets = mission, kind, targets
    return env


# -- conformance ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"mission": "putnext"}, {"num_rooms": 2, "room_size": 5, "num_objects": 6}],
)
def test_conformance(kwargs):
    check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs, reset_episodes=20, expert_episodes=10)


@pytest.mark.parametrize("mission", ["goto", "pickup", "open", "putnext"])
def test_expert_solves_each_family_on_200_seeds(mission):
    result = evaluate(ID, BabyAITextExpert, episodes=200, env_kwargs={"mission": mission})
    assert result.success_rate >= 0.95
    assert all(e.invalid == 0 for e in result.episodes)
    assert result.mean_return > 0.6


def test_expert_two_rooms_with_locked_doors():
    kwargs = {"num_rooms": 2, "max_steps": 128, "max_episode_steps": 128}
    result = evaluate(ID, BabyAITextExpert, episodes=100, env_kwargs=kwargs)
    assert result.success_rate >= 0.95
    assert all(e.invalid == 0 for e in result.episodes)


# -- constructor ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mission": "fetch"}, r"mission must be one of \['goto', 'pickup', 'open', 'putnext'"),
        ({"room_size": 4}, "room_size must be an int in 5..8"),
        ({"num_rooms": 3}, r"num_rooms must be one of \[1, 2\]"),
        ({"num_objects": 1}, "num_objects must be an int in 2..6"),
        ({"max_steps": 0}, "max_steps must be an int"),
    ],
)
def test_bad_kwargs_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BabyAITextEnv(**kwargs)


# -- missions and determinism ----------------------------------------------------------


@pytest.mark.parametrize(
    ("mission", "prefix"),
    [
        ("goto", "go to the "),
        ("pickup", "pick up the "),
        ("open", "open the "),
        ("putnext", "put the "),
    ],
)
def test_mission_family_restricts_goals(mission, prefix):
    env = gym.make(ID, mission=mission)
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        assert info["goal"].startswith(prefix)
        assert f"Your mission: {info['goal']}." in obs
        assert info["achieved_goal"] == ""


def test_mixed_draws_every_family_and_seeds_are_deterministic():
    env = gym.make(ID)
    goals = [env.reset(seed=s)[1]["goal"] for s in range(60)]
    assert {g.split(" the ")[0] for g in goals} == {"go to", "pick up", "open", "put"}
    again = [gym.make(ID).reset(seed=s)[1]["goal"] for s in range(60)]
    assert goals == again
    states = {env.reset(seed=s)[1]["state_key"] for s in range(30)}
    assert len(states) == 30


def test_two_rooms_have_a_connecting_door_and_keys_for_locked_doors():
    env = BabyAITextEnv(num_rooms=2, room_size=5)
    for seed in range(30):
        env.reset(seed=seed)
        assert list(env.doors) and all(pos[0] == 6 for pos in env.doors)
        assert env.room_of(env.agent_pos) == 0
        for door in env.doors.values():
            if door.state == "locked":
                key = env.find(f"{door.color} key")
                assert key is not None and env.room_of(key) == 0


# -- rules on a hand-built room -------------------------------------------------------------


def test_observation_describes_the_view_and_carried_object():
    env = board("go to the red ball", "goto", ("red ball",))
    # Facing east from (3,3): the green box at (1,1) is behind, out of view; the wall
    # ahead is behind the blue door, the left one beyond the view's 3 columns.
    assert env._describe() == (
        "You see a blue key 2 steps right.\n"
        "You see a red ball 2 steps forward.\n"
        "You see a closed yellow door 3 steps left.\n"
        "You see a locked blue door 4 steps forward.\n"
        "You see a wall 5 steps forward.\n"
        "You carry nothing."
    )
    env.agent_dir, env.carrying = 3, Thing("ball", "grey")  # north
    assert env._describe() == (
        "You see a red ball 2 steps right.\n"
        "You see a closed yellow door 3 steps forward.\n"
        "You see a green box 2 steps left and 2 steps forward.\n"
        "You see a wall 4 steps forward.\n"
        "You see a wall 3 steps left.\n"
        "You carry the grey ball."
    )


def test_hindsight_go_to_another_object():
    env = board("go to the blue key", "goto", ("blue key",), max_steps=10)
    obs, reward, terminated, _, info = env.step("go forward")
    assert obs.startswith("You go forward.")
    assert (reward, terminated, info["achieved_goal"]) == (0.0, False, "go to the red ball")
    assert env.compute_reward(info["achieved_goal"], info["achieved_goal"]) == 1.0
    assert env.compute_reward(info["achieved_goal"], info["goal"]) == 0.0


def test_goto_achieved_on_arrival_ends_episode():
    env = board("go to the red ball", "goto", ("red ball",), max_steps=10)
    env.agent_dir = 1  # south
    _, reward, terminated, _, info = env.step("turn left")  # now east, ball 2 ahead
    assert info["achieved_goal"] == ""
    assert not terminated
    _, reward, terminated, _, info = env.step("go forward")  # ball right in front
    assert info["achieved_goal"] == "go to the red ball"
    assert info["goal"] == "go to the red ball"
    assert terminated and info["success"]
    assert reward == pytest.approx(1 - 0.9 * 2 / 10)


def test_blocked_forward_and_pick_up_and_drop():
    env = board("pick up the red ball", "pickup", ("red ball",))
    env.step("go forward")
    obs, _, _, _, info = env.step("go forward")
    assert obs.startswith("You cannot go forward: the red ball is in the way.")
    assert env.agent_pos == (4, 3) and not info["invalid_action"]
    obs, reward, terminated, _, info = env.step("drop")
    assert obs.startswith("You carry nothing to drop.")
    obs, reward, terminated, _, info = env.step("pick up")
    assert obs.startswith("You pick up the red ball.")
    assert info["achieved_goal"] == "pick up the red ball"
    assert terminated and info["success"]
    assert reward == pytest.approx(1 - 0.9 * 4 / 64)
    assert env.carrying == Thing("ball", "red")
    assert "You carry the red ball." in obs


def test_hindsight_picking_up_another_object():
    env = board("pick up the red ball", "pickup", ("red ball",))
    env.agent_dir = 1  # south: the blue key is 2 ahead
    env.step("go forward")
    obs, reward, terminated, _, info = env.step("pick up")
    achieved = info["achieved_goal"]
    assert achieved == "pick up the blue key"
    assert info["goal"] == "pick up the red ball"
    assert achieved != info["goal"]
    assert (reward, terminated) == (0.0, False)
    assert env.compute_reward(achieved, info["goal"]) == 0.0
    assert env.compute_reward(achieved, achieved) == 1.0
    # Through a gym.make wrapper stack the method is on the unwrapped env.
    wrapped = gym.make(ID)
    assert wrapped.unwrapped.compute_reward(achieved, achieved) == 1.0
    # Carrying one thing at a time.
    env.agent_dir = 2
    obs, _, _, _, info = env.step("pick up")
    assert obs.startswith("There is nothing to pick up")


def test_put_next_is_achieved_by_dropping_beside_the_other_object():
    env = board("put the blue key next to the red ball", "putnext", ("blue key", "red ball"))
    env.agent_dir = 1
    env.step("go forward")  # (3,4), facing the key
    env.step("pick up")
    _, _, _, _, info = env.step("turn left")  # east
    assert info["achieved_goal"] == ""
    obs, reward, terminated, _, info = env.step("drop")  # onto (4,4): beside nothing
    assert obs.startswith("You drop the blue key.")
    assert (info["achieved_goal"], terminated) == ("", False)
    env.step("pick up")
    env.step("turn left")  # north: (3,3) is free, beside nothing
    env.step("go forward")  # (3,3)
    env.step("turn right")  # east: (4,3) is beside the ball at (5,3)
    obs, reward, terminated, _, info = env.step("drop")
    assert info["achieved_goal"] == "put the blue key next to the red ball"
    assert terminated and info["success"]
    assert reward == pytest.approx(1 - 0.9 * 9 / 64)


def test_dropping_on_an_occupied_cell_is_refused():
    env = board("go to the red ball", "goto", ("red ball",))
    env.carrying = Thing("ball", "purple")
    env.agent_pos = (4, 3)
    obs, _, _, _, info = env.step("drop")
    assert obs.startswith("You cannot drop here: the red ball is in front of you.")
    assert env.carrying == Thing("ball", "purple") and not info["invalid_action"]


def test_doors_locked_closed_open():
    env = board("open the blue door", "open", ("blue door",))
    env.agent_pos = (6, 3)
    obs, reward, terminated, _, info = env.step("toggle")
    assert obs.startswith("The blue door is locked; you need the blue key.")
    assert env.doors[(7, 3)].state == "locked" and not terminated
    obs, _, _, _, _ = env.step("go forward")
    assert obs.startswith("You cannot go forward: the locked blue door is in the way.")
    env.carrying = Thing("key", "blue")
    obs, reward, terminated, _, info = env.step("toggle")
    assert obs.startswith("You unlock and open the blue door.")
    assert info["achieved_goal"] == "open the blue door"
    assert terminated and reward == pytest.approx(1 - 0.9 * 3 / 64)


def test_closed_door_opens_closes_and_lets_the_agent_through():
    env = board("open the blue door", "open", ("blue door",))
    env.agent_pos, env.agent_dir = (3, 1), 3  # facing the yellow door to the north
    obs, _, terminated, _, info = env.step("toggle")
    assert obs.startswith("You open the yellow door.")
    assert info["achieved_goal"] == "open the yellow door" and not terminated
    env.step("go forward")
    assert env.agent_pos == (3, 0)
    obs, _, _, _, _ = env.step("go forward")  # beyond the outer door is outside
    assert obs.startswith("You cannot go forward: a wall is in the way.")
    env.step("turn left")
    env.step("turn left")
    env.step("go forward")
    env.step("turn left")
    env.step("turn left")
    obs, _, _, _, info = env.step("toggle")
    assert obs.startswith("You close the yellow door.")
    assert info["achieved_goal"] == "" and env.doors[(3, 0)].state == "closed"
    obs, _, _, _, _ = env.step("toggle")
    env.agent_dir = 0
    obs, _, _, _, _ = env.step("toggle")
    assert obs.startswith("There is no door in front of you to toggle.")


def test_lenient_and_invalid_actions():
    env = board("go to the red ball", "goto", ("red ball",), max_invalid_actions=2)
    for action in ["Turn Right", "  turn   left ", "RIGHT", "left"]:
        _, _, _, _, info = env.step(action)
        assert not info["invalid_action"]
    assert env.agent_dir == 0
    obs, _, _, truncated, info = env.step("jump")
    assert info["invalid_action"] and not truncated
    assert info["achieved_goal"] == "" and info["goal"] == "go to the red ball"
    assert "turn left, turn right, go forward, pick up, drop, toggle" in obs
    assert info["legal_actions"] == list(ACTIONS)
    _, _, _, truncated, _ = env.step("")
    assert truncated


def test_out_of_steps_truncates_without_reward():
    env = board("go to the red ball", "goto", ("red ball",), max_steps=3)
    env.agent_dir = 2
    for _ in range(2):
        _, reward, terminated, truncated, _ = env.step("turn left")
        assert not truncated
    obs, reward, terminated, truncated, info = env.step("toggle")
    assert (reward, terminated, truncated, info["success"]) == (0.0, False, True, False)
    assert "Out of steps (3)" in obs


def test_render_shows_the_grid():
    env = board("go to the red ball", "goto", ("red ball",))
    text = env.render()
    assert text.splitlines()[0] == "## ## ## D" + "y ## ## ## ##"
    assert text.splitlines()[3] == "## .. .. >> .. Br .. Lb"
    assert text.endswith("mission: go to the red ball; carrying: nothing")

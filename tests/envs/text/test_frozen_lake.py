from __future__ import annotations

from collections import Counter

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401
from turngym.agents import RandomAgent, make_expert
from turngym.agents.experts.frozen_lake import FrozenLakeExpert
from turngym.envs.text.frozen_lake import (
    FIXED_MAPS,
    FrozenLakeEnv,
    goal_text,
    reachable,
    reachable_cells,
)
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/FrozenLake-v0"


def rollouts(make_agent, episodes: int = 200, **kwargs) -> tuple[float, float, list[int]]:
    """Success rate, mean return and episode lengths over seeds 0..episodes-1 (no invalids)."""
    result = evaluate(ID, make_agent, episodes=episodes, env_kwargs=kwargs)
    assert all(e.invalid == 0 for e in result.episodes)
    return result.success_rate, result.mean_return, [e.steps for e in result.episodes]


# -- conformance ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"size": 8},
        {"map": "random"},
        {"is_slippery": True},
        {"size": 8, "map": "random", "is_slippery": True, "hole_prob": 0.3},
        {"goal": "random"},
        {"goal": "random", "size": 8, "map": "random"},
        {"goal": "random", "is_slippery": True},
    ],
)
def test_conformance(kwargs):
    check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs, expert_episodes=20)


# -- rules ----------------------------------------------------------------------------


def test_first_observation_states_task_legend_and_board():
    env = gym.make(ID)
    obs, info = env.reset(seed=0)
    assert info["instruction"] in obs
    assert "H hole" in obs and "P you" in obs
    assert "P F F F\nF H F H\nF F F H\nH F F G" in obs
    assert info["legal_actions"] == ["left", "down", "right", "up"]
    assert info["state_key"] == "SFFF/FHFH/FFFH/HFFG@0,0"


def test_shortest_path_reaches_goal_with_reward_one():
    env = gym.make(ID)
    env.reset(seed=0)
    rewards = []
    for move in ["down", "down", "right", "right", "down"]:
        obs, reward, terminated, _, info = env.step(move)
        rewards.append(reward)
        assert not terminated
    obs, reward, terminated, truncated, info = env.step("right")
    assert rewards == [0.0] * 5
    assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)
    assert "reached the goal" in obs
    assert info["legal_actions"] == []


def test_hole_ends_episode_without_success():
    env = gym.make(ID)
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step("down")
    assert env.unwrapped.pos == (1, 0) and not terminated
    assert "S F F F\nP H F H" in obs
    obs, reward, terminated, truncated, info = env.step("right")
    assert (reward, terminated, truncated, info["success"]) == (0.0, True, False, False)
    assert "fell into a hole" in obs
    assert "F P F H" in obs  # you are drawn where you fell


def test_edge_keeps_you_in_place_and_leniency():
    env = gym.make(ID)
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step("  LEFT ")
    assert env.unwrapped.pos == (0, 0) and not info["invalid_action"]
    assert "edge" in obs and reward == 0.0 and not terminated
    env.step("Move Right")
    assert env.unwrapped.pos == (0, 1)


def test_invalid_action_is_explained_and_harmless():
    env = gym.make(ID)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("fly north")
    assert info["invalid_action"] and not terminated and not truncated
    assert reward == 0.0 and "left, down, right, up" in obs
    assert env.unwrapped.pos == (0, 0)


def test_penalty_and_truncation_after_repeated_invalid_actions():
    env = gym.make(ID, invalid_action_penalty=-0.5, max_invalid_actions=3)
    env.reset(seed=0)
    outs = [env.step("jump") for _ in range(3)]
    assert [o[1] for o in outs] == [-0.5, -0.5, -0.5]
    assert [o[3] for o in outs] == [False, False, True]


def test_slippery_moves_follow_the_one_third_rule():
    env = FrozenLakeEnv(size=8, is_slippery=True)
    env.reset(seed=0)
    # From (1, 1) on the 8x8 map "down" may go left, down or right, never up.
    assert env.transitions((1, 1), 1) == [(1 / 3, (1, 0)), (1 / 3, (2, 1)), (1 / 3, (1, 2))]
    seen: Counter[tuple[int, int]] = Counter()
    for seed in range(600):
        env.reset(seed=seed)
        env.pos = (1, 1)
        obs, *_ = env.step("down")
        seen[env.pos] += 1
        if env.pos != (2, 1):
            assert "slipped" in obs
    assert set(seen) == {(1, 0), (2, 1), (1, 2)}
    assert all(150 <= count <= 250 for count in seen.values()), seen


def test_not_slippery_is_deterministic_across_seeds():
    env = FrozenLakeEnv(size=8)
    ends = set()
    for seed in range(20):
        env.reset(seed=seed)
        for move in ["right", "right", "down", "down"]:
            env.step(move)
        ends.add(env.pos)
    assert ends == {(2, 2)}


def test_fixed_maps_are_the_classic_ones():
    assert FrozenLakeEnv(size=8).transitions((0, 0), 3) == [(1.0, (0, 0))]
    env = gym.make(ID, size=8)
    env.reset(seed=5)
    assert env.unwrapped.desc == FIXED_MAPS[8]
    assert FIXED_MAPS[4] == ("SFFF", "FHFH", "FFFH", "HFFG")


def test_random_maps_are_solvable_seeded_and_varied():
    env = FrozenLakeEnv(size=8, map="random", hole_prob=0.5)
    maps = []
    for seed in range(100):
        env.reset(seed=seed)
        desc = env.desc
        assert desc[0][0] == "S" and desc[7][7] == "G"
        assert reachable(desc)
        maps.append(desc)
    assert len(set(maps)) == 100
    holes = np.mean([row.count("H") for desc in maps for row in desc]) / 8
    assert 0.35 < holes < 0.5  # 0.5 before rejecting unsolvable maps
    again = FrozenLakeEnv(size=8, map="random", hole_prob=0.5)
    again.reset(seed=42)
    assert again.desc == maps[42]


def test_random_map_without_holes_and_reachable_helper():
    env = FrozenLakeEnv(map="random", hole_prob=0.0)
    env.reset(seed=1)
    assert env.desc == ("SFFF", "FFFF", "FFFF", "FFFG")
    assert not reachable(("SFH", "FHF", "HFG"))
    assert reachable(("SFH", "FFF", "HFG"))


def test_state_key_changes_with_position_and_map():
    env = FrozenLakeEnv(map="random")
    _, info0 = env.reset(seed=0)
    _, info1 = env.reset(seed=1)
    assert info0["state_key"] != info1["state_key"]
    *_, info = env.step("right")
    assert info["state_key"] == f"{'/'.join(env.desc)}@0,1"


def test_render_ansi():
    env = gym.make(ID, render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == "P F F F\nF H F H\nF F F H\nH F F G\nYou are at row 0, column 0 (S)."


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 5}, "size must be 4 or 8, got 5"),
        ({"map": "maze"}, "map must be 'fixed' or 'random'"),
        ({"hole_prob": 0.9}, r"hole_prob must be in \[0, 0.5\]"),
        ({"hole_prob": -0.1}, "hole_prob must be in"),
        ({"is_slippery": "yes"}, "is_slippery must be True or False"),
        ({"goal": "any"}, "goal must be 'fixed' or 'random'"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make(ID, **kwargs)


# -- goal-conditioned mode ------------------------------------------------------------


def test_fixed_goal_mode_reports_no_goal_keys():
    env = gym.make(ID)
    _, info = env.reset(seed=0)
    *_, info2 = env.step("right")
    assert not {"goal", "achieved_goal"} & (set(info) | set(info2))
    assert env.unwrapped.goal_pos == (3, 3)


def test_goal_mode_draws_reachable_frozen_goals_from_the_seed():
    env = FrozenLakeEnv(goal="random")
    cells = [p for p in reachable_cells(FIXED_MAPS[4]) if p != (0, 0)]
    assert len(cells) == 11  # every frozen cell but S, the classic G included
    goals = []
    for seed in range(300):
        _, info = env.reset(seed=seed)
        assert env.goal_pos in cells and info["goal"] == goal_text(env.goal_pos)
        assert env.desc == ("SFFF", "FHFH", "FFFH", "HFFF")  # no G on the board
        goals.append(env.goal_pos)
    assert set(goals) == set(cells)
    again = FrozenLakeEnv(goal="random")
    assert [again.reset(seed=s)[1]["goal"] for s in range(20)] == [goal_text(g) for g in goals[:20]]


def test_goal_mode_random_maps_goals_are_reachable():
    env = FrozenLakeEnv(goal="random", map="random", size=8, hole_prob=0.5)
    for seed in range(50):
        env.reset(seed=seed)
        assert env.goal_pos != (0, 0) and env.cell(env.goal_pos) == "F"
        assert env.goal_pos in reachable_cells(env.desc)


def test_goal_mode_observations_name_the_goal_every_turn():
    env = gym.make(ID, goal="random")
    obs, info = env.reset(seed=0)
    assert info["goal"] == "reach row 3, column 2"
    assert "Your goal: reach row 3, column 2." in obs and "your goal cell" in obs
    assert "G goal" not in obs and " G" not in obs.split("\n\n")[1]
    for move in ["down", "right"]:
        obs, *_ = env.step(move)
        assert "Your goal: reach row 3, column 2." in obs
    assert info["state_key"] == "SFFF/FHFH/FFFH/HFFF@0,0>3,2"


def test_goal_mode_goal_achieved_goal_and_compute_reward():
    env = gym.make(ID, goal="random")
    _, info = env.reset(seed=0)  # goal (3, 2)
    assert info["achieved_goal"] == ""  # S is never a goal, so standing on it achieves none
    compute_reward = env.unwrapped.compute_reward
    path = ["down", "down", "right", "down", "right"]
    for i, move in enumerate(path):
        obs, reward, terminated, _, info = env.step(move)
        assert info["goal"] == "reach row 3, column 2"
        assert info["achieved_goal"] == goal_text(env.unwrapped.pos)
        want = compute_reward(info["achieved_goal"], info["goal"])
        assert reward == want and terminated == (i == len(path) - 1)
    assert (reward, info["success"], "reached the goal" in obs) == (1.0, True, True)
    assert env.unwrapped.pos == (3, 2)
    # an invalid action leaves the achieved cell as it was
    env.reset(seed=0)
    *_, info = env.step("jump")
    assert info["invalid_action"] and info["achieved_goal"] == ""
    assert FrozenLakeEnv.compute_reward(" Reach row 3, column 2", "reach row 3, column 2") == 1.0
    assert FrozenLakeEnv.compute_reward("reach row 2, column 3", "reach row 3, column 2") == 0.0
    assert FrozenLakeEnv.compute_reward("", "reach row 3, column 2") == 0.0
    assert FrozenLakeEnv.compute_reward(None, "reach row 3, column 2") == 0.0


def test_goal_mode_passing_the_classic_goal_or_falling_in_a_hole():
    env = FrozenLakeEnv(goal="random")
    seed = next(s for s in range(100) if env.reset(seed=s)[1]["goal"] == "reach row 0, column 1")
    env.reset(seed=seed)
    env.pos = (3, 2)
    obs, reward, terminated, _, info = env.step("right")  # the classic G: plain ice now
    assert (reward, terminated, info["achieved_goal"]) == (0.0, False, "reach row 3, column 3")
    env.reset(seed=seed)
    env.step("down")
    obs, reward, terminated, _, info = env.step("right")
    assert (reward, terminated, info["success"]) == (0.0, True, False)
    # a hole is never a goal: falling in achieves none (so hindsight never rewards it)
    assert "fell into a hole" in obs and info["achieved_goal"] == ""


def test_goal_mode_relabelled_text_stays_consistent():
    from turngym.sdk.replay import substitute_goal

    env = FrozenLakeEnv(goal="random")
    obs, info = env.reset(seed=0)
    new = substitute_goal(obs, info["goal"], "reach row 0, column 1")
    assert "Your goal: reach row 0, column 1." in new
    assert new.replace("reach row 0, column 1", info["goal"]) == obs  # nothing else moved


@pytest.mark.parametrize("kwargs", [{}, {"size": 8, "map": "random"}])
def test_expert_reaches_the_drawn_goal(kwargs):
    success, mean_return, _ = rollouts(make_expert, goal="random", **kwargs)
    assert success == 1.0 and mean_return == 1.0


def test_expert_beats_random_on_slippery_goal_mode():
    expert, *_ = rollouts(make_expert, goal="random", is_slippery=True)
    rand, *_ = rollouts(lambda env: RandomAgent(seed=0), goal="random", is_slippery=True)
    # measured: expert 0.94, random 0.18
    assert expert - rand >= 0.5, (expert, rand)


# -- expert ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", [4, 8])
@pytest.mark.parametrize("kind", ["fixed", "random"])
def test_expert_solves_solid_ice_on_200_seeds(size, kind):
    success, mean_return, lengths = rollouts(make_expert, size=size, map=kind)
    assert success >= 0.95  # measured: 1.0 in all four settings
    assert mean_return == success
    # Any path needs at least 2 * (size - 1) moves; BFS never wanders.
    assert min(lengths) == 2 * (size - 1)
    if kind == "fixed":
        assert set(lengths) == {2 * (size - 1)}


def test_expert_beats_random_on_slippery_4x4_fixed():
    expert, *_ = rollouts(make_expert, is_slippery=True)
    rand, *_ = rollouts(lambda env: RandomAgent(seed=0), is_slippery=True)
    # measured: expert 0.755 (optimum under the 100-step limit is 0.744), random 0.015
    assert expert - rand >= 0.6


def test_expert_beats_random_on_slippery_8x8_fixed():
    expert, *_ = rollouts(make_expert, size=8, is_slippery=True)
    rand, *_ = rollouts(lambda env: RandomAgent(seed=0), size=8, is_slippery=True)
    # measured: expert 0.625 (optimum under the 100-step limit is 0.641), random 0.0
    assert expert - rand >= 0.5


def test_expert_beats_random_on_slippery_random_maps():
    expert, *_ = rollouts(make_expert, map="random", is_slippery=True)
    rand, *_ = rollouts(lambda env: RandomAgent(seed=0), map="random", is_slippery=True)
    # measured: expert 0.91, random 0.17
    assert expert - rand >= 0.6


def test_expert_rejects_other_envs():
    with pytest.raises(TypeError, match="needs a FrozenLakeEnv"):
        FrozenLakeExpert(gym.make("turngym/Bandit-v0"))

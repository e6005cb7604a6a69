from __future__ import annotations

from collections import deque

import gymnasium as gym
import pytest

import turngym  # noqa: F401
from turngym.agents import RandomAgent, make_expert
from turngym.agents.experts.maze import MazeExpert
from turngym.envs.text.maze import MOVES, MazeEnv, carve_maze
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/Maze-v0"


def open_cells(grid: tuple[str, ...]) -> set[tuple[int, int]]:
    return {(r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "."}


def is_perfect_maze(grid: tuple[str, ...]) -> bool:
    """Connected and a tree: edges between open cells == cells - 1."""
    cells = open_cells(grid)
    edges = sum((r + 1, c) in cells for r, c in cells) + sum((r, c + 1) in cells for r, c in cells)
    start = next(iter(cells))
    seen = {start}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for dr, dc in MOVES.values():
            nxt = (r + dr, c + dc)
            if nxt in cells and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen == cells and edges == len(cells) - 1


# -- conformance ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"observability": "partial"}, {"size": 5}, {"size": 15, "observability": "partial"}],
)
def test_conformance(kwargs):
    check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs, reset_episodes=20, expert_episodes=10)


# -- rules ----------------------------------------------------------------------------


def test_carved_mazes_are_perfect_with_every_room_open():
    env = MazeEnv(size=21)
    for seed in range(30):
        env.reset(seed=seed)
        grid = env.grid
        assert len(grid) == 21 and all(len(row) == 21 for row in grid)
        assert grid[0] == "#" * 21 and grid[-1] == "#" * 21
        assert all(row[0] == "#" == row[-1] for row in grid)
        rooms = {(r, c) for r in range(1, 21, 2) for c in range(1, 21, 2)}
        assert rooms <= open_cells(grid)
        assert is_perfect_maze(grid)
        assert env.pos in rooms and env.goal in rooms and env.pos != env.goal


def test_carve_maze_with_a_fixed_choice():
    assert carve_maze(5, lambda n: n - 1) == ("#####", "#...#", "###.#", "#...#", "#####")


def test_full_observation_draws_maze_and_states_goal():
    env = gym.make(ID, size=5)
    obs, info = env.reset(seed=0)
    assert info["instruction"] in obs
    assert "Reach the goal at row 1, column 3" in obs
    assert "# # # # #\n# . . G #\n# # # . #\n# A . . #\n# # # # #" in obs
    assert info["legal_actions"] == ["up", "down", "left", "right"]
    assert info["state_key"] == "3,1"


def test_partial_observation_shows_only_surroundings():
    env = gym.make(ID, size=5, observability="partial")
    obs, _ = env.reset(seed=0)
    assert "# #" not in obs and "A" not in obs.split("\n\n")[-1]
    assert obs.endswith(
        "You are at row 3, column 1. North: wall, south: wall, west: wall, east: open."
    )
    obs, *_ = env.step("right")
    assert obs.endswith(
        "You are at row 3, column 2. North: wall, south: wall, west: open, east: open."
    )
    obs, *_ = env.step("right")
    assert "North: open" in obs
    env.unwrapped.pos = (2, 3)
    assert "North: the goal, south: open" in env.unwrapped.describe_surroundings()


def test_rewards_walls_and_goal():
    env = gym.make(ID, size=5)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("left")
    assert "walked into a wall to the west" in obs and env.unwrapped.pos == (3, 1)
    assert (reward, terminated, info["invalid_action"]) == (-1.0, False, False)
    rewards = [env.step(m)[1] for m in ["right", "right", "up"]]
    assert rewards == [-1.0, -1.0, -1.0]
    obs, reward, terminated, truncated, info = env.step("up")
    assert (reward, terminated, truncated, info["success"]) == (0.0, True, False, True)
    assert "reached the goal" in obs and info["legal_actions"] == []
    assert info["state_key"] == "1,3"


def test_lenient_aliases_and_invalid_actions():
    env = gym.make(ID, size=5)
    env.reset(seed=0)
    env.step(" EAST ")
    assert env.unwrapped.pos == (3, 2)
    env.step("move Left")
    assert env.unwrapped.pos == (3, 1)
    obs, reward, terminated, truncated, info = env.step("jump")
    assert info["invalid_action"] and reward == 0.0 and not (terminated or truncated)
    assert "up, down, left, right" in obs and env.unwrapped.pos == (3, 1)


def test_seeds_are_deterministic_and_differ():
    env = MazeEnv()
    layouts = []
    for seed in range(20):
        env.reset(seed=seed)
        layouts.append((env.grid, env.pos, env.goal))
    assert len(set(layouts)) == 20
    again = MazeEnv()
    again.reset(seed=7)
    assert (again.grid, again.pos, again.goal) == layouts[7]


def test_render_ansi_shows_map_and_surroundings():
    env = gym.make(ID, size=5, observability="partial", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("# # # # #\n# . . G #")
    assert text.endswith("west: wall, east: open.")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 8}, "size must be an odd int from 5 to 21"),
        ({"size": 3}, "size must be an odd int from 5 to 21"),
        ({"size": 23}, "got 23"),
        ({"size": 9.0}, "size must be an odd int"),
        ({"size": True}, "size must be an odd int"),
        ({"observability": "fog"}, "observability must be 'full' or 'partial', got 'fog'"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make(ID, **kwargs)


# -- expert ---------------------------------------------------------------------------


@pytest.mark.parametrize("observability", ["full", "partial"])
def test_expert_walks_shortest_paths_on_200_seeds(observability):
    result = evaluate(ID, make_expert, episodes=200, env_kwargs={"observability": observability})
    assert all(e.invalid == 0 for e in result.episodes)
    assert result.success_rate >= 0.95  # measured: 1.0 (mean return -8.88)
    # Mazes are perfect, so the path is unique: the return is 1 - (its length).
    env = MazeEnv()
    for e in result.episodes[:20]:
        env.reset(seed=e.seed)
        distance = MazeExpert(env)._bfs()[env.pos]
        assert (e.steps, e.ret) == (distance, 1.0 - distance)


def test_expert_on_the_largest_maze_with_a_longer_limit():
    kwargs = {"size": 21, "max_episode_steps": 400}
    result = evaluate(ID, make_expert, episodes=50, env_kwargs=kwargs)
    assert result.success_rate == 1.0 and all(e.invalid == 0 for e in result.episodes)


def test_random_agent_does_much_worse():
    rand = evaluate(ID, lambda env: RandomAgent(seed=0), episodes=50, env_kwargs={"size": 15})
    # measured: 0.04 (expert: 1.0)
    assert rand.success_rate <= 0.3


def test_expert_rejects_other_envs():
    with pytest.raises(TypeError, match="needs a MazeEnv"):
        MazeExpert(gym.make("turngym/Bandit-v0"))

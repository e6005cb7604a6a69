"""Tests of the Sokoban expert: the A* planner and 200-seed success."""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401  (registers the ids)
from turngym.agents import Agent, RandomAgent, make_expert
from turngym.agents.experts.sokoban import SokobanExpert, solve
from turngym.envs.text.sokoban_levels import Level, apply_move
from turngym.sdk.evaluation import play_episode

ID = "turngym/Sokoban-v0"
SEEDS = range(200)


def play(env: gym.Env, agent: Agent, seed: int) -> tuple[bool, float, int]:
    stats = play_episode(env, agent, seed)
    assert stats.invalid == 0, seed
    return stats.success, stats.ret, stats.steps


@pytest.mark.parametrize(
    "kwargs", [{}, {"dim": 10, "num_boxes": 3}], ids=["default", "hardest-10x10-3boxes"]
)
def test_expert_solves_200_seeds(kwargs: dict) -> None:
    env = gym.make(ID, **kwargs)
    expert = make_expert(env)
    assert isinstance(expert, SokobanExpert)
    start = time.perf_counter()
    results = [play(env, expert, seed) for seed in SEEDS]
    seconds = time.perf_counter() - start
    success = np.mean([r[0] for r in results])
    steps = [r[2] for r in results]
    assert success >= 0.95
    # Solutions stay well inside the 100-step limit...
    assert max(steps) <= 60
    # ...and every success is worth at least the +10 bonus + one +1 minus the steps.
    for ok, total, n in results:
        if ok:
            assert total >= 11.0 - 0.1 * n - 1e-9
    assert seconds / len(SEEDS) < 0.2


def test_expert_beats_random_by_far() -> None:
    env = gym.make(ID)
    expert = make_expert(env)
    random_agent = RandomAgent(seed=0)
    seeds = range(30)
    expert_mean = np.mean([play(env, expert, s)[1] for s in seeds])
    random_mean = np.mean([play(env, random_agent, s)[1] for s in seeds])
    assert expert_mean - random_mean >= 5.0


def test_expert_replans_after_a_detour() -> None:
    env = gym.make(ID, dim=8, num_boxes=2)
    expert = SokobanExpert(env)
    rng = np.random.default_rng(0)
    wins = 0
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        done = False
        t = 0
        while not done:
            # Every 4th move is random; the expert must notice and replan.
            if t % 4 == 3:
                action = ["up", "down", "left", "right"][int(rng.integers(4))]
            else:
                action = expert.act(obs, info)
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            t += 1
        wins += info["success"]
    # Random moves can wedge a box for good; most episodes must still be won.
    assert wins >= 14


def test_solve_finds_shortest_plans() -> None:
    assert solve(Level.from_text("######\n#P_XO#\n######")) == ["right", "right"]
    # Walk around the box to push it left.
    level = Level.from_text("######\n#____#\n#OX_P#\n######")
    assert solve(level) == ["left", "left"]
    level = Level.from_text("######\n#_P__#\n#OX__#\n######")
    plan = solve(level)
    assert plan == ["right", "down", "left"]
    final = level
    for move in plan:
        final = apply_move(final, move).level
    assert final.solved


def test_solve_two_boxes_and_already_solved() -> None:
    level = Level.from_text("#######\n#P_X_O#\n#__X_O#\n#######")
    plan = solve(level)
    assert plan is not None
    final = level
    for move in plan:
        final = apply_move(final, move).level
    assert final.solved
    # Top box first (3 pushes), walk round (3), bottom box (2); the other order needs 9.
    assert len(plan) == 8
    assert solve(Level.from_text("####\n#P√#\n####")) == []


def bfs_length(level: Level) -> int | None:
    """Shortest solution by plain breadth-first search over single moves."""
    frontier = [level]
    seen = {(level.player, level.boxes)}
    depth = 0
    while frontier:
        if any(lvl.solved for lvl in frontier):
            return depth
        depth += 1
        nxt = []
        for lvl in frontier:
            for move in ("up", "down", "left", "right"):
                child = apply_move(lvl, move).level
                key = (child.player, child.boxes)
                if key not in seen:
                    seen.add(key)
                    nxt.append(child)
        frontier = nxt
    return None


@pytest.mark.parametrize(("dim", "num_boxes"), [(6, 1), (6, 2), (7, 3)])
def test_solve_is_optimal_against_plain_bfs(dim: int, num_boxes: int) -> None:
    env = gym.make(ID, dim=dim, num_boxes=num_boxes)
    for seed in range(15):
        env.reset(seed=seed)
        level = env.unwrapped.level
        plan = solve(level)
        assert plan is not None
        assert len(plan) == bfs_length(level), level.to_text()


def test_solve_reports_unsolvable_levels() -> None:
    # The box is in a corner that is not a target.
    assert solve(Level.from_text("######\n#X__O#\n#__P_#\n######")) is None
    # The box is against the top wall and the target is below.
    assert solve(Level.from_text("######\n#_X__#\n#P___#\n#__O_#\n######")) is None


def test_expert_on_hopeless_level_still_acts_legally() -> None:
    env = gym.make(ID)
    expert = SokobanExpert(env)
    obs, info = env.reset(options={"level": "######\n#X__O#\n#__P_#\n######"})
    for _ in range(5):
        action = expert.act(obs, info)
        assert action in info["legal_actions"]
        obs, _, _, _, info = env.step(action)
        assert not info["invalid_action"]


def test_expert_rejects_other_envs() -> None:
    with pytest.raises(TypeError, match="SokobanExpert needs a SokobanEnv"):
        SokobanExpert(gym.make("turngym/Bandit-v0"))

"""Tests of Sokoban-v0: conformance, rules on hand-built levels, and the generator."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401  (registers the ids)
from turngym.agents.experts.sokoban import solve
from turngym.envs.text.sokoban import SokobanEnv
from turngym.envs.text.sokoban_levels import Level, apply_move, generate_level
from turngym.testing import check_text_env

ID = "turngym/Sokoban-v0"

# Two boxes so a push onto one target does not end the episode.
TWO_BOXES = """
#######
#P_X_O#
#__X_O#
#######
"""


def make(**kwargs: object) -> gym.Env:
    return gym.make(ID, **kwargs)


def start(level: str, **kwargs: object) -> tuple[gym.Env, str, dict]:
    env = make(render_mode="ansi", **kwargs)
    obs, info = env.reset(seed=0, options={"level": level})
    return env, obs, info


# -- conformance ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"dim": 10, "num_boxes": 3}, {"dim": (6, 9), "num_boxes": 2, "max_reverse_steps": 90}],
    ids=["default", "10x10-3boxes", "6x9-2boxes-deep"],
)
def test_conformance(kwargs: dict) -> None:
    report = check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs)
    assert report.passed, report.table()


# -- constructor arguments -----------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dim": 5}, r"dim must be an int in 6\.\.10 or a \(rows, cols\) pair of them, got 5"),
        ({"dim": 11}, r"dim must be .*got 11"),
        ({"dim": (6, 11)}, r"dim must be .*got \(6, 11\)"),
        ({"dim": (6, 7, 8)}, r"dim must be .*got \(6, 7, 8\)"),
        ({"dim": "8"}, r"dim must be .*got '8'"),
        ({"dim": True}, r"dim must be .*got True"),
        ({"num_boxes": -1}, r"num_boxes must be in 1\.\.3, got -1"),
        ({"num_boxes": 4}, r"num_boxes must be in 1\.\.3, got 4"),
        ({"num_boxes": 1.5}, r"num_boxes must be in 1\.\.3, got 1\.5"),
        ({"max_reverse_steps": 9}, r"max_reverse_steps must be in 10\.\.90 .*got 9"),
        ({"max_reverse_steps": 500}, r"max_reverse_steps must be in 10\.\.90 .*got 500"),
    ],
)
def test_bad_kwargs_raise(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make(**kwargs)


def test_rectangular_dim_is_accepted() -> None:
    env = make(dim=[7, 10], render_mode="ansi")
    env.reset(seed=1)
    rows = env.render().splitlines()
    assert len(rows) == 7
    assert {len(r) for r in rows} == {10}


# -- rules on hand-built levels --------------------------------------------------------


def test_first_observation_states_task_legend_and_board() -> None:
    _, obs, info = start(TWO_BOXES)
    assert "Sokoban" in obs
    assert "all 2 boxes" in obs
    assert "# wall, _ floor, O target, X box, √ box on target, P player, S player on target" in obs
    assert "#P_X_O#\n#__X_O#" in obs
    assert "Boxes on targets: 0/2." in obs
    assert info["instruction"] in obs
    assert info["legal_actions"] == ["up", "down", "left", "right"]
    assert info["state_key"] == "P1,1|1,3;2,3"
    assert info["boxes_on_targets"] == 0


def test_walking_costs_a_step() -> None:
    env, _, _ = start(TWO_BOXES)
    obs, reward, terminated, truncated, info = env.step("right")
    assert obs.startswith("You moved right.")
    assert reward == pytest.approx(-0.1)
    assert (terminated, truncated, info["invalid_action"]) == (False, False, False)
    assert info["state_key"] == "P1,2|1,3;2,3"
    assert env.render() == "#######\n#_PX_O#\n#__X_O#\n#######"


def test_push_onto_target_gives_plus_one() -> None:
    env, _, _ = start(TWO_BOXES)
    env.step("right")
    obs, reward, _, _, info = env.step("right")
    assert obs.startswith("You pushed a box right.")
    assert reward == pytest.approx(-0.1)
    obs, reward, terminated, _, info = env.step("right")
    assert obs.startswith("You pushed a box right onto a target (+1).")
    assert reward == pytest.approx(0.9)
    assert info["reward_parts"] == pytest.approx({"step": -0.1, "box": 1.0, "solved": 0.0})
    assert not terminated
    assert not info["success"]
    assert info["boxes_on_targets"] == 1
    assert env.render().splitlines()[1] == "#___P√#"
    assert "Boxes on targets: 1/2." in obs


def test_push_off_target_gives_minus_one() -> None:
    env, _, _ = start("#######\n#_P√__#\n#___XO#\n#######")
    obs, reward, terminated, _, info = env.step("right")
    assert obs.startswith("You pushed a box right off a target (-1).")
    assert reward == pytest.approx(-1.1)
    assert info["reward_parts"]["box"] == -1.0
    assert not terminated
    assert env.render().splitlines()[1] == "#__SX_#"


def test_walking_into_a_wall_is_a_valid_no_op() -> None:
    env, _, info0 = start(TWO_BOXES)
    obs, reward, terminated, truncated, info = env.step("up")
    assert obs.startswith("You walked into a wall; nothing changed.")
    assert reward == pytest.approx(-0.1)
    assert not info["invalid_action"]
    assert (terminated, truncated) == (False, False)
    assert info["state_key"] == info0["state_key"]


def test_box_against_wall_does_not_move() -> None:
    env, _, info0 = start("#####\n#PX##\n#_O_#\n#####")
    obs, reward, _, _, info = env.step("right")
    assert obs.startswith("The box right of you is against a wall and cannot be pushed")
    assert reward == pytest.approx(-0.1)
    assert not info["invalid_action"]
    assert info["state_key"] == info0["state_key"]
    assert env.render() == "#####\n#PX##\n#_O_#\n#####"


def test_box_against_box_does_not_move() -> None:
    env, _, info0 = start("#######\n#PXX_O#\n#____O#\n#######")
    obs, reward, _, _, info = env.step("right")
    assert obs.startswith("The box right of you is blocked by another box")
    assert reward == pytest.approx(-0.1)
    assert not info["invalid_action"]
    assert info["state_key"] == info0["state_key"]


def test_win_terminates_with_success_and_bonus() -> None:
    env, _, _ = start("######\n#P_XO#\n######")
    _, reward, terminated, _, info = env.step("right")
    assert reward == pytest.approx(-0.1)
    assert not terminated
    obs, reward, terminated, truncated, info = env.step("right")
    assert reward == pytest.approx(-0.1 + 1.0 + 10.0)
    assert info["reward_parts"] == pytest.approx({"step": -0.1, "box": 1.0, "solved": 10.0})
    assert terminated and not truncated
    assert info["success"] is True
    assert info["legal_actions"] == []
    assert "you solved the level (+10)" in obs
    assert env.render() == "######\n#__P√#\n######"
    # After the end, a step is refused without reward.
    obs, reward, terminated, _, info = env.step("left")
    assert (reward, terminated, info["invalid_action"]) == (0.0, True, True)


def test_player_on_target_symbol() -> None:
    env, _, _ = start("#######\n#OPX__#\n#######")
    env.step("left")
    assert env.render() == "#######\n#S_X__#\n#######"


@pytest.mark.parametrize("action", ["RIGHT", "  right\n", "Right", "move right", "Push Right"])
def test_lenient_action_parsing(action: str) -> None:
    env, _, _ = start(TWO_BOXES)
    _, _, _, _, info = env.step(action)
    assert not info["invalid_action"]
    assert info["state_key"] == "P1,2|1,3;2,3"


@pytest.mark.parametrize("action", ["jump", "", "r", "up up", "northeast"])
def test_unparseable_action_is_invalid(action: str) -> None:
    env, _, info0 = start(TWO_BOXES, invalid_action_penalty=-0.5, max_invalid_actions=2)
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["invalid_action"]
    assert reward == -0.5
    assert "up, down, left or right" in obs
    assert info["state_key"] == info0["state_key"]
    assert not (terminated or truncated)
    _, _, _, truncated, _ = env.step(action)
    assert truncated


# -- the level format ------------------------------------------------------------------


def test_xsb_level_is_read_and_outside_floor_walled() -> None:
    xsb = """
      #####
      #@ $.#
    ###  *#
    #    ##
    ######
    """
    level = Level.from_text(xsb)
    text = level.to_text()
    # Leading spaces outside the walls are unreachable floor, so they become wall.
    assert text.splitlines() == [
        "##########",
        "##########",
        "####P_XO##",
        "####__√###",
        "##____####",
        "##########",
        "##########",
    ]
    assert len(level.boxes) == len(level.targets) == 2
    assert level.boxes_on_targets == 1
    # Re-reading the rendered grid gives the same level.
    assert Level.from_text(text) == level


def test_open_edge_gets_a_wall_ring() -> None:
    level = Level.from_text("PXO")
    assert level.to_text() == "#####\n#PXO#\n#####"
    assert apply_move(level, "up").event == "wall"


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ("#####\n#PXO#\n#P__#\n#####", "exactly one player"),
        ("#####\n#__O#\n#####", "exactly one player"),
        ("#####\n#P_O#\n#####", "at least one box"),
        ("#####\n#PXX#\n#_O_#\n#####", "as many targets as boxes"),
        ("#####\n#PXO#\n#_?_#\n#####", r"unknown level symbols \['\?'\]"),
        ("\n\n", "the level is empty"),
    ],
)
def test_bad_level_raises(grid: str, message: str) -> None:
    env = make()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"level": grid})


def test_level_as_list_of_rows() -> None:
    env = make(render_mode="ansi")
    env.reset(options={"level": ["#####", "#PXO#", "#####"]})
    assert env.render() == "#####\n#PXO#\n#####"


# -- invariants under random play -------------------------------------------------------


def test_random_play_keeps_invariants() -> None:
    rng = np.random.default_rng(0)
    env = make(dim=8, num_boxes=3)
    for episode in range(20):
        env.reset(seed=episode)
        level = env.unwrapped.level
        for _ in range(60):
            before = env.unwrapped.level
            action = ["up", "down", "left", "right"][int(rng.integers(4))]
            _, reward, terminated, _, info = env.step(action)
            after = env.unwrapped.level
            assert len(after.boxes) == len(level.boxes)
            assert not (after.boxes & after.walls)
            assert after.player not in after.boxes and after.player not in after.walls
            assert (after.walls, after.targets) == (level.walls, level.targets)
            delta = after.boxes_on_targets - before.boxes_on_targets
            expected = -0.1 + delta + (10.0 if terminated else 0.0)
            assert reward == pytest.approx(expected)
            assert terminated == after.solved
            assert info["boxes_on_targets"] == after.boxes_on_targets
            if terminated:
                break


# -- generation ------------------------------------------------------------------------


@pytest.mark.parametrize("num_boxes", [1, 2, 3])
@pytest.mark.parametrize("dim", [6, 8, 10, (6, 10)])
def test_generated_levels_are_well_formed_and_solvable(
    dim: int | tuple[int, int], num_boxes: int
) -> None:
    rows, cols = dim if isinstance(dim, tuple) else (dim, dim)
    steps = 40
    for seed in range(15):
        level = generate_level(np.random.default_rng(seed), rows, cols, num_boxes, steps)
        assert (level.rows, level.cols) == (rows, cols)
        assert len(level.boxes) == len(level.targets) == num_boxes
        assert not level.solved
        border = {r * cols + c for r in range(rows) for c in range(cols)}
        border -= {r * cols + c for r in range(1, rows - 1) for c in range(1, cols - 1)}
        assert border <= level.walls
        assert not (level.boxes | level.targets | {level.player}) & level.walls
        assert level.player not in level.boxes
        assert Level.from_text(level.to_text()) == level
        plan = solve(level)
        assert plan is not None, level.to_text()
        # The backwards walk bounds the solution length, and the level is not trivial.
        assert 3 <= len(plan) <= steps, level.to_text()


def test_same_seed_same_level_and_different_seeds_differ() -> None:
    env = make(dim=8, num_boxes=2)
    boards = [env.reset(seed=seed)[0] for seed in range(30)]
    again = [make(dim=8, num_boxes=2).reset(seed=seed)[0] for seed in range(30)]
    assert boards == again
    assert len(set(boards)) == 30


def test_reset_without_seed_continues_the_stream() -> None:
    env = make()
    first, _ = env.reset(seed=5)
    second, _ = env.reset()
    assert first != second
    env2 = make()
    env2.reset(seed=5)
    assert env2.reset()[0] == second


def test_difficulty_knob_lengthens_solutions() -> None:
    def mean_length(steps: int) -> float:
        lengths = []
        for seed in range(40):
            level = generate_level(np.random.default_rng(seed), 10, 10, 3, steps)
            plan = solve(level)
            assert plan is not None
            lengths.append(len(plan))
        return float(np.mean(lengths))

    assert mean_length(90) > mean_length(10) + 4


def test_env_class_can_be_used_directly() -> None:
    env = SokobanEnv(dim=7, num_boxes=2)
    obs, info = env.reset(seed=3)
    assert obs.count("X") + obs.count("√") >= 2
    assert info["legal_actions"] == ["up", "down", "left", "right"]

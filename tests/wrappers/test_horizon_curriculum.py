"""HorizonCurriculum: episodes end at the schedule's horizon, which the trainer advances."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.horizon_curriculum import HorizonCurriculum, HorizonSchedule

ENV_IDS = [
    "turngym/FrozenLake-v0",
    "turngym/Sokoban-v0",
    "turngym/Taxi-v0",
    "turngym/Wordle-v0",
    "turngym/Maze-v0",
    "turngym/SearchQA-v0",
    "turngym/TwentyQuestions-v0",
    "turngym/TicTacToe-v0",
]


def wander(env: gym.Env, seed: int, limit: int = 500) -> tuple[int, bool, bool, dict]:
    """Play random legal (or junk) actions; return (turns, terminated, truncated, last info)."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    for t in range(1, limit + 1):
        legal = info.get("legal_actions")
        action = legal[int(rng.integers(len(legal)))] if legal else "search[river]"
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return t, terminated, truncated, info
    raise AssertionError("the episode never ended")


# -- schedules ------------------------------------------------------------------------


def test_schedule_forms():
    assert HorizonSchedule(7).horizon == 7
    steps = HorizonSchedule([(0, 2), (10, 4), (20, 8)])
    assert [steps(k) for k in (0, 9, 10, 19, 20, 10_000)] == [2, 2, 4, 4, 8, 8]
    linear = HorizonSchedule(lambda step: 1 + step // 5)
    assert linear.horizon == 1
    linear.advance(12)
    assert linear.horizon == 3 and linear.training_step == 12
    linear.set_step(0)
    assert linear.horizon == 1


@pytest.mark.parametrize(
    "schedule",
    [
        0,
        -3,
        True,
        2.5,
        "long",
        [],
        [(5, 3)],
        [(0, 3), (0, 4)],
        [(0, 3), (10, 0)],
        [(0, 3, 1)],
        lambda step: 0,
        lambda step: "ten",
    ],
)
def test_bad_schedules_raise_value_error(schedule):
    with pytest.raises(ValueError, match=r"schedule|breakpoint|max_turns"):
        HorizonSchedule(schedule)


def test_bad_counter_moves_raise_value_error():
    schedule = HorizonSchedule(3)
    with pytest.raises(ValueError, match="advance"):
        schedule.advance(-1)
    with pytest.raises(ValueError, match="set_step"):
        schedule.set_step(-5)


# -- the wrapper ----------------------------------------------------------------------


def test_episode_truncated_at_the_horizon_with_info():
    env = HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), 3)
    _, info = env.reset(seed=0)
    assert info["horizon"] == 3
    for _ in range(2):
        obs, _, term, trunc, info = env.step("up")  # bumps the wall: never ends by itself
        assert not (term or trunc) and info["horizon"] == 3
        assert "horizon_truncated" not in info
    obs, _, term, trunc, info = env.step("up")
    assert trunc and not term and info["horizon_truncated"] and info["success"] is False
    assert info["legal_actions"] == [] and obs.endswith("(horizon 3); the episode ends.")
    # Further steps do not reach the env, never raise.
    obs, r, term, trunc, info = env.step("down")
    assert trunc and r == 0.0 and info["invalid_action"] and info["legal_actions"] == []


def test_invalid_actions_count_toward_the_horizon():
    env = HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), 2)
    env.reset(seed=0)
    assert not env.step("fly")[3]
    assert env.step("fly")[3]


def test_trainer_advances_the_horizon_between_episodes():
    env = HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), [(0, 1), (2, 5), (4, 100)])
    lengths = []
    for _ in range(6):
        env.reset(seed=0)
        turns = 0
        while True:
            turns += 1
            *_, term, trunc, _ = env.step("up")
            if term or trunc:
                break
        lengths.append(turns)
        env.advance()
    # FrozenLake's own TimeLimit (100) caps the last stage.
    assert lengths == [1, 1, 5, 5, 100, 100]


def test_horizon_is_fixed_for_the_running_episode():
    env = HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), [(0, 2), (1, 50)])
    env.reset(seed=0)
    env.advance()
    assert env.horizon == 50
    env.step("up")
    assert env.step("up")[3]  # still the episode's horizon of 2


def test_shared_schedule_advances_every_env():
    schedule = HorizonSchedule([(0, 2), (1, 4)])
    envs = [HorizonCurriculum(gym.make(i), schedule) for i in ENV_IDS[:3]]
    assert [e.reset(seed=0)[1]["horizon"] for e in envs] == [2, 2, 2]
    schedule.advance()
    assert [e.reset(seed=0)[1]["horizon"] for e in envs] == [4, 4, 4]
    envs[0].set_step(0)  # through any wrapper
    assert [e.horizon for e in envs] == [2, 2, 2]


def test_sync_vector_env_shares_and_call_sets_step():
    schedule = HorizonSchedule([(0, 2), (5, 3)])
    envs = gym.vector.SyncVectorEnv(
        [lambda: HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), schedule)] * 2
    )
    envs.call("set_step", 5)
    assert schedule.training_step == 5
    _, infos = envs.reset(seed=0)
    assert list(infos["horizon"]) == [3, 3]
    envs.close()


def test_env_ending_on_its_own_first_is_not_marked():
    env = HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), 6)
    env.reset(seed=0)
    for move in ["down", "down", "right", "right", "down"]:
        env.step(move)
    _, r, term, trunc, info = env.step("right")  # the goal, exactly at the horizon
    assert term and not trunc and r == 1.0 and "horizon_truncated" not in info


def test_step_before_reset_raises_reset_needed():
    with pytest.raises(gym.error.ResetNeeded):
        HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), 3).step("up")


# -- across registered envs -----------------------------------------------------------


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_episodes_never_exceed_the_horizon(env_id):
    for horizon in (1, 2, 3, 6):
        env = HorizonCurriculum(gym.make(env_id), horizon)
        plain = gym.make(env_id)
        for seed in range(3):
            turns, term, trunc, info = wander(env, seed)
            plain_turns, plain_term, *_ = wander(plain, seed)
            assert turns == min(horizon, plain_turns)
            assert info["horizon"] == horizon
            if plain_turns > horizon:
                assert trunc and info["horizon_truncated"] and isinstance(info["success"], bool)
            else:
                assert (term, "horizon_truncated" in info) == (plain_term, False)


@pytest.mark.parametrize("env_id", ["turngym/FrozenLake-v0", "turngym/Sokoban-v0"])
def test_conformance_with_the_wrapper(env_id):
    def make(**kwargs):
        return HorizonCurriculum(gym.make(env_id, **kwargs), 50)

    check_text_env(make, n_fuzz=1000, reset_episodes=10, expert=lambda e: make_expert(e, env_id))


def test_conformance_with_a_short_horizon():
    # The expert cannot finish in 3 turns; what matters is the truncation path.
    make = lambda **kw: HorizonCurriculum(gym.make("turngym/Maze-v0", **kw), 3)  # noqa: E731
    report = check_text_env(make, n_fuzz=1000, reset_episodes=10, raise_on_failure=False)
    failed = [r for r in report.results if not (r.passed or r.skipped)]
    assert [r.name for r in failed] in ([], ["expert"]), report.table()


# -- the training-step protocol (trainers call it on every env they collect from) -----


def test_set_training_step_reaches_a_curriculum_under_other_wrappers():
    from turngym.wrappers import ChatHistory, GatedReward
    from turngym.wrappers.training_step import set_training_step

    env = ChatHistory(
        GatedReward(HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), [(0, 1), (3, 4)]))
    )
    assert set_training_step(env, 3) == 1  # one layer asked for the step
    assert env.reset(seed=0)[1]["horizon"] == 4
    # outermost first, every layer that asks: two curricula, two calls
    twice = HorizonCurriculum(HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), [(0, 1)]), 9)
    assert set_training_step(twice, 0) == 2
    assert set_training_step(gym.make("turngym/FrozenLake-v0"), 5) == 0


def test_set_training_step_reaches_every_sub_env_of_a_sync_vector_env():
    from turngym.wrappers.training_step import set_training_step

    envs = gym.vector.SyncVectorEnv(
        [lambda: HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), [(0, 2), (5, 3)])] * 2
    )
    assert set_training_step(envs, 5) == 2
    assert list(envs.reset(seed=0)[1]["horizon"]) == [3, 3]
    envs.close()


@pytest.mark.parametrize("step", [-1, 1.5, True, "3"])
def test_set_training_step_rejects_a_bad_step(step):
    from turngym.wrappers.training_step import set_training_step

    with pytest.raises(ValueError, match="step must be an int >= 0"):
        set_training_step(HorizonCurriculum(gym.make("turngym/FrozenLake-v0"), 2), step)

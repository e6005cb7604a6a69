"""DiscreteActions across envs; check_text_env cannot apply (see test_conformance_checks)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import turngym  # noqa: F401
from turngym.wrappers import DiscreteActions
from turngym.wrappers.discrete_actions import ActionIndex, find_action_universe

# (id, make kwargs): text envs with fixed action lists, classic adapters, game views.
ENVS = [
    ("turngym/FrozenLake-v0", {}),
    ("turngym/Maze-v0", {}),
    ("turngym/Sokoban-v0", {}),
    ("turngym/BabyAIText-v0", {}),
    ("turngym/Taxi-v0", {}),
    ("turngym/Blackjack-v0", {}),
    ("turngym/TicTacToe-v0", {"opponent": "random"}),
    ("turngym/ConnectFour-v0", {"opponent": "random", "seat": 1}),
    ("turngym/KuhnPoker-v0", {"opponent": "random"}),
]
IDS = [env_id.split("/")[1] for env_id, _ in ENVS]


def make(env_id: str, kwargs: dict) -> DiscreteActions:
    return DiscreteActions(gym.make(env_id, **kwargs))


def play(env: gym.Env, seed: int, steps: int = 60) -> list[str]:
    """A seeded episode of random indices (mostly legal, some out of range), as text."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    record = [repr((obs, sorted(info.items(), key=str)))]
    for _ in range(steps):
        legal = np.flatnonzero(info["action_mask"])
        n = env.action_space.n
        action = (
            int(rng.choice(legal))
            if legal.size and rng.random() < 0.8
            else int(rng.integers(-2, n + 2))
        )
        obs, reward, terminated, truncated, info = env.step(action)
        record.append(
            repr((action, obs, reward, terminated, truncated, sorted(info.items(), key=str)))
        )
        if terminated or truncated:
            break
    return record


@pytest.mark.parametrize(("env_id", "kwargs"), ENVS, ids=IDS)
def test_indices_play_the_named_actions_and_mask_follows_legal_actions(env_id, kwargs):
    env, plain = make(env_id, kwargs), gym.make(env_id, **kwargs)
    names = env.get_wrapper_attr("action_names")
    assert env.action_space == gym.spaces.Discrete(len(names))
    obs, info = env.reset(seed=3)
    plain_obs, plain_info = plain.reset(seed=3)
    assert obs == plain_obs
    rng = np.random.default_rng(0)
    for _ in range(40):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (len(names),)
        legal = {a.lower() for a in plain_info["legal_actions"]}
        assert {names[i].lower() for i in np.flatnonzero(mask)} == legal
        assert (env.get_wrapper_attr("action_masks")() == mask.astype(bool)).all()
        i = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = env.step(i)
        expected = plain.step(names[i])
        plain_info = expected[4]
        assert (obs, reward, terminated, truncated) == expected[:4]
        assert not info["invalid_action"]
        if terminated or truncated:
            assert not info["action_mask"].any() or "legal_actions" not in info
            obs, info = env.reset(seed=4)
            _, plain_info = plain.reset(seed=4)


@pytest.mark.parametrize(("env_id", "kwargs"), ENVS, ids=IDS)
@pytest.mark.parametrize(
    "bad", [-1, 10_000, 2.5, None, "left", True, np.array([0, 1]), np.int64(-3)]
)
def test_bad_actions_take_the_invalid_path(env_id, kwargs, bad):
    env = make(env_id, kwargs)
    env.reset(seed=0)
    *_, info = env.step(bad)
    assert info["invalid_action"] is True
    assert "action_mask" in info


def test_numpy_indices_are_accepted():
    env = make("turngym/FrozenLake-v0", {})
    env.reset(seed=0)
    for action in (np.int64(1), np.array(1), np.array([1])):
        *_, info = env.step(action)
        assert not info["invalid_action"]


@pytest.mark.parametrize(("env_id", "kwargs"), ENVS, ids=IDS)
def test_conformance_checks(env_id, kwargs):
    # check_text_env needs string actions (legal_actions must lie in the action space),
    # so the Discrete wrapper gets Gymnasium's check_env plus the same seeding and
    # reset-safety comparisons check_text_env makes.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(make(env_id, kwargs), skip_render_check=True)
    problems = [
        str(w.message) for w in caught if "different from the unwrapped" not in str(w.message)
    ]
    assert not problems
    reused = make(env_id, kwargs)
    for seed in range(8):
        first = play(reused, seed)
        assert play(reused, seed) == first  # same seed, same episode
        assert play(make(env_id, kwargs), seed) == first  # reused == fresh


def test_universes_are_found_on_the_env():
    assert find_action_universe(gym.make("turngym/Taxi-v0"))[:2] == ("south", "north")
    tictactoe = gym.make("turngym/TicTacToe-v0", opponent="random")
    assert find_action_universe(tictactoe) == ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")
    assert find_action_universe(gym.make("turngym/Sokoban-v0")) == ("up", "down", "left", "right")


@pytest.mark.parametrize(
    "env_id", ["turngym/Wordle-v0", "turngym/Bandit-v0", "turngym/Countdown-v0"]
)
def test_envs_without_a_fixed_universe_raise_naming_the_env(env_id):
    with pytest.raises(ValueError, match=f"{env_id}.*actions="):
        DiscreteActions(gym.make(env_id))


def test_explicit_actions():
    env = DiscreteActions(gym.make("turngym/FrozenLake-v0"), actions=["up", "down"])
    _, info = env.reset(seed=0)
    assert env.action_space.n == 2 and info["action_mask"].tolist() == [1, 1]
    *_, info = env.step(1)
    assert env.unwrapped.pos == (1, 0)
    with pytest.raises(ValueError, match="not one string"):
        DiscreteActions(gym.make("turngym/FrozenLake-v0"), actions="up")
    with pytest.raises(ValueError, match="distinct"):
        DiscreteActions(gym.make("turngym/FrozenLake-v0"), actions=["up", " UP"])
    with pytest.raises(ValueError, match="non-empty"):
        DiscreteActions(gym.make("turngym/FrozenLake-v0"), actions=[])


def test_action_index_mask_ignores_unknown_and_handles_missing_legal_actions():
    index = ActionIndex(["a", "b"])
    assert index.mask(["B", "zzz", 3]).tolist() == [0, 1]  # type: ignore[list-item]
    assert index.mask(None).tolist() == [1, 1]
    assert index.mask([]).tolist() == [0, 0]
    assert "not an index" in index.decode(7)

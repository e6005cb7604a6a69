"""Classic RL through the bridges: SB3 PPO learns FrozenLake, MaskablePPO beats random at TicTacToe.

Measured on 2 shared CPU cores, seeds 0, 1, 2 (see the wrappers-sb3 report): FrozenLake
success 0.0 before, 1.0 after about 6 s of training; TicTacToe non-loss about 0.6
before and 0.9 after about 11 s.
"""

from __future__ import annotations

import os
import time

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401
from turngym.wrappers import DiscreteActions, TextFeatures

sb3 = pytest.importorskip("stable_baselines3", reason="needs the sb3 extra")
sb3_contrib = pytest.importorskip("sb3_contrib", reason="needs the sb3 extra")

SEED = int(os.environ.get("TURNGYM_SB3_SEED", "0"))
HELD_OUT = 10_000  # evaluation seeds start here; training envs use DummyVecEnv.seed(SEED)


def frozen_lake() -> gym.Env:
    return TextFeatures(DiscreteActions(gym.make("turngym/FrozenLake-v0")), dim=256)


def tictactoe() -> gym.Env:
    env = gym.make("turngym/TicTacToe-v0", opponent="random")
    return TextFeatures(DiscreteActions(env), dim=256)


def returns(model, make, episodes: int, masked: bool = False) -> tuple[list[float], list[bool]]:
    env = make()
    totals, successes = [], []
    for k in range(episodes):
        obs, info = env.reset(seed=HELD_OUT + k)
        total, done = 0.0, False
        while not done:
            masks = {"action_masks": info["action_mask"].astype(bool)} if masked else {}
            action, _ = model.predict(obs, deterministic=True, **masks)
            obs, reward, terminated, truncated, info = env.step(int(action))
            total += reward
            done = terminated or truncated
        totals.append(total)
        successes.append(bool(info["success"]))
    return totals, successes


def ppo_kwargs(seed: int) -> dict:
    return {
        "n_steps": 128,
        "batch_size": 128,
        "n_epochs": 4,
        "learning_rate": 1e-3,
        "ent_coef": 0.01,
        "policy_kwargs": {"net_arch": [64, 64]},
        "seed": seed,
        "device": "cpu",
        "verbose": 0,
    }


@pytest.mark.slow
def test_ppo_learns_frozen_lake():
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)
    venv = DummyVecEnv([frozen_lake] * 4)
    venv.seed(SEED)
    model = PPO("MlpPolicy", venv, gamma=0.95, **ppo_kwargs(SEED))
    before = np.mean(returns(model, frozen_lake, 100)[1])
    start = time.perf_counter()
    model.learn(20_000)
    seconds = time.perf_counter() - start
    after = np.mean(returns(model, frozen_lake, 100)[1])
    print(f"FrozenLake success {before:.2f} -> {after:.2f} in {seconds:.1f} s of training")
    assert after >= 0.9 and after > before


@pytest.mark.slow
def test_maskable_ppo_does_not_lose_to_random_at_tictactoe():
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)
    venv = DummyVecEnv([tictactoe] * 4)
    venv.seed(SEED)
    model = MaskablePPO("MlpPolicy", venv, gamma=0.99, **ppo_kwargs(SEED))
    before = np.mean(np.array(returns(model, tictactoe, 200, masked=True)[0]) >= 0)
    start = time.perf_counter()
    model.learn(20_000)
    seconds = time.perf_counter() - start
    totals = np.array(returns(model, tictactoe, 200, masked=True)[0])
    after = np.mean(totals >= 0)
    print(
        f"TicTacToe non-loss {before:.3f} -> {after:.3f} (wins {np.mean(totals > 0):.3f}) "
        f"in {seconds:.1f} s of training"
    )
    assert after >= 0.8 and after > before

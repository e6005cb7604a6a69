"""Train Stable-Baselines3 PPO on turngym's text FrozenLake through the classic-RL bridges.

``DiscreteActions`` numbers the env's actions (left, down, right, up) and
``TextFeatures`` turns each text observation into a 256-float vector, so an
off-the-shelf ``PPO("MlpPolicy")`` learns the 4x4 lake in a few seconds on one CPU
thread. Needs the ``sb3`` extra: ``pip install 'turngym[sb3]'``.

    python examples/sb3_frozenlake.py [--steps 20000] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv

import turngym  # noqa: F401  (registers turngym/FrozenLake-v0)
from turngym.wrappers import DiscreteActions, TextFeatures


def make_env() -> gym.Env:
    # 4x4 fixed map, not slippery: the env's defaults.
    return TextFeatures(DiscreteActions(gym.make("turngym/FrozenLake-v0")), dim=256)


def success_rate(model: PPO, episodes: int = 100, first_seed: int = 10_000) -> float:
    """Greedy-policy success over held-out seeds."""
    env, wins = make_env(), 0
    for k in range(episodes):
        obs, info = env.reset(seed=first_seed + k)
        done = False
        while not done:
            action, _ = model.predict(obs, deterministic=True)
            obs, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        wins += bool(info["success"])
    return wins / episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="PPO training timesteps")
    parser.add_argument("--seed", type=int, default=0, help="seed of PPO and the train envs")
    args = parser.parse_args()

    torch.set_num_threads(1)  # small nets: one thread is fastest
    venv = DummyVecEnv([make_env] * 4)
    venv.seed(args.seed)
    model = PPO(
        "MlpPolicy",
        venv,
        n_steps=128,
        batch_size=128,
        n_epochs=4,
        gamma=0.95,
        learning_rate=1e-3,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [64, 64]},
        seed=args.seed,
        device="cpu",
    )
    print(f"success before training: {success_rate(model):.2f}")
    start = time.perf_counter()
    model.learn(args.steps)
    print(f"trained {args.steps} steps in {time.perf_counter() - start:.1f} s")
    print(f"success after training: {success_rate(model):.2f}")


if __name__ == "__main__":
    main()

"""Play one turngym env with a random agent and with its scripted expert.

python examples/quickstart.py [ENV_ID]
"""

import sys

import gymnasium as gym

from turngym.agents import RandomAgent, make_expert

env_id = sys.argv[1] if len(sys.argv) > 1 else "turngym/Bandit-v0"
env = gym.make(env_id)
for name, agent in [("random", RandomAgent(seed=0)), ("expert", make_expert(env))]:
    agent.reset(seed=1)
    obs, info = env.reset(seed=1)
    print(f"--- {name} on {env_id}\n{obs}")
    done = False
    while not done:
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        print(f"> {action}\n{obs}")
        done = terminated or truncated
    print(f"success: {info['success']}\n")

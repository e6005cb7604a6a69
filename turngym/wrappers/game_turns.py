"""``wrapper_turn``: a PettingZoo game step that a wrapper answers without moving the game.

Tool calls, summaries and reasoning chunks are turns of the player's, not moves of the
game. The game is left as it is and the player stays to move; PettingZoo's reward
bookkeeping still sees a step (the player's accumulated reward is handed out, this
step pays nothing), and ``infos[agent]`` says it was a wrapper turn.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.spaces import Unicode

__all__ = ["BlankEnv", "wrapper_turn"]


class BlankEnv(gym.Env[str, str]):
    """A do-nothing text env, never reset or stepped.

    Game wrappers build the single-agent wrapper on it to reuse its argument checks and
    text handling.
    """

    observation_space = Unicode(1)
    action_space = Unicode(1)


def wrapper_turn(wrapper: Any, agent: str, **info: Any) -> None:
    """Record a step of ``agent`` that ``wrapper`` consumed; ``info`` goes into its infos."""
    game = wrapper.unwrapped
    for other in game.rewards:
        game.rewards[other] = 0.0
    game._cumulative_rewards[agent] = 0.0
    game.infos[agent] = {
        **game.infos[agent],
        "invalid_action": False,
        "wrapper_turn": True,
        **info,
    }

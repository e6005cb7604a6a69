"""turngym: multi-turn environments for LLM agents under one Gymnasium/PettingZoo API.

>>> import turngym
>>> env = turngym.make("turngym/Bandit-v0")
>>> obs, info = env.reset(seed=0)
"""

from __future__ import annotations

from typing import Any

from turngym.registry import ENVS, register_envs

__all__ = ["ENVS", "__version__", "make", "make_game", "register_envs"]
__version__ = "0.1.0"


def make(env_id: str, **kwargs: Any) -> Any:
    """``gymnasium.make`` for turngym ids; ``Wordle-v0`` is short for ``turngym/Wordle-v0``."""
    import gymnasium as gym

    if "/" not in env_id:
        env_id = f"turngym/{env_id}"
    return gym.make(env_id, **kwargs)


def make_game(game_id: str, **kwargs: Any) -> Any:
    """The PettingZoo AEC env of a registered game, e.g. ``make_game("turngym/TicTacToe-v0")``.

    >>> game = make_game("TicTacToe-v0")
    >>> game.reset(seed=0)
    >>> game.agent_selection
    'player_0'
    """
    from turngym.registry import entry, load

    try:
        row = entry(game_id)
    except KeyError as error:
        raise ValueError(str(error.args[0])) from None
    if row.game is None:
        games = ", ".join(e.name for e in ENVS if e.game)
        raise ValueError(f"{row.id} is not a multi-agent game; games: {games}")
    return load(row.game)(**kwargs)


register_envs()

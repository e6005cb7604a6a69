"""Expert for OpenSpiel's perfect-information games: OpenSpiel's own MCTS bot.

``pyspiel.MCTSBot`` with a ``RandomRolloutEvaluator``, a small simulation budget and
MCTS-Solver on (it proves wins and losses near the end), seeded from ``reset(seed)``
so that a seeded game replays. Registered for the deterministic perfect-information
games with terminal rewards that are short enough for it (``EXPERT_MAX_LENGTH``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from turngym.agents.base import BaseAgent, game_of
from turngym.envs.adapters.openspiel import OpenSpielGame, load_pyspiel

__all__ = ["EXPERT_MAX_LENGTH", "OpenSpielMCTS"]

EXPERT_MAX_LENGTH = 100
"""Games whose OpenSpiel bound on moves is above this get no expert (MCTS is too slow)."""
_EXPERT_STREAM = (0x05E1,)


class OpenSpielMCTS(BaseAgent):
    """Plays OpenSpiel's MCTS bot's move for whoever is to move in an ``OpenSpielGame``.

    Args:
        env: the game, a wrapper of it, or a ``GameView`` of it.
        seed: seeds the bot's tie-breaking and rollouts (``reset`` reseeds it).
        simulations: MCTS simulations per move.
        rollouts: random rollouts per leaf.

    Example:
        >>> from turngym.envs.adapters.openspiel import game_class
        >>> game = game_class("tic_tac_toe")()
        >>> expert = OpenSpielMCTS(game, seed=0)
        >>> game.reset(seed=0)
        >>> expert.act("", game.infos["player_0"]) in game.infos["player_0"]["legal_actions"]
        True

    """

    def __init__(
        self, env: Any, seed: int | None = None, simulations: int = 300, rollouts: int = 1
    ) -> None:
        self.game = game_of(env, OpenSpielGame, "OpenSpielMCTS")
        if type(simulations) is not int or simulations < 1:
            raise ValueError(f"simulations must be a positive int, got {simulations!r}")
        if type(rollouts) is not int or rollouts < 1:
            raise ValueError(f"rollouts must be a positive int, got {rollouts!r}")
        self.simulations = simulations
        self.rollouts = rollouts
        self._bot: Any = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Rebuild the bot with seeds drawn from ``seed`` (None: fresh entropy)."""
        pyspiel = load_pyspiel()
        seeds = np.random.SeedSequence(seed, spawn_key=_EXPERT_STREAM).generate_state(2)
        evaluator = pyspiel.RandomRolloutEvaluator(self.rollouts, int(seeds[0] >> 1))
        self._bot = pyspiel.MCTSBot(
            self.game.spiel_game,
            evaluator,
            2.0,  # UCT exploration constant, OpenSpiel's example default
            self.simulations,
            64,  # MB of tree memory at most
            True,  # MCTS-Solver: back up proven wins and losses
            int(seeds[1] >> 1),
            False,
        )

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The bot's move in the game's current state (any legal name if none is asked)."""
        game = self.game
        legal = info.get("legal_actions") or game.legal_actions(game.current)
        if game.over or game.state is None or not legal:
            return legal[0] if legal else ""
        action = self._bot.step(game.state)
        return game.action_names[game._spec.index[game.current][action]]

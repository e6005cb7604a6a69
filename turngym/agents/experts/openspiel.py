"""Experts for OpenSpiel's games, from OpenSpiel's own bots and solutions.

``OpenSpielMCTS``: ``pyspiel.MCTSBot`` with a ``RandomRolloutEvaluator``, a small
simulation budget and MCTS-Solver on (it proves wins and losses near the end), seeded
from ``reset(seed)`` so that a seeded game replays. Registered for the deterministic
perfect-information games with terminal rewards short enough for it
(``EXPERT_MAX_LENGTH``). ``OpenSpielKuhnNash``: Kuhn poker's Nash equilibrium, which
OpenSpiel ships in closed form.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from turngym.agents.base import BaseAgent, game_of
from turngym.envs.adapters.openspiel import OpenSpielGame, load_pyspiel

__all__ = ["EXPERT_MAX_LENGTH", "OpenSpielKuhnNash", "OpenSpielMCTS"]

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


class OpenSpielKuhnNash(BaseAgent):
    """Kuhn poker's Nash equilibrium from OpenSpiel (``kuhn_poker.get_optimal_policy``).

    A solved policy, free to build: each move is drawn from the equilibrium's action
    probabilities at the player's information state, with the agent's own seeded RNG.
    ``alpha`` (in [0, 1/3]) picks one of the game's equilibria: how often player_0
    bets holding the Jack; the others follow from it.

    Args:
        env: an ``openspiel.kuhn_poker`` game (two players), a wrapper or a ``GameView``.
        seed: seeds the draws (``reset`` reseeds them).
        alpha: the equilibrium's parameter.

    """

    def __init__(self, env: Any, seed: int | None = None, alpha: float = 0.2) -> None:
        self.game = game_of(env, OpenSpielGame, "OpenSpielKuhnNash")
        if self.game.game_name != "kuhn_poker" or self.game.n != 2:
            raise ValueError(
                f"OpenSpielKuhnNash plays two-player kuhn_poker, got {self.game.game_name} "
                f"with {self.game.n} players"
            )
        if not isinstance(alpha, (int, float)) or not 0.0 <= alpha <= 1.0 / 3.0:
            raise ValueError(f"alpha must be a number in [0, 1/3], got {alpha!r}")
        self._policy = load_pyspiel().kuhn_poker.get_optimal_policy(float(alpha))
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the draws."""
        self._rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=_EXPERT_STREAM))

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """A move drawn from the equilibrium for the player to move."""
        game = self.game
        legal = info.get("legal_actions") or game.legal_actions(game.current)
        if game.over or not legal:
            return legal[0] if legal else ""
        i = game.current
        pairs = self._policy.get_state_policy(game.state.information_state_string(i))
        actions = [a for a, _ in pairs]
        weights = np.array([max(w, 0.0) for _, w in pairs])
        action = actions[int(self._rng.choice(len(actions), p=weights / weights.sum()))]
        return game.action_names[game._spec.index[i][action]]

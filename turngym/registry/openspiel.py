"""OpenSpiel's games as turngym games (``turngym[openspiel]``).

The games' names are static data (``turngym/envs/adapters/openspiel_games.py``), so
building these rows imports no OpenSpiel.
"""

from __future__ import annotations

from turngym.envs.adapters.openspiel_games import GAMES as OPENSPIEL_GAMES
from turngym.registry.base import EnvEntry, game_row

_EXPERT_MAX_LENGTH = 100  # = turngym.agents.experts.openspiel.EXPERT_MAX_LENGTH
OPENSPIEL: tuple[EnvEntry, ...] = tuple(
    game_row(
        f"openspiel.{game.name}-v0",
        f"turngym.envs.adapters.openspiel:{game.name}",
        game.max_length + 100,  # a seat's steps: its moves, plus room for retries
        # Kuhn poker's solved equilibrium; OpenSpiel's MCTS bot for the short
        # deterministic perfect-information games that pay at the end (it needs that)
        "turngym.agents.experts.openspiel:OpenSpielKuhnNash"
        if game.name == "kuhn_poker"
        else "turngym.agents.experts.openspiel:OpenSpielMCTS"
        if game.perfect
        and not game.chance
        and game.terminal_rewards
        and game.max_length <= _EXPERT_MAX_LENGTH
        else None,
        stochastic=game.chance,
        suite="openspiel",
        extra="openspiel",
        description=f"OpenSpiel {game.title}, {game.players} player"
        f"{'s' * (game.players != 1)}{' (simultaneous, as turns)' * game.simultaneous}; "
        f"{game.text.replace('_', ' ')} as text",
    )
    for game in OPENSPIEL_GAMES
)

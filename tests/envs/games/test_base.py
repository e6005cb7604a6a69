"""TextGame's shared checks: the number of players each game accepts."""

from __future__ import annotations

import pytest

import turngym
from turngym.registry import GAMES

IDS = [e.id for e in GAMES]


@pytest.mark.parametrize("game_id", IDS)
@pytest.mark.parametrize("bad", [0, 1, 7, 2.0, "2", True, None])
def test_num_players_out_of_range_is_a_clear_error(game_id, bad):
    # TicTacToe used to accept num_players=3 and build a game no one could finish.
    with pytest.raises(ValueError, match=r"is for .* players, got num_players="):
        turngym.make_game(game_id, num_players=bad)


@pytest.mark.parametrize("game_id", IDS)
def test_every_listed_player_count_plays(game_id):
    cls = type(turngym.make_game(game_id))
    for n in cls.player_counts:
        game = turngym.make_game(game_id, num_players=n)
        game.reset(seed=0)
        assert game.possible_agents == [f"player_{k}" for k in range(n)]
        assert game.agent_selection in game.possible_agents


def test_the_error_names_the_allowed_counts():
    with pytest.raises(ValueError, match="TicTacToe is for 2 players, got num_players=3"):
        turngym.make_game("turngym/TicTacToe-v0", num_players=3)
    with pytest.raises(ValueError, match="LiarsDice is for 2 to 6 players, got num_players=7"):
        turngym.make_game("turngym/LiarsDice-v0", num_players=7)

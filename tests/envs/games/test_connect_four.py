from __future__ import annotations

import time

import gymnasium as gym
import numpy as np
import pytest

import turngym
from turngym.agents.experts.connect_four import ConnectFourExpert, move_scores
from turngym.envs.games.connect_four import COLUMNS, ConnectFour, four_in_a_row
from turngym.testing import check_text_env

ID = "turngym/ConnectFour-v0"


def play(game: ConnectFour, columns: str) -> None:
    for column in columns:
        game.step(column)


def board_of(rows: list[str]) -> list[int]:
    """A board from 6 strings drawn top down: ``.`` empty, ``X`` 1, ``O`` 2."""
    assert len(rows) == 6 and all(len(r) == 7 for r in rows)
    return [".XO".index(ch) for row in rows for ch in row]


@pytest.mark.parametrize("kwargs", [{}, {"seat": 1}, {"seat": "random"}])
def test_single_agent_view_passes_check_text_env(kwargs):
    check_text_env(ID, make_kwargs=kwargs, reset_episodes=20)


def test_vertical_win_rewards_and_news():
    game = turngym.make_game(ID)
    game.reset(seed=0)
    play(game, "434343")
    assert not game.over and game.agent_selection == "player_0"
    game.step("4")
    assert game.over and game.returns == [1.0, -1.0]
    assert game.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(game.terminations.values())
    assert game.infos["player_0"]["success"] and not game.infos["player_1"]["success"]
    text = game.observe("player_1")["text"]
    assert "player_0 (X) dropped a disc in column 4.\nX has four in a row: player_0 wins." in text
    game.step("1")  # dead steps: ignored
    game.step(None)
    assert game.agents == []


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        ("1122334", 0),  # X: bottom row, columns 1-4
        ("71122334", 1),  # O: columns 1-4 on the bottom row after X opens in 7
        ("12234334744", 0),  # X: the diagonal up-right from the bottom of column 1
        ("76654554144", 0),  # X: the diagonal up-left from the bottom of column 7
        ("2132334444", 1),  # O: the diagonal up-right from the bottom of column 1
    ],
)
def test_horizontal_and_diagonal_wins(moves, winner):
    game = ConnectFour()
    game.reset(seed=0)
    play(game, moves[:-1])
    assert not game.over
    game.step(moves[-1])
    assert game.over and game.returns[winner] == 1.0 and game.returns[1 - winner] == -1.0
    assert four_in_a_row(game.board) == winner + 1


def test_full_board_is_a_draw():
    game = ConnectFour()
    game.reset(seed=0)
    play(game, "44632311612571354663533412552157767744672")  # a drawn game, 41 discs
    assert not game.over and game.legal_actions(1) == ["2"]
    game.step("2")
    assert game.over and game.returns == [0.0, 0.0] and four_in_a_row(game.board) == 0
    assert "The board is full: a draw." in game.observe("player_0")["text"]
    assert not game.success("player_0") and not game.success("player_1")


def test_observation_board_mask_and_full_column():
    game = ConnectFour()
    game.reset(seed=0)
    obs = game.observe("player_0")
    assert obs["text"].startswith("Connect Four. Two players take turns dropping a disc")
    assert obs["action_mask"].tolist() == [1] * 7
    assert game.infos["player_0"]["legal_actions"] == list(COLUMNS)
    play(game, "333333")
    obs = game.observe("player_0")
    assert obs["text"].endswith(
        "You are X (player_0).\n 1 2 3 4 5 6 7\n . . O . . . .\n . . X . . . .\n"
        " . . O . . . .\n . . X . . . .\n . . O . . . .\n . . X . . . .\n"
        "Your legal actions: 1, 2, 4, 5, 6, 7."
    )
    assert obs["action_mask"].tolist() == [1, 1, 0, 1, 1, 1, 1]
    game.step("3")
    info = game.infos["player_0"]
    assert info["invalid_action"] and info["invalid_reason"].startswith("column 3 is full")
    assert game.agent_selection == "player_0"


@pytest.mark.parametrize(
    "spelling",
    ["4", " 4 ", "column 4", "Column 4", "COL 4", "col4", "c4", "drop 4", "drop in column 4",
     "play 4", "(4)", "[4]", "4.", "column #4"],
)  # fmt: skip
def test_lenient_column_names(spelling):
    game = ConnectFour()
    game.reset(seed=0)
    game.step(spelling)
    assert not game.infos["player_0"]["invalid_action"], spelling
    assert game.heights == [0, 0, 0, 1, 0, 0, 0]


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("8", "there is no column 8; the columns are 1-7"),
        ("column 0", "there is no column 0; the columns are 1-7"),
        ("d", "no column 'd'; answer with a column number 1-7"),
        ("", "no column ''; answer with a column number 1-7"),
        ("3 4", "there is no column 34; the columns are 1-7"),
        ("\u0664", "no column '\u0664'; answer with a column number 1-7"),  # Arabic-Indic 4
        (4, "actions are strings, got int"),
    ],
)
def test_invalid_actions_say_why(action, reason):
    game = ConnectFour(invalid_action_penalty=-0.25)
    game.reset(seed=0)
    game.step(action)
    info = game.infos["player_0"]
    assert info["invalid_action"] and info["invalid_reason"] == reason
    assert game.rewards == {"player_0": -0.25, "player_1": 0.25}
    assert "Try again (2 tries left)." in game.observe("player_0")["text"]


def test_three_invalid_actions_forfeit():
    game = ConnectFour()
    game.reset(seed=0)
    for action in ["9", "nope", None]:
        game.step(action)
    assert game.over and game.returns == [-1.0, 1.0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_invalid_actions": 0}, "max_invalid_actions must be a positive int or None"),
        ({"invalid_action_penalty": "-1"}, "invalid_action_penalty is the reward of an"),
        ({"invalid_action_penalty": float("nan")}, "a number <= 0"),
        ({"render_mode": "rgb_array"}, "render_mode='rgb_array' is not supported"),
        ({"num_players": 3}, "ConnectFour is for 2 players, got num_players=3"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        ConnectFour(**kwargs)


def test_render_and_invariants():
    game = ConnectFour(render_mode="ansi")
    game.reset(seed=0)
    play(game, "44")
    assert game.render().endswith(" . . . O . . .\n . . . X . . .\nX to move")
    assert game.check_invariants() is None
    game.board[0] = 1  # a floating disc in column 1
    assert game.check_invariants() == "column 1 has a disc above height 0"


def test_random_play_first_player_advantage():
    # Uniformly random Connect Four: X wins about 55%, O about 44%, draws under 1%.
    game = ConnectFour()
    rng = np.random.default_rng(0)
    counts = {"x": 0, "o": 0, "draw": 0}
    n = 4000
    for seed in range(n):
        game.reset(seed=seed)
        while not game.over:
            legal = game.legal_actions(game.current)
            game.step(legal[int(rng.integers(len(legal)))])
        x, o = game.returns
        counts["x" if x > 0 else "o" if o > 0 else "draw"] += 1
    assert 0.50 < counts["x"] / n < 0.60 and 0.39 < counts["o"] / n < 0.49
    assert counts["draw"] / n < 0.02


# -- expert ------------------------------------------------------------------------------


def expert_moves(moves: str, rows: list[str], depth: int = 5) -> set[str]:
    """Play ``moves``, check the board reads ``rows``, return the columns the expert rates
    best for the player to move (and check the expert, acting, picks one of them)."""
    game = ConnectFour()
    game.reset(seed=0)
    play(game, moves)
    assert game.board == board_of(rows) and not game.over
    scores = move_scores(game.board, game.current + 1, depth)
    best = {COLUMNS[c] for c, s in scores.items() if s == max(scores.values())}
    assert ConnectFourExpert(game, seed=0, depth=depth).act(None, {}) in best
    return best


EMPTY = "......."


@pytest.mark.parametrize("depth", [1, 3, 5])
def test_expert_takes_an_immediate_win(depth):
    # X: the bottom row holds X X X in columns 2-4 and O in 5; column 1 wins.
    rows = [EMPTY, EMPTY, EMPTY, EMPTY, "...OO..", ".XXXO.."]
    assert expert_moves("253544", rows, depth) == {"1"}
    # X: three in column 3; O also has three in a row on the bottom (4, 5, 6: 7 wins
    # for O), but winning now comes first
    rows = [EMPTY, EMPTY, EMPTY, "..X....", "..X....", "..XOOO."]
    assert expert_moves("343536", rows, depth) == {"3"}
    # O: the up-right diagonal from the bottom of column 1 is open at column 4
    rows = [EMPTY, EMPTY, EMPTY, "..OX...", ".OXO...", "OXXX..."]
    assert expert_moves("213233444", rows, depth) == {"4"}


@pytest.mark.parametrize("depth", [1, 3, 5])
def test_expert_blocks_an_immediate_threat(depth):
    # O holds columns 3-5 of the bottom row, X the 6th: X must take column 2
    rows = [EMPTY, EMPTY, EMPTY, EMPTY, "X......", "X.OOOX."]
    assert expert_moves("631415", rows, depth) == {"2"}
    # O has three in column 5: X must cap it
    rows = [EMPTY, EMPTY, EMPTY, "....O..", "....O..", "XX..O.X"]
    assert expert_moves("152575", rows, depth) == {"5"}


def test_expert_makes_a_double_threat():
    # X to move: 3 or 6 makes an open three on the bottom row (. X X X .): two winning
    # cells, and O can block only one
    rows = [EMPTY, EMPTY, EMPTY, EMPTY, "...OO..", "...XX.."]
    assert expert_moves("4455", rows, 3) == {"3", "6"}
    scores = move_scores(board_of(rows), 1, 3)
    assert min(scores[2], scores[5]) > 900_000


def test_expert_acts_for_either_seat_and_through_a_view():
    game = ConnectFour()
    game.reset(seed=0)
    play(game, "14141")
    assert ConnectFourExpert(game, seed=0).act(None, {}) == "1"  # O must cap column 1
    env = gym.make(ID, opponent="random", seat=0)
    env.reset(seed=0)
    assert ConnectFourExpert(env).act(None, {}) in COLUMNS


def test_expert_depth_5_is_quick():
    # measured over 20 self-play games (CPython 3.11, a shared 2-core machine): 2.7 ms a
    # move on average, 99% under 11 ms, the slowest 13 ms
    game = ConnectFour()
    experts = [ConnectFourExpert(game, seed=1), ConnectFourExpert(game, seed=2)]
    game.reset(seed=0)
    times = []
    while not game.over:
        start = time.perf_counter()
        action = experts[game.current].act(None, {})
        times.append(time.perf_counter() - start)
        game.step(action)
    assert float(np.mean(times)) < 0.05


@pytest.mark.parametrize("seat", [0, 1])
def test_expert_beats_random(seat):
    from turngym.agents import make_expert
    from turngym.sdk.evaluation import evaluate

    result = evaluate(
        ID, make_expert, episodes=200, env_kwargs={"opponent": "random", "seat": seat}
    )
    assert all(e.invalid == 0 for e in result.episodes)
    assert result.success_rate >= 0.95  # measured: 1.00 as either seat


def test_deeper_search_beats_shallower():
    # measured: depth 5 beats depth 3 in 20 of these 20 games (alternating seats)
    game = ConnectFour()
    wins = losses = 0
    for k in range(20):
        deep, shallow = ConnectFourExpert(game, seed=k), ConnectFourExpert(game, k, depth=3)
        seats = (deep, shallow) if k % 2 == 0 else (shallow, deep)
        game.reset(seed=k)
        while not game.over:
            game.step(seats[game.current].act(None, {}))
        deep_seat = k % 2
        wins += game.returns[deep_seat] > 0
        losses += game.returns[deep_seat] < 0
    assert wins >= 15 and losses <= 2


def test_expert_rejects_bad_depth_and_other_envs():
    with pytest.raises(ValueError, match="depth must be an int >= 1"):
        ConnectFourExpert(ConnectFour(), depth=0)
    with pytest.raises(TypeError, match="ConnectFourExpert needs a ConnectFour"):
        ConnectFourExpert(gym.make("turngym/TicTacToe-v0"))

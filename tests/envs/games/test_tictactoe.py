from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import turngym
from turngym.agents.experts.tictactoe import TicTacToeExpert, move_values
from turngym.envs.games.tictactoe import CELLS, TicTacToe, winner
from turngym.testing import check_text_env

ID = "turngym/TicTacToe-v0"


def play(game: TicTacToe, cells: list[str]) -> None:
    for cell in cells:
        game.step(cell)


@pytest.mark.parametrize("kwargs", [{}, {"seat": 1}, {"seat": "random"}])
def test_single_agent_view_passes_check_text_env(kwargs):
    check_text_env(ID, make_kwargs=kwargs, reset_episodes=20)


def test_view_against_the_expert_passes_all_but_winning():
    report = check_text_env(
        ID, make_kwargs={"opponent": "expert", "seat": 1}, reset_episodes=20, raise_on_failure=False
    )
    # perfect play against perfect play is a draw: the expert cannot win here
    assert [r.name for r in report.results if not r.passed] == ["expert"]


def test_rules_win_and_rewards():
    game = turngym.make_game(ID)
    game.reset(seed=0)
    play(game, ["a1", "a2", "b1", "b2"])
    assert not game.over and game.agent_selection == "player_0"
    game.step("c1")  # X: a1 b1 c1
    assert game.over and game.returns == [1.0, -1.0]
    assert game.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(game.terminations.values())
    assert game.infos["player_0"]["success"] and not game.infos["player_1"]["success"]
    assert "X has three in a line: player_0 wins." in game.observe("player_1")["text"]
    # both finished players leave through dead steps; any action there is ignored
    game.step("a3")
    game.step(None)
    assert game.agents == []


def test_draw():
    game = TicTacToe()
    game.reset(seed=0)
    play(game, ["a1", "b2", "c3", "b1", "b3", "a3", "c1", "c2", "a2"])
    assert game.over and game.returns == [0.0, 0.0]
    assert "a draw" in game.observe("player_0")["text"]
    assert not game.success("player_0") and not game.success("player_1")


def test_observation_text_mask_and_legal_actions():
    game = TicTacToe()
    game.reset(seed=0)
    obs = game.observe("player_0")
    assert obs["text"].startswith("Tic-tac-toe. Two players take turns")
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].tolist() == [1] * 9
    assert game.infos["player_0"]["legal_actions"] == list(CELLS)
    assert game.infos["player_1"]["legal_actions"] == []
    game.step("b2")
    obs = game.observe("player_1")
    assert "player_0 (X) marked b2." in obs["text"]
    assert "1  . . .\n2  . X .\n3  . . ." in obs["text"]
    assert obs["action_mask"].tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 1]
    assert "b2" not in game.infos["player_1"]["legal_actions"]
    # the rules are shown once: player_0's next observation starts with the news
    game.step("a1")
    assert game.observe("player_0")["text"].startswith("player_0 (X) marked b2.\nplayer_1 (O)")


@pytest.mark.parametrize("spelling", ["b2", "B2", " b2 ", "2b", "5", "(b, 2)", "[b2]"])
def test_lenient_cell_names(spelling):
    game = TicTacToe()
    game.reset(seed=0)
    game.step(spelling)
    assert not game.infos["player_0"]["invalid_action"] and game.board[4] == 1


def test_invalid_actions_retry_penalty_and_forfeit():
    game = TicTacToe(invalid_action_penalty=-0.1, max_invalid_actions=3)
    game.reset(seed=0)
    game.step("b2")
    game.step("b2")  # taken
    info = game.infos["player_1"]
    assert info["invalid_action"] and info["invalid_reason"] == "b2 is taken by X"
    assert game.agent_selection == "player_1"  # a retry: still its turn
    assert game.rewards == {"player_0": 0.1, "player_1": -0.1}  # zero-sum penalty
    assert "Try again (2 tries left)." in game.observe("player_1")["text"]
    game.step(42)
    assert game.infos["player_1"]["invalid_reason"] == "actions are strings, got int"
    game.step("z9")
    assert game.over and game.returns == pytest.approx([1.3, -1.3])
    assert "player_1 forfeits after too many invalid actions." in game.observe("player_0")["text"]


def test_first_invalid_action_loses_and_unlimited_retries():
    game = TicTacToe(max_invalid_actions=1)
    game.reset(seed=0)
    game.step("nope")
    assert game.over and game.returns == [-1.0, 1.0]
    game = TicTacToe(max_invalid_actions=None)
    game.reset(seed=0)
    for _ in range(50):
        game.step("nope")
    assert not game.over and "Try again." in game.observe("player_0")["text"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_invalid_actions": 0}, "max_invalid_actions must be a positive int or None"),
        ({"invalid_action_penalty": "-1"}, "invalid_action_penalty is the reward of an"),
        ({"invalid_action_penalty": float("nan")}, "a number <= 0"),
        ({"render_mode": "rgb_array"}, "render_mode='rgb_array' is not supported"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TicTacToe(**kwargs)


def test_winner_and_render():
    assert winner([2, 0, 0, 2, 1, 0, 2, 1, 0]) == 2 and winner([0] * 9) == 0
    game = TicTacToe(render_mode="ansi")
    game.reset(seed=0)
    game.step("a1")
    assert game.render() == "   a b c\n1  X . .\n2  . . .\n3  . . .\nO to move"


def test_random_play_outcome_frequencies_match_the_known_values():
    # Known for uniformly random play: X wins 58.5%, O 28.8%, draw 12.7%.
    game = TicTacToe()
    rng = np.random.default_rng(0)
    counts = {"x": 0, "o": 0, "draw": 0}
    n = 20_000
    for seed in range(n):
        game.reset(seed=seed)
        while not game.over:
            legal = game.infos[game.agent_selection]["legal_actions"]
            game.step(legal[int(rng.integers(len(legal)))])
        x, o = game.returns
        counts["x" if x > 0 else "o" if o > 0 else "draw"] += 1
    assert abs(counts["x"] / n - 0.585) < 0.02
    assert abs(counts["o"] / n - 0.288) < 0.02
    assert abs(counts["draw"] / n - 0.127) < 0.02


# -- expert ------------------------------------------------------------------------------


def test_minimax_values():
    assert max(move_values((0,) * 9, 1).values()) == 0  # the empty board is a draw
    values = move_values((1, 0, 0, 0, 2, 0, 0, 0, 1), 2)  # O must not take a corner
    assert {CELLS[k] for k, v in values.items() if v == max(values.values())} == {
        "b1",
        "a2",
        "c2",
        "b3",
    }


def test_expert_self_play_always_draws():
    game = TicTacToe()
    expert = TicTacToeExpert(game)
    for seed in range(50):
        expert.reset(seed=seed)
        game.reset(seed=seed)
        while not game.over:
            game.step(expert.act(None, game.infos[game.agent_selection]))
        assert game.returns == [0.0, 0.0]


@pytest.mark.parametrize("seat", [0, 1])
def test_expert_never_loses_to_random(seat):
    from turngym.agents import make_expert
    from turngym.sdk.evaluation import evaluate

    result = evaluate(
        ID, make_expert, episodes=200, env_kwargs={"opponent": "random", "seat": seat}
    )
    assert all(e.ret >= 0 and e.invalid == 0 for e in result.episodes)
    assert result.success_rate >= (0.9 if seat == 0 else 0.75)  # measured: 0.95 / 0.83


def test_expert_rejects_other_envs():
    with pytest.raises(TypeError, match="TicTacToeExpert needs a TicTacToe"):
        TicTacToeExpert(gym.make("turngym/Bandit-v0"))


def test_the_penalty_has_the_sign_of_a_reward_as_in_text_envs_and_the_old_sign_warns():
    """One sign everywhere: ``invalid_action_penalty=-0.5`` costs the player 0.5."""
    game = TicTacToe(invalid_action_penalty=-0.5)
    game.reset(seed=0)
    game.step("nope")
    assert game.rewards == {"player_0": -0.5, "player_1": 0.5}
    with pytest.warns(DeprecationWarning, match=r"pass -0\.5"):
        old = TicTacToe(invalid_action_penalty=0.5)
    assert old.invalid_action_penalty == -0.5

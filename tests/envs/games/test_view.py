from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import pytest

import turngym
from turngym.agents import RandomAgent
from turngym.envs.games.tictactoe import TicTacToe
from turngym.envs.games.view import GameView

ID = "turngym/TicTacToe-v0"


class Scripted:
    """An opponent that plays a fixed list of moves, and records what it saw."""

    def __init__(self, moves):
        self.moves = list(moves)
        self.seen = []
        self.seeds = []

    def reset(self, seed=None):
        self.seeds.append(seed)

    def act(self, obs, info):
        self.seen.append((obs, info))
        return self.moves.pop(0)


def test_seats_and_who_moves_first():
    env = gym.make(ID, seat=1)
    obs, info = env.reset(seed=0)
    assert "player_0 (X) marked" in obs and "You are O (player_1)." in obs
    assert len(info["legal_actions"]) == 8 and info["seat"] == 1
    env = gym.make(ID, seat="random")
    seats = set()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        seats.add(info["seat"])
    assert seats == {0, 1}


def test_custom_opponent_sees_its_observation_and_legal_actions():
    opponent = Scripted(["a1", "a2"])
    env = gym.make(ID, opponent=opponent, seat=0)
    env.reset(seed=5)
    obs, reward, terminated, _, info = env.step("b2")
    seen_obs, seen_info = opponent.seen[0]
    assert "player_0 (X) marked b2." in seen_obs and "b2" not in seen_info["legal_actions"]
    assert "player_1 (O) marked a1." in obs and reward == 0 and not terminated
    env.step("b1")
    obs, reward, terminated, _, info = env.step("b3")  # b1 b2 b3: X wins
    assert (reward, terminated, info["success"], info["returns"]) == (1.0, True, True, [1.0, -1.0])
    assert opponent.seeds and opponent.seeds[0] is not None


def test_losing_and_invalid_actions():
    env = gym.make(ID, opponent=Scripted(["a1", "b1", "c1"]), seat=1)
    env.reset(seed=0)  # X: a1
    obs, reward, _, _, info = env.step("a1")
    assert info["invalid_action"] and "a1 is taken by X" in obs and reward == 0
    env.step("b2")  # X: b1
    obs, reward, terminated, _, info = env.step("c3")  # X: c1 wins
    assert (reward, terminated, info["success"]) == (-1.0, True, False)
    assert "X has three in a line: player_0 wins." in obs
    obs, reward, terminated, _, info = env.step("a2")  # after the end
    assert info["invalid_action"] and "game is over" in obs and terminated


def test_episode_return_is_the_game_return_with_penalties():
    env = gym.make(ID, opponent="random", seat=0, invalid_action_penalty=-0.25)
    obs, info = env.reset(seed=1)
    obs, total, *_, info = env.step("nonsense")
    agent = RandomAgent(seed=1)
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        total += reward
        done = terminated or truncated
    assert total == pytest.approx(info["returns"][0])


def test_same_seed_same_episode_and_opponents_vary_with_seeds():
    def first_reply(seed):
        env = gym.make(ID, seat=0)
        env.reset(seed=seed)
        obs = env.step("b2")[0]
        return obs.split("player_1 (O) marked ")[1][:2]

    assert first_reply(3) == first_reply(3)
    assert len({first_reply(s) for s in range(12)}) > 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": 2}, "seat must be one of \\[0, 1\\] or 'random', got 2"),
        ({"seat": True}, "seat must be one of"),
        ({"opponent": "stockfish"}, "opponent must be 'random', 'expert' or an agent"),
        ({"opponent": 3}, "has no act\\(obs, info\\) method"),
        ({"render_mode": "rgb_array"}, "render_mode='rgb_array' is not supported"),
        ({"max_invalid_actions": 0}, "max_invalid_actions must be a positive int"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make(ID, **kwargs)


def test_game_class_without_expert_and_bad_game():
    with pytest.raises(ValueError, match="TicTacToe has no registered expert"):
        GameView(TicTacToe, opponent="expert")
    with pytest.raises(ValueError, match="game must be a TextGame class"):
        GameView(dict)
    env = GameView(TicTacToe)
    with pytest.raises(gym.error.ResetNeeded):
        env.step("b2")


def test_render_shows_the_whole_game():
    env = gym.make(ID, render_mode="ansi", seat=0)
    env.reset(seed=0)
    env.step("b2")
    assert env.render().startswith("   a b c\n") and env.render().endswith("X to move")


def test_make_game_and_errors():
    game = turngym.make_game("TicTacToe-v0", invalid_action_penalty=-0.5)
    assert isinstance(game, TicTacToe) and game.invalid_action_penalty == -0.5
    with pytest.raises(ValueError, match="Wordle-v0 is not a multi-agent game; games: TicTacToe"):
        turngym.make_game("Wordle-v0")
    with pytest.raises(ValueError, match="unknown turngym env"):
        turngym.make_game("Nope-v0")


def test_gym_make_of_a_game_in_a_fresh_interpreter():
    code = (
        "import gymnasium as gym\n"
        "env = gym.make('turngym/TicTacToe-v0', opponent='expert')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(info['legal_actions'][0])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "a1"

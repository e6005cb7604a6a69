from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import turngym
from turngym.agents.experts.liars_dice import LiarsDiceExpert, bid_probability
from turngym.envs.games.liars_dice import LIAR, LiarsDice, parse_bid
from turngym.testing import check_game, check_text_env

ID = "turngym/LiarsDice-v0"


def play(game: LiarsDice, actions: list[str]) -> None:
    for action in actions:
        game.step(action)
        assert not any(info["invalid_action"] for info in game.infos.values()), action


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 4, "dice": 2},
        {"num_players": 3, "dice": 1, "wild_ones": False},
        {"num_players": 6, "dice": 5},
    ],
)
def test_check_game_other_tables(kwargs):
    check_game(ID, n_fuzz=500, n_games=200, reset_games=20, make_kwargs=kwargs)


@pytest.mark.parametrize(
    "kwargs", [{}, {"seat": 1}, {"seat": "random"}, {"num_players": 3, "dice": 2, "seat": 2}]
)
def test_single_agent_view_passes_check_text_env(kwargs):
    check_text_env(ID, make_kwargs=kwargs, reset_episodes=20)


# -- rules ---------------------------------------------------------------------------------


def test_dice_are_private_until_a_challenge():
    game = LiarsDice(dice=2)
    game.reset(seed=2)
    assert game.dice == [(2, 6), (1, 2)]
    first = game.observe("player_0")["text"]
    assert first.startswith("Liar's Dice for 2 players (player_0, player_1), 2 dice each.")
    assert "Your dice this round: 2 6." in first and "dice: 1 2" not in first
    assert "You are player_0; your dice: 2 6.\nNo bid yet: player_0 opens." in first
    game.step("bid 1 6")
    text = game.observe("player_1")["text"]
    assert "Your dice this round: 1 2." in text and "dice: 2 6" not in text
    assert "player_0 bids one 6." in text
    assert "Current bid: player_0's bid of one 6 (bid 1 6)." in text


def test_true_bid_challenger_loses_a_die_and_opens_the_next_round():
    game = LiarsDice(dice=2)  # 1s wild
    game.reset(seed=2)  # player_0: 2 6, player_1: 1 2 -> three 2s counting the wild 1
    play(game, ["bid 3 2", "liar"])
    assert game.counts == [2, 1] and game.round == 2 and game.current == 1
    news = game.observe("player_0")["text"]
    assert (
        "player_1 calls liar on player_0's bid of 3 2s. The dice: player_0: 2 6; "
        "player_1: 1 2. There are 3 2s (counting wild 1s): the bid was true, so player_1 "
        "loses a die (1 left)."
    ) in news
    assert "Round 2 starts with 3 dice in play; player_1 opens the bidding." in news
    assert game.rewards == {"player_0": 0.0, "player_1": 0.0}  # paid only at the end
    assert len(game.dice[0]) == 2 and len(game.dice[1]) == 1


def test_false_bid_bidder_loses_and_ones_are_not_wild_when_turned_off():
    game = LiarsDice(dice=2, wild_ones=False)
    game.reset(seed=2)  # the same dice: only two 2s now
    assert game.action_names[:2] == ("bid 1 1", "bid 1 2") and len(game.action_names) == 25
    play(game, ["bid 3 2", "liar"])
    assert game.counts == [1, 2] and game.current == 0
    assert (
        "There are 2 2s: the bid was false, so player_0 loses a die (1 left)."
        in (game.observe("player_1")["text"])
    )


def test_an_exact_count_makes_the_bid_true():
    game = LiarsDice(dice=2)
    game.reset(seed=5)  # player_0: 5 5, player_1: 1 5 -> four 5s with the wild 1
    assert game.dice == [(5, 5), (1, 5)]
    play(game, ["bid 3 5", "bid 4 5", "liar"])
    assert game.counts == [1, 2]  # player_1 bid four 5s, true: the challenger loses


def test_two_player_game_to_the_end():
    game = LiarsDice(dice=1)
    game.reset(seed=0)
    rng = np.random.default_rng(0)
    while not game.over:
        legal = game.legal_actions(game.current)
        game.step(legal[int(rng.integers(len(legal)))])
    winner = game.counts.index(1)
    assert game.counts[1 - winner] == 0
    assert game.returns[winner] == 1.0 and game.returns[1 - winner] == -1.0
    assert game.infos[f"player_{winner}"]["success"]
    text = game.observe("player_0")["text"]
    assert f"player_{winner} is the last player with dice and wins." in text
    assert f"player_{1 - winner} has no dice left and is out." in text


def test_three_players_skip_the_player_who_is_out_and_share_the_loss():
    game = LiarsDice(num_players=3, dice=1)
    game.reset(seed=0)
    assert game.dice == [(6,), (4,), (4,)]
    play(game, ["bid 3 4", "liar"])  # two 4s only: player_0 is out
    assert game.counts == [0, 1, 1] and game.current == 1  # the next player opens
    assert not game.over and game.agents == ["player_0", "player_1", "player_2"]
    assert game.legal_actions(0) == [] and game.dice[0] == ()
    assert "You (player_0) are out of dice." in game.observe("player_0")["text"]
    game.step("bid 1 2")
    assert game.current == 2
    game.step("bid 1 3")
    assert game.current == 1  # player_0 is skipped
    game.step("liar")  # on player_2's one 3
    threes = sum(1 for roll in game.dice for d in roll if d in (1, 3))
    loser = 1 if threes >= 1 else 2
    winner = 3 - loser
    assert game.over and game.counts[loser] == 0
    expected = [-0.5, -0.5, -0.5]
    expected[winner] = 1.0
    assert game.returns == expected and sum(game.returns) == 0
    assert all(game.terminations.values())


def test_a_loser_who_is_out_passes_the_opening_to_the_next_player():
    game = LiarsDice(num_players=3, dice=1)
    game.reset(seed=1)
    assert game.dice == [(3,), (4,), (5,)]
    play(game, ["bid 1 6", "bid 2 6", "liar"])  # no 6 and no 1: player_1 is out
    assert game.counts == [1, 0, 1] and game.current == 2


def test_bid_order_legal_list_and_mask():
    game = LiarsDice(dice=2)
    game.reset(seed=0)
    assert game.action_names == (
        *(f"bid {q} {f}" for q in range(1, 5) for f in range(2, 7)),
        LIAR,
    )
    legal = game.infos["player_0"]["legal_actions"]
    assert legal == list(game.action_names[:-1]) and LIAR not in legal  # opening: a bid
    game.step("bid 2 4")
    legal = game.infos["player_1"]["legal_actions"]
    assert legal[:3] == ["bid 2 5", "bid 2 6", "bid 3 2"] and legal[-1] == LIAR
    mask = game.observe("player_1")["action_mask"]
    assert [game.action_names[k] for k in np.flatnonzero(mask)] == legal
    game.step("bid 4 6")  # the highest bid with 4 dice in play
    assert game.infos["player_0"]["legal_actions"] == [LIAR]


def test_losing_dice_shrinks_the_legal_bids():
    game = LiarsDice(dice=2)
    game.reset(seed=2)
    play(game, ["bid 3 2", "liar"])  # player_1 loses a die: 3 dice in play
    legal = game.infos["player_1"]["legal_actions"]
    assert legal[-1] == "bid 3 6" and len(legal) == 15
    game.step("bid 4 2")
    assert game.infos["player_1"]["invalid_reason"] == (
        "bid 4 2 is not legal now: only 3 dice are in play"
    )


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("bid 3 4", (3, 4)),
        ("BID 3 4", (3, 4)),
        ("  bid   3  4 ", (3, 4)),
        ("3 4", (3, 4)),
        ("3x4", (3, 4)),
        ("3 x 4", (3, 4)),
        ("3*4", (3, 4)),
        ("3 fours", (3, 4)),
        ("three 4s", (3, 4)),
        ("Three Fours", (3, 4)),
        ("3 4's", (3, 4)),
        ("bid: 3 4", (3, 4)),
        ("I bid three fours.", (3, 4)),
        ("raise to 3 4", (3, 4)),
        ("3 of 4", (3, 4)),
        ("twenty-one sixes", (21, 6)),
        ("twenty one 6s", (21, 6)),
        ("2 aces", (2, 1)),
        ("liar", LIAR),
        ("Liar!", LIAR),
        ("call liar", LIAR),
        ("challenge", LIAR),
        ("You're a liar!", LIAR),
        ("dudo", LIAR),
        ("34", None),
        ("bid 3", None),
        ("four", None),
        ("\u0663 \u0664", None),  # Arabic-Indic digits are not read as numbers
        ("", None),
    ],
)
def test_parse_bid_spellings(text, parsed):
    assert parse_bid(text) == parsed


@pytest.mark.parametrize("spelling", ["bid 2 5", "2 fives", "two 5s", "2x5", " BID 2 5\n"])
def test_the_game_accepts_lenient_spellings(spelling):
    game = LiarsDice(dice=2)
    game.reset(seed=0)
    game.step(spelling)
    assert not game.infos["player_0"]["invalid_action"]
    assert game.bids[game.bid] == (2, 5)


@pytest.mark.parametrize(
    ("actions", "reason"),
    [
        (["liar"], "liar is not legal now: there is no bid to challenge yet; open with a bid"),
        (["bid 2 1"], "1s are wild, so bids name a face from 2 to 6"),
        (["bid 2 7"], "there is no face 7; dice show 1-6"),
        (["bid 5 3"], "bid 5 3 is not legal now: a bid names 1 to 4 dice (the dice in play)"),
        (["bid 0 3"], "bid 0 3 is not legal now: a bid names 1 to 4 dice (the dice in play)"),
        (
            ["bid 2 4", "bid 2 3"],
            "bid 2 3 is not legal now: it must beat player_0's bid of 2 4s (bid 2 4) (more "
            "dice, or as many dice of a higher face)",
        ),
        (
            ["bid 2 4", "bid 1 6"],
            "bid 1 6 is not legal now: it must beat player_0's bid of 2 4s (bid 2 4) (more "
            "dice, or as many dice of a higher face)",
        ),
        (
            ["hello"],
            "unknown action 'hello'; bid like 'bid 3 4' (at least three 4s among all dice) "
            "or call 'liar'",
        ),
        ([3.5], "actions are strings, got float"),
    ],
)
def test_invalid_actions_say_why(actions, reason):
    game = LiarsDice(dice=2, invalid_action_penalty=-0.5)
    game.reset(seed=0)
    play(game, actions[:-1])
    agent = game.agent_selection
    game.step(actions[-1])
    info = game.infos[agent]
    assert info["invalid_action"] and info["invalid_reason"] == reason
    assert sum(game.rewards.values()) == 0 and game.rewards[agent] == -0.5
    assert game.agent_selection == agent  # a retry


def test_forfeit_ends_the_game_for_everyone():
    game = LiarsDice(num_players=3, dice=1, max_invalid_actions=1)
    game.reset(seed=0)
    game.step("nonsense")
    assert game.over and game.returns == [-1.0, 0.5, 0.5]
    assert game.check_invariants() is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 1}, "LiarsDice is for 2 to 6 players, got num_players=1"),
        ({"num_players": 7}, "LiarsDice is for 2 to 6 players, got num_players=7"),
        ({"num_players": True}, "LiarsDice is for 2 to 6 players, got num_players=True"),
        ({"dice": 0}, r"dice \(per player\) must be an int from 1 to 5, got 0"),
        ({"dice": 6}, r"dice \(per player\) must be an int from 1 to 5, got 6"),
        ({"dice": 2.0}, r"dice \(per player\) must be an int from 1 to 5, got 2.0"),
        ({"wild_ones": "yes"}, "wild_ones must be True or False, got 'yes'"),
        ({"max_invalid_actions": 0}, "max_invalid_actions must be a positive int or None"),
        ({"render_mode": "rgb_array"}, "render_mode='rgb_array' is not supported"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LiarsDice(**kwargs)


def test_render_shows_every_hand():
    game = LiarsDice(num_players=3, dice=2, render_mode="ansi")
    game.reset(seed=0)
    text = game.render()
    assert text.startswith("Round 1.\nplayer_0: ") and text.count("player_") == 4
    assert text.endswith("Bid: no bid; player_0 to move.")


def test_make_game_and_the_view_pass_options_through():
    game = turngym.make_game(ID, num_players=4, dice=3)
    game.reset(seed=0)
    assert game.possible_agents == [f"player_{i}" for i in range(4)]
    assert game.action_names[-2:] == ("bid 12 6", LIAR)
    env = gym.make(ID, num_players=3, seat=2, opponent="expert")
    obs, info = env.reset(seed=0)
    assert "You are player_2" in obs and info["legal_actions"]


# -- expert ------------------------------------------------------------------------------


def test_bid_probability():
    assert bid_probability(2, 4, (4, 4), others=3, wild_ones=True) == 1.0
    assert bid_probability(6, 4, (4, 4), others=3, wild_ones=True) == 0.0
    # one more 4 among 3 unseen dice, 1s wild: 1 - (2/3)^3
    assert bid_probability(3, 4, (4, 1), others=3, wild_ones=True) == pytest.approx(19 / 27)
    assert bid_probability(3, 4, (4, 1), others=3, wild_ones=False) == pytest.approx(
        3 * (1 / 6) ** 2 * (5 / 6) + (1 / 6) ** 3
    )


def test_expert_challenges_an_impossible_bid_and_raises_a_safe_one():
    game = LiarsDice(dice=2)
    game.reset(seed=0)  # player_0: 4 6, player_1: 2 4
    expert = LiarsDiceExpert(game, seed=0)
    assert expert.act(None, {}) in {"bid 1 4", "bid 1 6"}  # the sure bids
    game.step("bid 1 4")
    # player_1 (2 4) needs one more 2 or 4 among 2 unseen dice for "bid 2 2" or
    # "bid 2 4" (5/9, as likely as its best one-die raises): it bids the most dice
    assert expert.act(None, {}) in {"bid 2 2", "bid 2 4"}
    game.step("bid 4 5")  # player_1 bluffs: four 5s
    assert expert.act(None, {}) == LIAR  # player_0 holds no 5: impossible


def test_expert_never_plays_an_invalid_action_in_bigger_games():
    game = LiarsDice(num_players=5, dice=3)
    expert = LiarsDiceExpert(game)
    for seed in range(20):
        game.reset(seed=seed)
        expert.reset(seed=seed)
        while not game.over:
            agent = game.agent_selection
            game.step(expert.act(None, game.infos[agent]))
            assert not game.infos[agent]["invalid_action"]


def test_expert_beats_random():
    from turngym.agents import make_expert
    from turngym.sdk.evaluation import evaluate

    for seat in (0, 1):
        result = evaluate(
            ID, make_expert, episodes=150, env_kwargs={"opponent": "random", "seat": seat}
        )
        assert all(e.invalid == 0 for e in result.episodes)
        assert result.success_rate >= 0.9  # measured: 1.00 as player_0, 0.99 as player_1


def _expected_count_player(game: LiarsDice) -> str:
    """A simple rival: challenge a bid above the expected count, else raise minimally."""
    mine = game.dice[game.current]
    others = game.in_play - len(mine)
    p = 1 / 3 if game.wild_ones else 1 / 6

    def expected(face: int) -> float:
        return sum(1 for d in mine if d == face or (game.wild_ones and d == 1)) + others * p

    if game.bid >= 0 and game.bids[game.bid][0] > expected(game.bids[game.bid][1]):
        return LIAR
    raises = [a for a in game.legal_actions(game.current) if a != LIAR][: game.num_faces]
    if not raises:
        return LIAR
    return max(raises, key=lambda a: expected(int(a.split()[2])))


def test_expert_beats_an_expected_count_player():
    game = LiarsDice()
    expert = LiarsDiceExpert(game)
    wins = 0
    n = 300
    for seed in range(n):
        seat = seed % 2
        game.reset(seed=seed)
        expert.reset(seed=seed)
        while not game.over:
            game.step(
                expert.act(None, {}) if game.current == seat else _expected_count_player(game)
            )
        wins += game.returns[seat] > 0
    assert wins / n >= 0.8  # measured: 0.92 here (277 of 300), 0.93 over 1,000 games


def test_expert_rejects_bad_tolerance_and_other_envs():
    with pytest.raises(ValueError, match="tolerance must be a number from 0 to 1"):
        LiarsDiceExpert(LiarsDice(), tolerance=2)
    with pytest.raises(TypeError, match="LiarsDiceExpert needs a LiarsDice"):
        LiarsDiceExpert(gym.make("turngym/TicTacToe-v0"))

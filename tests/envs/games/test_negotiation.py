from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import turngym
from turngym.agents import RandomAgent
from turngym.agents.experts.negotiation import NegotiationExpert, best_offer
from turngym.envs.games.negotiation import (
    Command,
    SimpleNegotiation,
    parse_command,
)
from turngym.testing import check_game, check_text_env

ID = "turngym/SimpleNegotiation-v0"
EVEN = [[10] * 5, [10] * 5]
VALUES = [[5, 10, 15, 25, 40], [6, 8, 17, 20, 44]]


def start(holdings=EVEN, values=VALUES, **kwargs) -> SimpleNegotiation:
    game = SimpleNegotiation(**kwargs)
    game.reset(seed=0, options={"holdings": holdings, "values": values})
    return game


def play(game: SimpleNegotiation, actions: list[str]) -> None:
    for action in actions:
        game.step(action)


# -- conformance -----------------------------------------------------------------------


@pytest.mark.parametrize("reward", ["zero_sum", "value"])
def test_check_game(reward):
    check_game(ID, n_fuzz=1000, n_games=1000, make_kwargs={"reward": reward})


@pytest.mark.parametrize("kwargs", [{"seat": 0}, {"seat": 1}, {"seat": "random"}])
def test_single_agent_view_passes_check_text_env(kwargs):
    report = check_text_env(
        ID, make_kwargs={"opponent": "expert", **kwargs}, reset_episodes=20, raise_on_failure=False
    )
    assert report.passed, report.table()


def test_view_against_the_random_opponent_passes_check_text_env():
    # The "random" opponent plays the game's sample_action: well-formed offers and replies.
    check_text_env(ID, reset_episodes=20)


def test_sample_action_makes_offers_and_replies():
    game = start()
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(200):
        if game.over:
            game.reset(seed=len(seen))
        action = game.sample_action(rng)
        seen.add(action.split("[")[-1].split(":")[0].rstrip("]") if "[" in action else "talk")
        game.step(action)
        assert not game.infos[game.possible_agents[0]].get("invalid_action")
        assert not game.infos[game.possible_agents[1]].get("invalid_action")
    assert {"Offer", "Accept", "Deny", "talk"} <= seen


class RandomNegotiator:
    """Random well-formed moves: the game's own sample_action, with a seeded RNG."""

    def __init__(self, game: SimpleNegotiation) -> None:
        self.game = game
        self.reset(0)

    def reset(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, obs, info):
        return self.game.sample_action(self.rng)


class AlwaysAccept:
    """Accepts every offer made to it (it reads its observation); talks otherwise."""

    def __init__(self, game=None) -> None:
        pass

    def reset(self, seed=None):
        pass

    def act(self, obs, info):
        return "Sure! [Accept]" if " offers you: " in obs else "Make me an offer."


@pytest.mark.parametrize("reward", ["zero_sum", "value"])
def test_trading_games_are_zero_sum_conserve_resources_and_end(reward):
    # check_game's random games write no offers in a free-form game; these do.
    game = SimpleNegotiation(reward=reward, invalid_action_penalty=-0.5)
    players = RandomNegotiator(game)
    rng = np.random.default_rng(1)
    trades = 0
    for seed in range(1000):
        game.reset(seed=seed)
        players.reset(seed)
        steps = 0
        while not game.over:
            roll = rng.random()
            action = players.act(None, {}) if roll > 0.05 else ["[Accept]", 17, "[?]"][seed % 3]
            game.step(action)
            steps += 1
            rewards = list(game.rewards.values())
            assert all(math.isfinite(r) for r in rewards)
            if reward == "zero_sum":
                assert sum(rewards) == 0
            assert game.check_invariants() is None
            assert steps < 100
        trades += game.trades
    assert trades > 1000  # measured: ~2 trades a game


# -- rules -----------------------------------------------------------------------------


def test_trades_values_and_zero_sum_payout():
    game = start(max_turns=4)
    game.step("I have wood to spare. [Offer: 2 Wood -> 1 Sheep]")
    obs = game.observe("player_1")["text"]
    assert "player_0 says: I have wood to spare." in obs
    assert "player_0 offers player_1: player_0 gives 2 Wood; player_1 gives 1 Sheep." in obs
    assert "player_0 offers you: you give 1 Sheep, you get 2 Wood." in obs
    game.step("[Accept]")
    assert game.holdings == [[10, 8, 11, 10, 10], [10, 12, 9, 10, 10]] and game.trades == 1
    assert (
        "player_1 accepts: player_0 gives 2 Wood; player_1 gives 1 Sheep."
        in game.observe("player_0")["text"]
    )
    assert "change -5" in game.observe("player_0")["text"]  # 15 - 2 * 10
    game.step("[Offer: 1 Ore -> 3 Wheat]")
    assert not game.over
    game.step("[Accept]")  # the last turn: the trade happens, then the game ends
    # player_0: -5 + (3 * 5 - 40) = -30; player_1: (2 * 8 - 17) + (44 - 3 * 6) = +25
    assert game.over and game.returns == [-1.0, 1.0]
    assert game.rewards == {"player_0": -1.0, "player_1": 1.0}
    text = game.observe("player_0")["text"]
    assert "All 4 turns are played." in text and "player_0 -30, player_1 +25" in text
    assert "player_1's values: Wheat 6, Wood 8, Sheep 17, Brick 20, Ore 44" in text
    assert "player_1 wins." in text and not game.success("player_0") and game.success("player_1")


def test_value_reward_pays_each_its_own_change():
    game = start(max_turns=4, reward="value")
    assert game.zero_sum is False and SimpleNegotiation.zero_sum is True
    assert "Each player's reward is its own value change." in game.observe("player_0")["text"]
    play(game, ["[Offer: 2 Wood -> 1 Sheep]", "[Accept]", "[Offer: 1 Ore -> 3 Wheat]", "[Accept]"])
    assert game.returns == [-30.0, 25.0]


def test_no_trade_is_a_draw():
    game = start(max_turns=2)
    play(game, ["hello", "[Offer: 1 Wheat -> 1 Ore]"])  # an offer in the last turn: no reply
    assert game.over and game.returns == [0.0, 0.0] and game.trades == 0
    assert "A draw." in game.observe("player_1")["text"]


def test_offers_lapse_and_counter_offers_decline():
    game = start(max_turns=6)
    game.step("[Offer: 1 Wheat -> 1 Wood]")
    game.step("Not interested.")  # talk only: the offer lapses
    assert game.offer is None
    assert "player_1 declines player_0's offer." in game.observe("player_0")["text"]
    game.step("[Accept]")  # nothing open to player_0
    assert game.infos["player_0"]["invalid_reason"] == (
        "[Accept] is not legal now: no offer to you is open"
    )
    game.step("[Offer: 1 Wheat -> 1 Wood]")
    game.step("[Deny] Counter: [Offer: 2 Wood -> 1 Ore]")
    text = game.observe("player_0")["text"]
    assert "player_1 declines player_0's offer." in text
    assert "player_1 offers you: you give 1 Ore, you get 2 Wood." in text
    game.step("[Deny]")
    assert (
        game.offer is None
        and "player_0 denies player_1's offer." in game.observe("player_1")["text"]
    )
    assert [e[2] for e in game.history] == ["offer", "deny", "offer", "deny", "offer", "deny"]


def test_a_trade_fails_when_the_responder_lacks_what_is_asked():
    game = start(holdings=[[10] * 5, [2, 10, 10, 10, 10]], max_turns=4)
    game.step("[Offer: 1 Ore -> 3 Wheat]")  # player_0 cannot see that player_1 has 2 Wheat
    game.step("[Accept]")
    assert game.trades == 0 and game.holdings[1][0] == 2
    assert (
        "player_1 accepts, but the trade fails: player_1 holds 2 Wheat, not 3."
        in (game.observe("player_0")["text"])
    )


def test_turns_left_and_invalid_actions_do_not_use_turns():
    game = start(max_turns=3)
    assert "Turn 1 of 3; you have 2 turn(s) left." in game.observe("player_0")["text"]
    game.step("[nonsense]")
    assert game.turn == 0 and game.agent_selection == "player_0"
    game.step("hi")
    assert "Turn 2 of 3; you have 1 turn(s) left." in game.observe("player_1")["text"]


def test_a_forfeit_in_value_mode_costs_more_than_any_trade_could():
    game = start(max_turns=6, reward="value", max_invalid_actions=1)
    play(game, ["[Offer: 2 Wood -> 1 Sheep]", "[Accept]", "[Accept]"])  # the last is invalid
    # player_1 is paid its value change (-1); player_0, who quit, its whole start value + 1
    assert game.over and game.returns == [-float(game.start_values[0]) - 1, -1.0]
    assert not game.success("player_0")
    game = start(max_turns=6, max_invalid_actions=1)
    play(game, ["[Offer: 2 Wood -> 1 Sheep]", "[Accept]", "[Accept]"])
    assert game.returns == [-1.0, 1.0]


def test_talk_is_one_line_and_cut():
    game = start()
    game.step("line one\nplayer_1 accepts: fake news " + "x" * 1000)
    text = game.observe("player_1")["text"]
    assert "player_0 says: line one player_1 accepts: fake news xxx" in text
    assert "\nplayer_1 accepts" not in text and "x" * 501 not in text


def test_observation_render_and_invariants():
    game = SimpleNegotiation(render_mode="ansi")
    game.reset(seed=3)
    obs = game.observe("player_0")
    assert set(obs) == {"text"} and obs["text"].startswith("Simple Negotiation. Two players")
    assert "legal_actions" not in game.infos["player_0"]
    assert "Your resources (units x your value per unit):" in obs["text"]
    assert "turn 1/10, 0 trades, player_0 to move" in game.render()
    assert game.check_invariants() is None
    game.holdings[0][4] += 1
    assert game.check_invariants().startswith("Ore not conserved")
    game.holdings[0][4] = -1
    assert game.check_invariants().startswith("negative holdings of Ore")


def test_deals_are_seeded_and_within_the_stated_ranges():
    game = SimpleNegotiation()
    seen = []
    for seed in range(200):
        game.reset(seed=seed)
        seen.append((game.holdings, game.values))
        assert all(5 <= q <= 25 for row in game.holdings for q in row)
        for values in game.values:
            assert all(
                0.8 * b <= v <= 1.2 * b for v, b in zip(values, (5, 10, 15, 25, 40), strict=True)
            )
    game.reset(seed=7)
    again = (game.holdings, game.values)
    assert again == seen[7] and seen[7] != seen[8]


# -- parsing ---------------------------------------------------------------------------

GIVE_2_WOOD_1_SHEEP = Command("offer", (0, 2, 1, 0, 0), (3, 0, 0, 0, 0))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Offer: 2 Wood, 1 Sheep -> 3 Wheat", GIVE_2_WOOD_1_SHEEP),
        ("offer:2 wood,1 sheep->3 wheat", GIVE_2_WOOD_1_SHEEP),
        ("OFFER 2 Woods and 1 Sheep -> 3 Wheats", GIVE_2_WOOD_1_SHEEP),
        ("Offer: 2 wood, sheep -> 3 wheat", GIVE_2_WOOD_1_SHEEP),
        ("Offer: two wood & a sheep => three wheat.", GIVE_2_WOOD_1_SHEEP),
        ("Offer: 1 Wood + 1 Wood + 1 Sheep -> 3 Wheat", GIVE_2_WOOD_1_SHEEP),
        ("Offer: Wood x2, 1x Sheep \u2192 3 Wheat", GIVE_2_WOOD_1_SHEEP),
        ("offer: I give 2 Wood, 1 Sheep for 3 Wheat", GIVE_2_WOOD_1_SHEEP),
        ("Trade: 2 units of wood; 1 sheep -> 3 wheat", GIVE_2_WOOD_1_SHEEP),
        ("Accept", Command("accept")),
        ("  accepted. ", Command("accept")),
        ("I accept", Command("accept")),
        ("DENY", Command("deny")),
        ("Reject", Command("deny")),
        ("decline!", Command("deny")),
    ],
)
def test_parse_command_spellings(text, expected):
    assert parse_command(text) == expected


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Offer: 2 Gold -> 1 Ore", "unknown word 'gold'"),
        ("Offer: 2 Wood", "needs '->'"),
        ("Offer: 2 Wood -> 1 Ore -> 1 Wheat", "one '->'"),
        ("Offer: -> 1 Ore", "nothing on the give side"),
        ("Offer: 1 Ore ->", "nothing on the get side"),
        ("Offer: 0 Wood -> 1 Ore", "from 1 to 1000, got 0"),
        ("Offer: 5000 Wood -> 1 Ore", "from 1 to 1000, got 5000"),
        ("Offer: 2 Wood Ore -> 1 Sheep", "names two resources"),
        ("Offer: 2 3 Wood -> 1 Sheep", "two quantities"),
        ("Offer: 1 Ore -> 2 Ore", "Ore is on both sides"),
        ("Maybe later", "unknown command [Maybe later]"),
    ],
)
def test_parse_command_errors(text, words):
    result = parse_command(text)
    assert isinstance(result, str) and words in result


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("[Accept]", "[Accept] is not legal now: no offer to you is open"),
        ("[Deny]", "[Deny] is not legal now: no offer to you is open"),
        ("[Offer: 11 Ore -> 1 Wheat]", "you cannot give 11 Ore, you hold 10"),
        ("[Offer: 1 Ore -> 1 Wheat] and [Offer: 1 Ore -> 2 Wheat]", "one command per turn"),
        ("[Accept] [Deny]", "one command per turn, got [Accept], [Deny]"),
        ("a [ b", "a '[' without its ']'"),
        ("a ] b", "a ']' without its '['"),
        ("[[Accept]]", "brackets inside brackets"),
        ("[smiles]", "unknown command [smiles]"),
        ("[Offer: 1 Gold -> 1 Wheat]", "unknown word 'gold'"),
    ],
)
def test_invalid_actions_say_why(action, reason):
    game = start(invalid_action_penalty=-0.25)
    game.step(action)
    info = game.infos["player_0"]
    assert info["invalid_action"] and reason in info["invalid_reason"]
    assert game.rewards == {"player_0": -0.25, "player_1": 0.25}
    assert game.agent_selection == "player_0" and game.turn == 0


def test_non_string_and_empty_actions():
    game = start()
    game.step(None)
    assert game.infos["player_0"]["invalid_reason"] == "actions are strings, got NoneType"
    game.step("")  # saying nothing is a legal (if useless) turn
    assert not game.infos["player_0"]["invalid_action"] and game.turn == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_turns": 1}, "max_turns must be an int >= 2"),
        ({"max_turns": "10"}, "max_turns must be an int >= 2"),
        ({"max_turns": True}, "max_turns must be an int >= 2"),
        ({"reward": "win"}, "reward must be 'zero_sum' or 'value', got 'win'"),
        ({"num_players": 3}, "SimpleNegotiation is for 2 players"),
        ({"max_invalid_actions": 0}, "max_invalid_actions must be a positive int or None"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SimpleNegotiation(**kwargs)


@pytest.mark.parametrize(
    "options",
    [{"holdings": [[1] * 5]}, {"values": [[0] * 5, [1] * 5]}, {"holdings": [[1.5] * 5] * 2}],
)
def test_bad_position_options(options):
    with pytest.raises(ValueError, match=r"must be two lists of 5 ints"):
        SimpleNegotiation().reset(seed=0, options=options)


# -- expert ----------------------------------------------------------------------------


def test_best_offer_is_fair_at_base_values_and_skips_declined_offers():
    values = (4, 10, 15, 25, 48)  # Wheat cheap, Ore dear to us
    give, get = best_offer([9, 0, 0, 0, 0], values, [5] * 5, zero_sum=True)
    assert (give, get) == ((8, 0, 0, 0, 0), (0, 0, 0, 0, 1))  # 8 * 5 = 40 = 1 Ore at base
    other = best_offer([9, 0, 0, 0, 0], values, [5] * 5, zero_sum=True, declined={(give, get)})
    assert other is not None and other != (give, get)
    assert best_offer([0] * 5, values, [5] * 5, zero_sum=True) is None
    assert best_offer([9, 0, 0, 0, 0], values, [5, 5, 5, 5, 0], zero_sum=True)[1][4] == 0


def duel(opponent_cls, reward: str, games: int = 200) -> tuple[np.ndarray, int]:
    """The expert against ``opponent_cls``, seats alternating: (returns rows, expert invalids)."""
    game = SimpleNegotiation(reward=reward)
    expert = NegotiationExpert(game)
    opponent = opponent_cls(game) if opponent_cls is not RandomAgent else RandomAgent()
    rows, invalid = [], 0
    for seed in range(games):
        seat = seed % 2
        game.reset(seed=seed)
        expert.reset(seed=seed)
        opponent.reset(seed=seed)
        while not game.over:
            agent = game.agent_selection
            me = game.current == seat
            player = expert if me else opponent
            game.step(player.act(game.observe(agent)["text"], game.infos[agent]))
            invalid += me and game.infos[agent]["invalid_action"]
        rows.append((game.returns[seat], game.returns[1 - seat]))
    return np.array(rows), invalid


def test_expert_never_loses_to_random_text():
    rows, invalid = duel(RandomAgent, "zero_sum")
    # Random text never makes or takes an offer: draws, and wins when it forfeits.
    assert invalid == 0 and (rows[:, 0] >= 0).all()
    assert 0 < (rows[:, 0] > 0).mean() < 0.2  # measured: 0.07 (by forfeits), 0.93 draws


@pytest.mark.parametrize(
    ("opponent", "least_wins", "most_losses"),
    [(RandomNegotiator, 0.75, 0.1), (AlwaysAccept, 0.75, 0.2)],
)
def test_expert_beats_random_and_naive_traders(opponent, least_wins, most_losses):
    rows, invalid = duel(opponent, "zero_sum")
    wins, losses = (rows[:, 0] > 0).mean(), (rows[:, 0] < 0).mean()
    # measured over these 200 games: RandomNegotiator wins 0.905, loses 0.035;
    # AlwaysAccept wins 0.885, loses 0.105 (expert self-play: 0.46 / 0.425)
    assert invalid == 0 and wins >= least_wins and losses <= most_losses


def test_expert_gains_value_in_value_mode():
    rows, invalid = duel(AlwaysAccept, "value")
    assert invalid == 0 and rows[:, 0].mean() > 30  # measured: +47.2 a game (opponent +2.8)
    rows, invalid = duel(NegotiationExpert, "value")
    # self-play: offers fair at base values make trades that both gain from on average
    assert invalid == 0 and rows.mean() > 15  # measured: +33.5 and +33.2


def test_expert_plays_through_the_view_and_rejects_other_games():
    env = gym.make(ID, opponent=AlwaysAccept(), seat=1)
    expert = NegotiationExpert(env)
    obs, info = env.reset(seed=4)
    done, total = False, 0.0
    while not done:
        obs, reward, terminated, truncated, info = env.step(expert.act(obs, info))
        assert not info["invalid_action"]
        total += reward
        done = terminated or truncated
    assert info["returns"][1] == total == 1.0 and info["success"]
    with pytest.raises(TypeError, match="NegotiationExpert needs a SimpleNegotiation"):
        NegotiationExpert(turngym.make_game("turngym/TicTacToe-v0"))

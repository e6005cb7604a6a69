from __future__ import annotations

import itertools
from fractions import Fraction

import gymnasium as gym
import numpy as np
import pytest

import turngym
from turngym.agents.experts.kuhn_poker import KuhnPokerExpert, nash_strategy
from turngym.envs.games.kuhn_poker import RANKS, KuhnPoker
from turngym.testing import check_game, check_text_env

ID = "turngym/KuhnPoker-v0"
J, Q, K = 0, 1, 2


def dealt(cards: list[int], **kwargs) -> KuhnPoker:
    """A game whose first hand deals ``cards`` (found by trying seeds, not by editing)."""
    game = KuhnPoker(**kwargs)
    for seed in range(1000):
        game.reset(seed=seed)
        if game.cards == cards:
            return game
    raise AssertionError(f"no seed deals {cards}")


def play(game: KuhnPoker, actions: list[str]) -> None:
    for action in actions:
        assert game.infos[game.agent_selection]["legal_actions"], "not a live turn"
        game.step(action)
        assert not game.infos[game.possible_agents[0]]["invalid_action"]
        assert not game.infos[game.possible_agents[1]]["invalid_action"]


def test_check_game_several_hands():
    check_game(ID, n_fuzz=1000, n_games=300, make_kwargs={"rounds": 5})


@pytest.mark.parametrize("kwargs", [{}, {"seat": 1}, {"seat": "random", "rounds": 3}])
def test_single_agent_view_passes_check_text_env(kwargs):
    check_text_env(ID, make_kwargs=kwargs, reset_episodes=20)


# -- every betting line, hand-checked --------------------------------------------------

# (cards of player_0 and player_1, actions from player_0 who acts first, returns)
LINES = [
    ([K, Q], ["check", "check"], [1, -1]),  # showdown: the K takes the antes
    ([J, Q], ["check", "check"], [-1, 1]),
    ([J, K], ["bet", "fold"], [1, -1]),  # the bluff wins the antes
    ([Q, K], ["bet", "call"], [-2, 2]),  # showdown for 2 each
    ([K, J], ["bet", "call"], [2, -2]),
    ([K, J], ["check", "bet", "fold"], [-1, 1]),  # folding the K: loses the ante
    ([K, J], ["check", "bet", "call"], [2, -2]),
    ([J, Q], ["check", "bet", "call"], [-2, 2]),
]


@pytest.mark.parametrize(("cards", "actions", "returns"), LINES)
def test_every_betting_line_pays_exactly(cards, actions, returns):
    game = dealt(cards)
    assert (game.stacks, game.pot, game.put) == ([99, 99], 2, [1, 1])  # the antes
    play(game, actions[:-1])
    assert game.returns == [0.0, 0.0] and not game.over  # nothing is paid mid-hand
    play(game, actions[-1:])
    assert game.over and game.returns == returns
    assert game.rewards == {"player_0": returns[0], "player_1": returns[1]}
    assert game.stacks == [100 + returns[0], 100 + returns[1]] and game.pot == 0
    assert game.check_invariants() is None
    text = game.observe("player_0")["text"]
    if actions[-1] == "fold":  # the cards stay hidden
        assert "Showdown" not in text and "wins the pot of 3" in text
    else:
        pot = 4 if "bet" in actions else 2
        shown = f"player_0 shows {RANKS[cards[0]]}, player_1 shows {RANKS[cards[1]]}"
        assert f"Showdown: {shown}; player_" in text and f"wins the pot of {pot}" in text


def test_pot_and_stacks_follow_each_bet():
    game = dealt([Q, K])
    game.step("check")
    game.step("bet")
    assert (game.pot, game.put, game.stacks) == (3, [1, 2], [99, 98])
    assert game.check_invariants() is None
    view = game.observe("player_0")["text"]
    assert "Pot: 3 (you put in 1, player_1 2). Stacks: you 99, player_1 98." in view
    assert "This hand so far: player_0 checks. player_1 bets 1 chip.\nYour turn." in view
    assert game.infos["player_0"]["legal_actions"] == ["call", "fold"]


def test_check_invariants_catches_broken_accounting():
    game = dealt([Q, K])
    game.step("bet")
    game.pot += 1
    assert "chips not conserved" in game.check_invariants()
    game.pot -= 1
    game.put[0] -= 1
    assert "is not the sum of this hand's bets" in game.check_invariants()
    game.put[0] += 1
    game.stacks = [-1, 201 - game.pot]
    assert "a negative stack" in game.check_invariants()
    game.stacks = [98, 99]
    game.net[0] = 5
    assert "paid net [5, 0] disagrees" in game.check_invariants()


def test_several_hands_alternate_the_first_player_and_add_up():
    game = KuhnPoker(rounds=4, starting_chips=10)
    game.reset(seed=0)
    firsts, total = [], [0.0, 0.0]
    text = game.observe("player_0")["text"]
    assert "Kuhn poker, 4 hands" in text and "Each player starts with 10 chips" in text
    assert "Hand 1 of 4: both players ante 1 chip; player_0 acts first." in text
    for hand in range(4):
        assert game.hand == hand
        firsts.append(game.agent_selection)
        game.step("bet")
        game.step("call")
        total = [t + game.rewards[a] for t, a in zip(total, game.possible_agents, strict=True)]
        assert game.check_invariants() is None
    assert firsts == ["player_0", "player_1", "player_0", "player_1"]
    assert game.over and game.returns == total and sum(total) == 0
    assert game.stacks == [10 + total[0], 10 + total[1]]
    assert "Game over after 4 hands" in game.observe("player_1")["text"]


def test_news_since_the_last_action_and_private_cards():
    game = dealt([J, K], rounds=2)
    first = game.observe("player_0")["text"]
    assert first.startswith("Kuhn poker, 2 hands, two players.")
    assert "You are dealt the J." in first and "dealt the K" not in first
    assert "You are dealt the K." in game.observe("player_1")["text"]
    game.step("bet")
    game.step("fold")
    news = game.observe("player_0")["text"]
    assert news.startswith("player_0 bets 1 chip.\nplayer_1 folds.\nplayer_0 wins the pot of 3")
    assert "Hand 2 of 2: both players ante 1 chip; player_1 acts first." in news
    assert not news.startswith("Kuhn poker")  # the rules are shown once


def test_random_play_conserves_chips_over_many_hands():
    game = KuhnPoker(rounds=50)
    rng = np.random.default_rng(0)
    for seed in range(40):
        game.reset(seed=seed)
        while not game.over:
            legal = game.infos[game.agent_selection]["legal_actions"]
            game.step(legal[int(rng.integers(len(legal)))])
            assert game.check_invariants() is None
            assert sum(game.rewards.values()) == 0
        assert game.returns == [s - 100 for s in game.stacks] and game.hand == 50


def test_deals_are_uniform_and_seeded():
    game = KuhnPoker(rounds=600)
    game.reset(seed=1)
    deals = []
    while not game.over:
        if game.line == "":
            deals.append(tuple(game.cards))
        game.step("bet")
        game.step("fold")
    counts = [deals.count(d) for d in itertools.permutations(range(3), 2)]
    assert len(deals) == 600 and min(counts) > 70 and max(counts) < 130  # expect 100 each
    game.reset(seed=1)
    assert tuple(game.cards) == deals[0]


# -- parsing and invalid actions -------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "meaning"),
    [
        ("bet", "bet"),
        ("BET", "bet"),
        ("  Bet ", "bet"),
        ("[bet]", "bet"),
        ("bet.", "bet"),
        ("raise", "bet"),
        ("[Raise]", "bet"),
        ("check", "check"),
        ("Check!", "check"),
        ("pass", "check"),
    ],
)
def test_lenient_spellings_with_no_bet_out(spelling, meaning):
    game = dealt([Q, K])
    game.step(spelling)
    assert not game.infos["player_0"]["invalid_action"]
    assert game.line == meaning


@pytest.mark.parametrize(
    ("spelling", "meaning"),
    [("call", "call"), ("CALL", "call"), ("[call]", "call"), ("fold", "fold"), ("pass", "fold")],
)
def test_lenient_spellings_facing_a_bet(spelling, meaning):
    game = dealt([Q, K])
    game.step("bet")
    game.step(spelling)
    assert not game.infos["player_1"]["invalid_action"] and game.over
    assert game.returns == ([-2, 2] if meaning == "call" else [1, -1])


@pytest.mark.parametrize(
    ("before", "action", "reason"),
    [
        ([], "call", "call is not legal now: there is no bet to call (legal: check, bet)"),
        ([], "fold", "fold is not legal now: there is no bet to fold to (legal: check, bet)"),
        (["bet"], "check", "check is not legal now: there is a bet to call or fold to"),
        (["bet"], "bet", "bet is not legal now: there is already a bet (one bet a hand)"),
        (["check", "bet"], "raise", "raise is not legal now: Kuhn poker has no raises"),
        ([], "all in", "unknown action; legal now: check, bet"),
        ([], "", "unknown action; legal now: check, bet"),
    ],
)
def test_invalid_actions_say_why(before, action, reason):
    game = dealt([Q, K])
    play(game, before)
    agent = game.agent_selection
    game.step(action)
    info = game.infos[agent]
    assert info["invalid_action"] and info["invalid_reason"].startswith(reason)
    assert game.agent_selection == agent and game.check_invariants() is None


def test_forfeit_loses_the_match_and_ends_the_episode():
    game = dealt([K, J], rounds=5, max_invalid_actions=2, invalid_action_penalty=-0.5)
    game.step("check")
    game.step("bet")  # player_1 bets: 2 chips in, player_0 1
    game.step("raise")
    game.step(3)
    assert game.over and game.hand == 1
    # the match is lost: 2 chips a hand x 5 hands; the two penalties move 1 more of reward
    assert game.returns == [-11.0, 11.0] and game.stacks == [90, 110]
    assert game.check_invariants() is None
    text = game.observe("player_1")["text"]
    assert "player_0 forfeits after too many invalid actions and loses the match" in text
    assert "Game over after 1 hand: player_1 wins 10 chips" in text


def test_a_player_ahead_in_chips_cannot_keep_its_lead_by_forfeiting():
    game = dealt([K, J], rounds=5, max_invalid_actions=1)
    game.step("bet")
    game.step("fold")  # player_0 wins hand 1: +1
    assert game.returns == [1.0, -1.0] and not game.over
    agent = game.agent_selection
    game.step("nonsense")  # whoever is to act in hand 2 quits
    i = int(agent[-1])
    assert game.over and not game.success(agent)
    assert game.returns[i] == -10.0 and game.returns[1 - i] == 10.0
    assert game.check_invariants() is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rounds": 0}, "rounds must be an int >= 1"),
        ({"rounds": 2.5}, "rounds must be an int >= 1"),
        ({"rounds": True}, "rounds must be an int >= 1"),
        ({"rounds": 3, "starting_chips": 5}, r"starting_chips must be None or an int >= 2 \* "),
        ({"starting_chips": "100"}, "starting_chips must be None or an int"),
        ({"max_invalid_actions": 0}, "max_invalid_actions must be a positive int or None"),
        ({"render_mode": "rgb_array"}, "render_mode='rgb_array' is not supported"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        KuhnPoker(**kwargs)


def test_default_stack_covers_every_hand_and_render():
    assert KuhnPoker().starting_chips == 100 and KuhnPoker(rounds=80).starting_chips == 160
    game = dealt([Q, K], render_mode="ansi")
    game.step("check")
    assert game.render() == (
        "Hand 1/1: player_0 Q (stack 99, in 1), player_1 K (stack 99, in 1); pot 2; "
        "betting: check; player_1 to act"
    )


# -- expert ----------------------------------------------------------------------------


def first_player_value(strategy) -> Fraction:
    """The exact expected chips of the first player, both playing ``strategy``."""
    value = Fraction(0)
    for c1, c2 in itertools.permutations(range(3), 2):
        win = 1 if c1 > c2 else -1
        bet, call = strategy[""][c1], strategy["bet"][c2]
        after_check_bet, call_late = strategy["check"][c2], strategy["check bet"][c1]
        if_bet = call * 2 * win + (1 - call) * 1
        if_check = (1 - after_check_bet) * win + after_check_bet * (
            call_late * 2 * win - (1 - call_late)
        )
        value += Fraction(1, 6) * (bet * if_bet + (1 - bet) * if_check)
    return value


@pytest.mark.parametrize("alpha", [Fraction(0), Fraction(1, 6), Fraction(1, 3)])
def test_nash_family_is_worth_minus_one_eighteenth_exactly(alpha):
    assert first_player_value(nash_strategy(alpha)) == Fraction(-1, 18)


def test_expert_self_play_value_through_the_env():
    # 200,000 hands in 20 episodes of 10,000 (the first player alternates each hand).
    # Measured: -0.0593 (its standard error is 0.003); the game value is -1/18 = -0.0556.
    # About 2.5 s on one core.
    game = KuhnPoker(rounds=10_000)
    expert = KuhnPokerExpert(game)
    total, hands = 0.0, 0
    for episode in range(20):
        expert.reset(seed=episode)
        game.reset(seed=episode)
        while not game.over:
            hand, first = game.hand, game.possible_agents[game.first]
            game.step(expert.act(None, game.infos[game.agent_selection]))
            if game.hand != hand:  # the hand just ended: its reward is the hand's net
                total += game.rewards[first]
                hands += 1
    assert hands == 200_000
    assert abs(total / hands - (-1 / 18)) < 0.01


def test_expert_plays_the_equilibrium_frequencies():
    game = dealt([J, Q])
    expert = KuhnPokerExpert(game, seed=0)
    bets = sum(expert.act(None, {}) == "bet" for _ in range(6000))
    assert abs(bets / 6000 - 1 / 3) < 0.02  # the J bluffs with alpha = 1/3
    game.step("check")  # player_1 holds the Q after a check: always checks
    assert {expert.act(None, {}) for _ in range(200)} == {"check"}
    cautious = KuhnPokerExpert(dealt([J, Q]), alpha=0)
    assert {cautious.act(None, {}) for _ in range(200)} == {"check"}  # alpha = 0: no bluffs


def test_expert_never_reads_the_other_card():
    # The same card, line and seed give the same actions whatever the opponent holds.
    for mine, line in itertools.product(range(3), ["", "check", "bet", "check bet"]):
        seen = []
        for theirs in set(range(3)) - {mine}:
            game = KuhnPoker()
            game.reset(seed=0)
            seat = 0 if line in ("", "check bet") else 1
            game.cards = [mine, theirs] if seat == 0 else [theirs, mine]
            game.line, game.current = line, seat
            expert = KuhnPokerExpert(game, seed=7)
            seen.append([expert.act(None, {}) for _ in range(50)])
        assert seen[0] == seen[1], (mine, line)


@pytest.mark.parametrize("seat", [0, 1])
def test_expert_beats_random(seat):
    from turngym.agents import make_expert
    from turngym.sdk.evaluation import evaluate

    result = evaluate(
        ID,
        make_expert,
        episodes=200,
        env_kwargs={"opponent": "random", "seat": seat, "rounds": 10},
    )
    per_hand = sum(e.ret for e in result.episodes) / 2000
    assert all(e.invalid == 0 for e in result.episodes)
    # measured here: +0.177 (seat 0) and +0.133 (seat 1) chips a hand, standard error
    # 0.03; over 20,000 hands of direct play +0.17 and +0.15
    assert per_hand > 0.08


def test_expert_validates_and_rejects_other_envs():
    with pytest.raises(TypeError, match="KuhnPokerExpert needs a KuhnPoker"):
        KuhnPokerExpert(gym.make("turngym/Bandit-v0"))
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1/3\]"):
        KuhnPokerExpert(KuhnPoker(), alpha=0.5)
    expert = KuhnPokerExpert(gym.make(ID))  # through a GameView
    assert isinstance(expert.game, KuhnPoker)
    assert turngym.make_game(ID).action_names == ("check", "bet", "call", "fold")

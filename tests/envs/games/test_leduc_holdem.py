from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import pytest

import turngym
from turngym.agents.experts.leduc_holdem import LeducHoldemExpert, choose, hand_class
from turngym.envs.games.leduc_holdem import CARDS, LeducHoldem, strength
from turngym.testing import check_game, check_text_env

ID = "turngym/LeducHoldem-v0"


def dealt(mine: str, theirs: str, public: str, **kwargs) -> LeducHoldem:
    """A game whose first hand deals these cards (found by trying seeds, not by editing)."""
    want = ([CARDS.index(mine), CARDS.index(theirs)], CARDS.index(public))
    game = LeducHoldem(**kwargs)
    for seed in range(3000):
        game.reset(seed=seed)
        if (game.cards, game.public) == want:
            return game
    raise AssertionError(f"no seed deals {want}")


def play(game: LeducHoldem, actions: list[str]) -> None:
    for action in actions:
        agent = game.agent_selection
        game.step(action)
        assert not game.infos[agent]["invalid_action"], game.infos[agent]


def test_check_game_several_hands():
    check_game(ID, n_fuzz=1000, n_games=300, make_kwargs={"rounds": 4})


@pytest.mark.parametrize("kwargs", [{}, {"seat": 1}, {"seat": "random", "rounds": 3}])
def test_single_agent_view_passes_check_text_env(kwargs):
    check_text_env(ID, make_kwargs=kwargs, reset_episodes=20)


# -- hand-checked hands (player_0 acts first in both rounds of hand 1) -----------------

HANDS = [
    # both check twice: the higher card takes the antes
    (("K♠", "Q♠", "J♠"), ["check", "check", "check", "check"], [1, -1]),
    # a pair with the public card beats the K: 1 + 2 + 4 chips each
    (("J♠", "K♠", "J♥"), ["bet", "call", "bet", "call"], [7, -7]),
    # the most a hand can cost: a bet, a raise and a call in both rounds, 13 chips each
    (("K♠", "Q♠", "J♠"), ["bet", "raise", "call", "bet", "raise", "call"], [13, -13]),
    (("Q♠", "K♥", "J♠"), ["check", "bet", "raise", "call", "check", "check"], [-5, 5]),
    # equal ranks split the pot
    (("Q♠", "Q♥", "K♠"), ["bet", "raise", "call", "check", "check"], [0, 0]),
    # folds: the folder loses what it put in
    (("K♠", "Q♠", "J♠"), ["bet", "fold"], [1, -1]),
    (("J♠", "Q♠", "K♠"), ["bet", "raise", "fold"], [-3, 3]),
    (("J♠", "Q♠", "K♠"), ["check", "check", "check", "bet", "raise", "fold"], [5, -5]),
]


@pytest.mark.parametrize(("cards", "actions", "returns"), HANDS)
def test_hands_pay_exactly(cards, actions, returns):
    game = dealt(*cards)
    assert (game.stacks, game.pot, game.put) == ([99, 99], 2, [1, 1])  # the antes
    play(game, actions[:-1])
    assert not game.over and game.returns == [0.0, 0.0]
    play(game, actions[-1:])
    assert game.over and game.returns == returns and sum(game.rewards.values()) == 0
    assert game.stacks == [100 + returns[0], 100 + returns[1]] and game.pot == 0
    assert game.check_invariants() is None
    text = game.observe("player_1")["text"]
    if actions[-1] == "fold":
        assert "Showdown" not in text
    elif returns == [0, 0]:
        assert "equal ranks split the pot of 10 (+0 each)." in text
    else:
        assert f"Showdown with the public {cards[2]}: player_0 shows {cards[0]}" in text


def test_bets_raises_and_the_cap_in_each_round():
    game = dealt("K♠", "Q♠", "J♠")

    def legal() -> list[str]:
        return game.infos[game.agent_selection]["legal_actions"]

    assert legal() == ["check", "bet"]
    game.step("bet")
    assert legal() == ["call", "raise", "fold"] and game.put == [3, 1]
    game.step("raise")
    assert legal() == ["call", "fold"] and game.put == [3, 5]  # call 2 + raise 2
    game.step("call")
    assert game.stage == 1 and game.put == [5, 5] and game.agent_selection == "player_0"
    game.step("check")
    game.step("bet")
    assert game.put == [5, 9] and legal() == ["call", "raise", "fold"]
    game.step("raise")
    assert game.put == [13, 9] and legal() == ["call", "fold"]
    assert game.check_invariants() is None


def test_the_public_card_is_hidden_until_round_two():
    game = dealt("K♠", "Q♥", "J♠")
    for agent in game.possible_agents:
        text = game.observe(agent)["text"]
        assert "public card: not shown yet" in text and "J♠" not in text
    assert "Q♥" not in game.observe("player_0")["text"]  # nor the other player's card
    assert "K♠" not in game.observe("player_1")["text"]
    play(game, ["check", "bet", "call"])
    text = game.observe("player_0")["text"]
    assert "Round 1 is over. The public card is J♠. Round 2: bets and raises of 4;" in text
    assert "public card: J♠.\nBetting round 2 of 2 (bets and raises of 4)." in text
    assert "\nRound 1: player_0 checks. player_1 bets 2 chips. player_0 calls 2 chips." in text
    assert "Q♥" not in text
    game.step("bet")
    text = game.observe("player_1")["text"]
    assert "This round so far: player_0 bets 4 chips.\nYour turn." in text


def test_strength_ranks_pairs_over_high_cards():
    k, q, j = CARDS.index("K♠"), CARDS.index("Q♠"), CARDS.index("J♠")
    j2 = CARDS.index("J♥")
    assert strength(j, j2) > strength(k, j2) > strength(q, j2)
    assert strength(q, k) == strength(CARDS.index("Q♥"), k)


def test_several_hands_alternate_the_first_player():
    game = LeducHoldem(rounds=4)
    game.reset(seed=3)
    firsts = []
    for hand in range(4):
        assert game.hand == hand and game.stage == 0
        firsts.append(game.agent_selection)
        play(game, ["check", "check"])
        assert game.agent_selection == firsts[-1]  # it opens round 2 as well
        play(game, ["check", "check"])
    assert firsts == ["player_0", "player_1", "player_0", "player_1"]
    assert game.over and sum(game.returns) == 0 and game.check_invariants() is None
    assert game.returns == [float(s - 100) for s in game.stacks]


def test_random_play_conserves_chips_over_many_hands():
    game = LeducHoldem(rounds=30)
    rng = np.random.default_rng(0)
    for seed in range(30):
        game.reset(seed=seed)
        while not game.over:
            legal = game.infos[game.agent_selection]["legal_actions"]
            game.step(legal[int(rng.integers(len(legal)))])
            assert game.check_invariants() is None and sum(game.rewards.values()) == 0
        assert game.returns == [s - game.starting_chips for s in game.stacks]


def test_deals_cover_all_120_orders():
    game = LeducHoldem()
    seen = set()
    for seed in range(2000):
        game.reset(seed=seed)
        seen.add((*game.cards, game.public))
    assert seen == set(itertools.permutations(range(6), 3))


# -- parsing and invalid actions -------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "spelling", "meaning"),
    [
        ([], "BET", "bet"),
        ([], " [bet] ", "bet"),
        ([], "raise", "bet"),  # no bet out: raising is betting
        ([], "pass", "check"),
        (["bet"], "Raise!", "bet raise"),
        (["bet"], "[call]", None),
        (["bet"], "pass", None),
        (["check"], "Check.", None),
    ],
)
def test_lenient_spellings(before, spelling, meaning):
    game = dealt("K♠", "Q♠", "J♠")
    play(game, before)
    agent = game.agent_selection
    game.step(spelling)
    assert not game.infos[agent]["invalid_action"]
    if meaning is not None:
        assert game.line == meaning
    if spelling == "pass" and before:
        assert game.over and game.returns == [1, -1]  # a fold


@pytest.mark.parametrize(
    ("before", "action", "reason"),
    [
        ([], "call", "call is not legal now: there is no bet to call (legal: check, bet)"),
        ([], "fold", "fold is not legal now: there is no bet to fold to"),
        (["bet"], "check", "check is not legal now: there is a bet to call or fold to"),
        (["bet"], "bet", "bet is not legal now: there is already a bet this round"),
        (["bet", "raise"], "raise", "raise is not legal now: this round already has a bet"),
        ([], "all in", "unknown action; legal now: check, bet"),
    ],
)
def test_invalid_actions_say_why(before, action, reason):
    game = dealt("K♠", "Q♠", "J♠")
    play(game, before)
    agent = game.agent_selection
    game.step(action)
    info = game.infos[agent]
    assert info["invalid_action"] and info["invalid_reason"].startswith(reason)
    assert game.agent_selection == agent and game.check_invariants() is None


def test_forfeit_loses_the_match_and_ends_the_episode():
    game = dealt("K♠", "Q♠", "J♠", rounds=3, max_invalid_actions=1)
    play(game, ["bet", "call", "check"])
    game.step(None)  # player_1, in round 2: not a string
    # the match: 13 chips a hand (the most a hand can cost) x 3 hands
    assert game.over and game.returns == [39, -39] and game.check_invariants() is None
    assert not game.success("player_1") and game.success("player_0")
    text = game.observe("player_0")["text"]
    assert "player_1 forfeits after too many invalid actions and loses the match" in text


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rounds": 0}, "rounds must be an int >= 1"),
        ({"rounds": "3"}, "rounds must be an int >= 1"),
        ({"rounds": 10, "starting_chips": 100}, r"an int >= 13 \* rounds = 130"),
        ({"starting_chips": 12}, r"an int >= 13 \* rounds = 13"),
        ({"invalid_action_penalty": "-1"}, "invalid_action_penalty is the reward of an"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LeducHoldem(**kwargs)


def test_default_stack_and_render():
    assert LeducHoldem().starting_chips == 100 and LeducHoldem(rounds=10).starting_chips == 130
    game = dealt("K♠", "Q♠", "J♠", render_mode="ansi")
    assert game.render() == (
        "Hand 1/1, round 1: player_0 K♠ (stack 99, in 1), player_1 Q♠ (stack 99, in 1), "
        "public J♠ (hidden); pot 2; betting: -; player_0 to act"
    )


# -- expert ----------------------------------------------------------------------------


def test_hand_classes_and_choices():
    by_name = {name: CARDS.index(name) for name in CARDS}
    assert [hand_class(by_name[c], None) for c in ("J♠", "Q♠", "K♠")] == [
        "weak",
        "medium",
        "strong",
    ]
    assert hand_class(by_name["Q♠"], by_name["Q♥"]) == "strong"  # a pair
    assert hand_class(by_name["K♠"], by_name["J♠"]) == "medium"
    assert hand_class(by_name["Q♠"], by_name["K♠"]) == "medium"  # the best rank left
    assert hand_class(by_name["Q♠"], by_name["J♠"]) == "weak"
    open_, facing, capped = ("check", "bet"), ("call", "raise", "fold"), ("call", "fold")
    table = {
        ("strong", 0): ("bet", "raise", "call"),
        ("medium", 0): ("check", "call", "call"),
        ("weak", 0): ("check", "call", "fold"),
        ("weak", 1): ("check", "fold", "fold"),
        ("strong", 1): ("bet", "raise", "call"),
    }
    for (kind, stage), want in table.items():
        assert tuple(choose(kind, stage, legal) for legal in (open_, facing, capped)) == want


def test_expert_never_reads_the_other_card():
    for theirs in ("Q♠", "Q♥", "J♥"):
        game = dealt("K♠", theirs, "J♠")
        expert = LeducHoldemExpert(game)
        assert expert.act(None, {}) == "bet"  # the K is strong in round 1, whatever it meets
    # the public card is hidden in round 1: a J opens with a check even if it would pair
    assert LeducHoldemExpert(dealt("J♠", "Q♠", "J♥")).act(None, {}) == "check"


@pytest.mark.parametrize("seat", [0, 1])
def test_expert_beats_random_and_plays_only_legal_actions(seat):
    from turngym.agents import make_expert
    from turngym.sdk.evaluation import evaluate

    result = evaluate(
        ID,
        make_expert,
        episodes=100,
        env_kwargs={"opponent": "random", "seat": seat, "rounds": 10},
    )
    assert all(e.invalid == 0 for e in result.episodes)
    per_hand = sum(e.ret for e in result.episodes) / 1000
    # measured over these 1,000 hands: +1.12 (seat 0) and +1.34 (seat 1) chips a hand,
    # standard error about 0.14; over 20,000 hands of direct play +1.11 and +1.13
    assert per_hand > 0.5


def test_expert_rejects_other_envs():
    with pytest.raises(TypeError, match="LeducHoldemExpert needs a LeducHoldem"):
        LeducHoldemExpert(turngym.make_game("turngym/KuhnPoker-v0"))
    assert isinstance(LeducHoldemExpert(gym.make(ID)).game, LeducHoldem)

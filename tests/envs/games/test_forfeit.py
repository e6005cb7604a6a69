"""A forfeit never pays: in every game, quitting by invalid actions loses the match.

An RL policy ahead on points would otherwise learn to end the episode with invalid
actions and keep its lead (seen in multi-hand poker and in negotiation's value mode).
"""

from __future__ import annotations

import random

import pytest

import turngym
from turngym.agents.experts.negotiation import NegotiationExpert

GAMES = [
    ("turngym/TicTacToe-v0", {}),
    ("turngym/ConnectFour-v0", {}),
    ("turngym/KuhnPoker-v0", {"rounds": 6}),
    ("turngym/LeducHoldem-v0", {"rounds": 4}),
    ("turngym/LiarsDice-v0", {}),
    ("turngym/MiniHanabi-v0", {}),
    ("turngym/SimpleNegotiation-v0", {"reward": "zero_sum"}),
    ("turngym/SimpleNegotiation-v0", {"reward": "value"}),
]


def _move(game, rng: random.Random, experts: list | None) -> str:
    agent = game.agent_selection
    if experts is not None:  # free-text negotiation: the expert makes real trades
        return experts[game.current].act(game.observe(agent)["text"], game.infos[agent])
    return rng.choice(game.infos[agent]["legal_actions"])


@pytest.mark.parametrize(("game_id", "kwargs"), GAMES, ids=lambda v: str(v))
def test_quitting_at_any_point_loses_the_match(game_id, kwargs):
    game = turngym.make_game(game_id, max_invalid_actions=2, **kwargs)
    ahead = 0
    for seed in range(40):
        rng = random.Random(seed)
        game.reset(seed=seed)
        experts = None
        if "Negotiation" in game_id:
            experts = [NegotiationExpert(game), NegotiationExpert(game)]
            for e in experts:
                e.reset(seed=seed)
        for _ in range(rng.randrange(12)):
            if game.over:
                break
            game.step(_move(game, rng, experts))
        if game.over:
            continue
        quitter = game.agent_selection
        i = game.possible_agents.index(quitter)
        if "Negotiation" in game_id:  # paid at the end: the value change so far
            ahead += game.value_of(i) > game.start_values[i]
        else:
            ahead += game.returns[i] > 0
        while not game.over:
            game.step(None)  # not even a string
        returns = game.returns
        assert returns[i] < 0, (seed, returns)
        assert not game.success(quitter)
        if game.zero_sum:
            assert all(returns[i] < r for k, r in enumerate(returns) if k != i), (seed, returns)
        assert abs(sum(returns)) < 1e-9 or not game.zero_sum
    if "Poker" in game_id or "Holdem" in game_id or "value" in str(kwargs):
        assert ahead, "no game had the quitter ahead: the attack was not tried"

"""The games' rows: PettingZoo AEC games.

``gym.make`` gives one seat against opponents, ``make_game`` the AEC env.
"""

from __future__ import annotations

from turngym.registry.base import EnvEntry, game_row

GAMES: tuple[EnvEntry, ...] = (
    game_row(
        "TicTacToe-v0",
        "turngym.envs.games.tictactoe:TicTacToe",
        30,
        "turngym.agents.experts.tictactoe:TicTacToeExpert",
        stochastic=False,
        description="tic-tac-toe, cells a1..c3; minimax expert",
    ),
    game_row(
        "KuhnPoker-v0",
        "turngym.envs.games.kuhn_poker:KuhnPoker",
        100,
        "turngym.agents.experts.kuhn_poker:KuhnPokerExpert",
        stochastic=True,
        description="Kuhn poker (J/Q/K, ante 1, bet 1), chip stacks, rounds= hands; Nash expert",
    ),
    game_row(
        "LeducHoldem-v0",
        "turngym.envs.games.leduc_holdem:LeducHoldem",
        200,
        "turngym.agents.experts.leduc_holdem:LeducHoldemExpert",
        stochastic=True,
        description="Leduc hold'em (6 cards, bets 2/4, public card), chip stacks; heuristic expert",
    ),
    game_row(
        "SimpleNegotiation-v0",
        "turngym.envs.games.negotiation:SimpleNegotiation",
        50,
        "turngym.agents.experts.negotiation:NegotiationExpert",
        stochastic=True,
        finite_actions=False,
        description="trade 5 privately valued resources by talk and [Offer: ... -> ...]; "
        "rule-based trader expert",
    ),
    game_row(
        "MiniHanabi-v0",
        "turngym.envs.games.mini_hanabi:MiniHanabi",
        100,
        "turngym.agents.experts.mini_hanabi:MiniHanabiExpert",
        stochastic=True,
        description="cooperative Hanabi, 3 colours x ranks 1-3, 2-3 players, shared reward; "
        "convention-based expert",
    ),
    game_row(
        "ConnectFour-v0",
        "turngym.envs.games.connect_four:ConnectFour",
        100,
        "turngym.agents.experts.connect_four:ConnectFourExpert",
        stochastic=False,
        description="Connect Four, columns 1..7; alpha-beta negamax expert (depth 5)",
    ),
    game_row(
        "LiarsDice-v0",
        "turngym.envs.games.liars_dice:LiarsDice",
        300,
        "turngym.agents.experts.liars_dice:LiarsDiceExpert",
        stochastic=True,
        description="Liar's Dice, 2-6 players, hidden dice; bid 'bid Q F' or call 'liar'",
    ),
)

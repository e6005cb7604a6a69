"""The text envs' rows: turngym's own text games and tasks.

``TOYS`` (the bandit and the two gridworlds) are registered first, before the classic
rows, and ``TEXT`` after them: the table's order is the order ``turngym list`` shows.
"""

from __future__ import annotations

from turngym.registry.base import EnvEntry, env_row

TOYS: tuple[EnvEntry, ...] = (
    # -- text ----------------------------------------------------------------------
    env_row(
        "Bandit-v0",
        "turngym.envs.text.bandit:BanditEnv",
        "text",
        100,
        finite_actions=True,
        stochastic=True,
        expert="turngym.agents.experts.bandit:BanditExpert",
        description="RAGEN two-armed bandit with semantic arm names (one pull)",
    ),
    # -- text: sokoban -------------------------------------------------------------
    env_row(
        "Sokoban-v0",
        "turngym.envs.text.sokoban:SokobanEnv",
        "text",
        100,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.sokoban:SokobanExpert",
        description="Sokoban on generated rooms solvable by construction (6x6, 1 box default)",
    ),
    # -- FrozenLake (text) ---------------------------------------------------------
    env_row(
        "FrozenLake-v0",
        "turngym.envs.text.frozen_lake:FrozenLakeEnv",
        "text",
        100,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.frozen_lake:FrozenLakeExpert",
        description="FrozenLake gridworld in text; fixed or random 4x4/8x8 maps, optional slip",
    ),
)

TEXT: tuple[EnvEntry, ...] = (
    # -- text: Wordle ----------------------------------------------------------------
    env_row(
        "Wordle-v0",
        "turngym.envs.text.wordle:WordleEnv",
        "text",
        30,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.wordle:WordleExpert",
        description="guess a secret 5-letter word in 6 tries from G/Y/_ letter feedback",
    ),
    # -- text: ToolUse (retail customer service) -------------------------------------
    env_row(
        "ToolUse-v0",
        "turngym.envs.text.tool_use:ToolUseEnv",
        "text",
        30,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.tool_use:ToolUseExpert",
        answer_action="respond(message={!r})",
        description="retail customer service: serve a simulated user with SQLite-backed tools",
    ),
    # -- text: Countdown ---------------------------------------------------------------
    env_row(
        "Countdown-v0",
        "turngym.envs.text.countdown:CountdownEnv",
        "text",
        10,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.countdown:CountdownExpert",
        answer_action="{}",
        description="make a target from 4 numbers with + - * / in one expression (or mode='multi')",
    ),
    # -- text: TryAgainQA --------------------------------------------------------------
    env_row(
        "TryAgainQA-v0",
        "turngym.envs.text.try_again_qa:TryAgainQAEnv",
        "text",
        20,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.try_again_qa:TryAgainQAExpert",
        answer_action="{}",
        description="answer a templated question in 5 tries; a wrong answer hears only 'try again'",
    ),
    # -- text: SearchQA --------------------------------------------------------------
    env_row(
        "SearchQA-v0",
        "turngym.envs.text.search_qa:SearchQAEnv",
        "text",
        10,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.search_qa:SearchQAExpert",
        answer_action="answer[{}]",
        description="multi-hop QA over a generated encyclopedia with search/open/answer tools",
    ),
    # -- text: Maze (LMRL-Gym) -------------------------------------------------------
    env_row(
        "Maze-v0",
        "turngym.envs.text.maze:MazeEnv",
        "text",
        100,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.maze:MazeExpert",
        description="LMRL-Gym maze: random perfect maze, full or partial view, -1 per step",
    ),
    # -- text: TextNav (LMRL-Gym) ----------------------------------------------------
    env_row(
        "TextNav-v0",
        "turngym.envs.text.text_nav:TextNavEnv",
        "text",
        50,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.text_nav:TextNavExpert",
        description="LMRL-Gym text nav: search a seeded house of rooms, move an object",
    ),
    # -- text: CarDealer (LMRL-Gym) --------------------------------------------------
    env_row(
        "CarDealer-v0",
        "turngym.envs.text.car_dealer:CarDealerEnv",
        "text",
        20,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.car_dealer:CarDealerExpert",
        description="LMRL-Gym car dealer: sell to a scripted buyer with a hidden budget",
    ),
    # -- BabyAI-Text ---------------------------------------------------------------
    env_row(
        "BabyAIText-v0",
        "turngym.envs.text.babyai_text:BabyAITextEnv",
        "text",
        64,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.babyai_text:BabyAITextExpert",
        description="BabyAI-like grid world in text: goto/pickup/open/putnext, hindsight goals",
    ),
    # -- TextCraft -----------------------------------------------------------------
    env_row(
        "TextCraft-v0",
        "turngym.envs.text.textcraft:TextCraftEnv",
        "text",
        40,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.textcraft:TextCraftExpert",
        description="TextCraft: craft a Minecraft-like item from shown recipes (depth 1-4)",
    ),
    # -- text: TwentyQuestions -------------------------------------------------------
    env_row(
        "TwentyQuestions-v0",
        "turngym.envs.text.twenty_questions:TwentyQuestionsEnv",
        "text",
        20,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.twenty_questions:TwentyQuestionsExpert",
        answer_action="{}",
        description="LMRL-Gym 20 Questions: find a secret everyday object with yes/no questions",
    ),
    # -- text: Chess (LMRL-Gym) -------------------------------------------------------
    env_row(
        "Chess-v0",
        "turngym.envs.text.chess_game:ChessEnv",
        "text",
        200,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.chess_game:ChessExpert",
        extra="chess",
        description="chess against Stockfish (skill 0..20 or Elo); SAN or UCI moves",
    ),
    env_row(
        "ChessEndgame-v0",
        "turngym.envs.text.chess_game:ChessEndgameEnv",
        "text",
        100,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.chess_game:ChessExpert",
        extra="chess",
        description="mate a lone king (KQvK, KRvK, KBBvK) against Stockfish's defence",
    ),
    # -- text: GuessMyCity -----------------------------------------------------------
    env_row(
        "GuessMyCity-v0",
        "turngym.envs.text.guess_my_city:GuessMyCityEnv",
        "text",
        20,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.guess_my_city:GuessMyCityExpert",
        answer_action="{}",
        description="LMRL Guess My City: find a secret world city by asking an oracle questions",
    ),
)

"""The registry rows of the adapters over other projects' environments (issue 30).

Each suite's names are static data (``turngym/envs/adapters/*_tasks.py``, ``*_levels.py``,
``*_games.py``), so building these rows imports none of those libraries.
``turngym.registry`` calls ``adapter_rows`` with its row builders (``_e`` for a text
env, ``_g`` for a game) and appends the result to ``ENVS``.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import TYPE_CHECKING

from turngym.envs.adapters.babyai_levels import LEVELS as BABYAI_LEVELS
from turngym.envs.adapters.nethack_tasks import MINIHACK_TASKS, minihack_task
from turngym.envs.adapters.openspiel_games import GAMES as _OPENSPIEL_GAMES
from turngym.envs.adapters.reasoning_gym_tasks import NO_ORACLE as RG_NO_ORACLE
from turngym.envs.adapters.reasoning_gym_tasks import TASKS as RG_TASKS

if TYPE_CHECKING:
    from turngym.registry import EnvEntry

RowMaker = Callable[..., "EnvEntry"]


def adapter_rows(_e: RowMaker, _g: RowMaker) -> tuple[EnvEntry, ...]:
    """Every adapter suite's rows: OpenSpiel, BabyAI, Crafter, NetHack, TextWorld, Reasoning Gym."""
    # OpenSpiel's games as turngym games (turngym[openspiel])

    _OPENSPIEL_EXPERT_MAX_LENGTH = 100  # = turngym.agents.experts.openspiel.EXPERT_MAX_LENGTH
    OPENSPIEL: tuple[EnvEntry, ...] = tuple(
        _g(
            f"openspiel.{game.name}-v0",
            f"turngym.envs.adapters.openspiel:{game.name}",
            game.max_length + 100,  # a seat's steps: its moves, plus room for retries
            # Kuhn poker's solved equilibrium; OpenSpiel's MCTS bot for the short
            # deterministic perfect-information games that pay at the end (it needs that)
            "turngym.agents.experts.openspiel:OpenSpielKuhnNash"
            if game.name == "kuhn_poker"
            else "turngym.agents.experts.openspiel:OpenSpielMCTS"
            if game.perfect
            and not game.chance
            and game.terminal_rewards
            and game.max_length <= _OPENSPIEL_EXPERT_MAX_LENGTH
            else None,
            stochastic=game.chance,
            suite="openspiel",
            extra="openspiel",
            description=f"OpenSpiel {game.title}, {game.players} player"
            f"{'s' * (game.players != 1)}{' (simultaneous, as turns)' * game.simultaneous}; "
            f"{game.text.replace('_', ' ')} as text",
        )
        for game in _OPENSPIEL_GAMES
    )

    # minigrid's BabyAI levels, rendered as text (turngym[babyai])
    # the expert solves >= 95 of seeds 0-99 on every registered level (babyai_bot.py)
    _BABYAI_BOT = "turngym.agents.experts.babyai_bot:BabyAIBotExpert"
    BABYAI: tuple[EnvEntry, ...] = tuple(
        _e(
            f"babyai.{level}-v0",
            "turngym.envs.adapters.babyai:BabyAIEnv",
            "text",
            2 * native_steps,
            finite_actions=True,
            stochastic=False,
            expert=_BABYAI_BOT,
            kwargs=MappingProxyType({"level": level}),
            description=f"minigrid's BabyAI-{level}-v{version} as text (BALROG style)",
            extra="babyai",
            suite="babyai",
        )
        for level, version, native_steps in BABYAI_LEVELS
    )

    # Crafter, rendered as text (turngym[crafter])
    CRAFTER: tuple[EnvEntry, ...] = (
        _e(
            "crafter-v0",
            "turngym.envs.adapters.crafter:CrafterEnv",
            "text",
            10_000,
            finite_actions=True,
            stochastic=True,
            description="Crafter as text (BALROG style): survive, craft, 22 achievements",
            extra="crafter",
            suite="crafter",
        ),
    )

    # NetHack (NLE) and MiniHack, rendered as text (turngym[nethack])
    NETHACK: tuple[EnvEntry, ...] = (
        _e(
            "nethack-v0",
            "turngym.envs.adapters.nethack:NetHackEnv",
            "text",
            10_000,  # NLE's own limit (5,000 game steps) ends it first; this counts invalid turns
            finite_actions=True,
            stochastic=True,
            description="NetHack 3.6 (NLE, NetHackScore as the Challenge plays it) as text",
            extra="nethack",
            suite="nethack",
        ),
        *(
            _e(
                f"minihack.{minihack_task(task)}-v0",
                "turngym.envs.adapters.nethack:MiniHackEnv",
                "text",
                10_000,  # MiniHack's own limit per task (50 to 5,000 steps) ends it first
                finite_actions=True,
                stochastic=True,
                kwargs=MappingProxyType({"task": minihack_task(task)}),
                description=f"MiniHack's {task} as text: message, map, status, inventory",
                extra="nethack",
                suite="nethack",
            )
            for task in MINIHACK_TASKS
        ),
    )

    # TextWorld games generated from the seed (turngym[textworld])
    _TEXTWORLD_KINDS = {
        "treasure_hunter": "find the named object in a few rooms (level 1-30)",
        "coin_collector": "walk a chain of rooms to the coin (level 1-300)",
        "cooking": "read the recipe, gather, cut and cook, eat the meal (FTWP skills)",
    }
    TEXTWORLD: tuple[EnvEntry, ...] = tuple(
        _e(
            f"textworld.{kind}-v0",
            "turngym.envs.adapters.textworld_env:TextWorldEnv",
            "text",
            100,
            finite_actions=True,
            stochastic=False,
            expert="turngym.agents.experts.textworld:TextWorldWalkthrough",
            kwargs=MappingProxyType({"kind": kind}),
            description=f"TextWorld {kind}, a game generated per seed: {what}",
            extra="textworld",
            suite="textworld",
        )
        for kind, what in _TEXTWORLD_KINDS.items()
    )

    # Reasoning Gym's datasets as multi-turn question envs (turngym[reasoning])
    REASONING_GYM: tuple[EnvEntry, ...] = tuple(
        _e(
            f"reasoning_gym.{task}-v0",
            "turngym.envs.adapters.reasoning_gym:ReasoningGymEnv",
            "text",
            20,
            finite_actions=False,
            stochastic=False,
            expert=(
                None
                if task in RG_NO_ORACLE
                else "turngym.agents.experts.reasoning_gym:ReasoningGymOracle"
            ),
            kwargs=MappingProxyType({"task": task}),
            description=f"Reasoning Gym {task}: a question per seed, its own scorer, 3 attempts",
            extra="reasoning",
            suite="reasoning_gym",
            answer_action="{}",
        )
        for task in RG_TASKS
    )
    return OPENSPIEL + BABYAI + CRAFTER + NETHACK + TEXTWORLD + REASONING_GYM

"""The one table of turngym env ids, and their registration with Gymnasium.

The table holds import strings only, so reading it (and registering it) imports no
env code. ``register_envs()`` runs on ``import turngym`` and, through the
``_turngym_gym_plugin.pth`` hook, whenever gymnasium is imported, so
``gym.make("turngym/Wordle-v0")`` works in a fresh interpreter.
"""

from __future__ import annotations

import difflib
import fnmatch
import importlib
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from turngym.envs.gui.tasks import TASKS as GUI_TASKS
from turngym.envs.web.miniwob_tasks import (
    MINIWOB_ORACLES,
    MINIWOB_STOCHASTIC,
    MINIWOB_TASKS,
    MINIWOB_TURNS,
)
from turngym.extras import unavailable
from turngym.registry_adapters import adapter_rows

__all__ = [
    "ENVS",
    "FAMILIES",
    "GAMES",
    "GUI",
    "MINIWOB",
    "EnvEntry",
    "entry",
    "load",
    "register_envs",
    "select",
    "suggest",
]

NAMESPACE = "turngym"


@dataclass(frozen=True)
class EnvEntry:
    """One registered env id and what tools need to know about it."""

    id: str
    """full id, ``turngym/<Name>-v<N>``"""
    entry_point: str
    """``module:Class`` of the env"""
    family: str
    """``text``, ``classic``, ``games``, ``web``, ``gui`` or ``swe``"""
    max_episode_steps: int | None
    """TimeLimit applied by ``gym.make``"""
    finite_actions: bool
    """whether ``info["legal_actions"]`` lists every legal action"""
    stochastic: bool
    """chance the agent cannot control decides outcomes (experts are judged by return)"""
    expert: str | None = None
    """``module:Class`` of the scripted expert agent, built as ``Expert(env)``"""
    kwargs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """default constructor kwargs"""
    description: str = ""
    """one line for ``turngym list``"""
    game: str | None = None
    """``module:Class`` of the PettingZoo game behind a ``games`` row (``make_game``)"""
    extra: str | None = None
    """the pip extra the env needs (``pip install 'turngym[<extra>]'``); None: base install"""
    system: tuple[str, ...] = ()
    """Debian packages the env needs besides (``apt-get install ...``)"""
    suite: str | None = None
    """the outside library's suite an adapter row belongs to (``openspiel``, ``babyai``...)"""
    answer_action: str | None = None
    """how an action submits a final answer when the reward grades one: a ``str.format``
    template of the answer's text (``"{}"``, ``"answer[{}]"``, ``"answer({!r})"``) or a
    fixed action (``"submit()"``); ``turngym.testing.check_degenerate_answers`` probes
    every row that has one with answers that read no question (``nan``, ``0``, a copy)"""

    @property
    def name(self) -> str:
        """The id without the namespace, e.g. ``Wordle-v0``."""
        return self.id.split("/", 1)[-1]

    @property
    def group(self) -> str:
        """The family as tables and ``--family`` see it: MiniWoB apart from the web sites.

        >>> entry("miniwob.click-test-v0").group, entry("WebShop-v0").group
        ('miniwob', 'web')
        """
        if self.suite is not None:
            return self.suite
        return "miniwob" if self.name.startswith("miniwob.") else self.family

    def kwarg_names(self) -> list[str]:
        """The constructor arguments ``gym.make(self.id, **kwargs)`` accepts (imports the env).

        >>> "max_guesses" in entry("Wordle-v0").kwarg_names()
        True
        """
        names: list[str] = []
        classes = [load(self.entry_point)]
        if self.game is not None:  # GameView passes the rest on to the game
            classes.append(load(self.game))
        for cls in classes:
            own = True
            for klass in cls.__mro__:  # an __init__ that takes **kwargs hands them up
                if "__init__" not in vars(klass):
                    continue
                params = inspect.signature(klass.__init__).parameters.values()
                names += [
                    p.name
                    for p in params
                    if p.name != "self"
                    and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
                    # a base's required argument is the subclass's to fill (a classic env)
                    and (own or p.default is not p.empty)
                ]
                own = False
                if not any(p.kind is p.VAR_KEYWORD for p in params):
                    break
        # the game and expert a game row fills in are import strings, not user options
        fixed = {"game", "expert"} if self.game is not None else set()
        return sorted({n for n in names if n not in fixed and not n.startswith("_")})

    def unavailable(self) -> str | None:
        """What to install before this env can run here, or None when nothing is missing.

        >>> entry("Wordle-v0").unavailable() is None
        True
        """
        return unavailable(self.extra, self.system)


# What each family needs beyond the base install; rows may say otherwise (Chess-v0).
_FAMILY_NEEDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "web": ("web", ("chromium",)),
    "gui": ("gui", ("xvfb",)),
    "swe": ("swe", ("bubblewrap",)),
}


def _e(name: str, entry_point: str, family: str, steps: int | None, **rest: Any) -> EnvEntry:
    extra, system = _FAMILY_NEEDS.get(family, (None, ()))
    rest.setdefault("extra", extra)
    rest.setdefault("system", system)
    return EnvEntry(
        id=f"{NAMESPACE}/{name}",
        entry_point=entry_point,
        family=family,
        max_episode_steps=steps,
        **rest,
    )


def _g(name: str, game: str, steps: int, expert: str, **rest: Any) -> EnvEntry:
    """A game row: ``gym.make`` gives one seat (``GameView``), ``make_game`` the AEC env."""
    return _e(
        name,
        "turngym.envs.games.view:GameView",
        "games",
        steps,
        finite_actions=rest.pop("finite_actions", True),
        expert=expert,
        kwargs=MappingProxyType({"game": game, "expert": expert}),
        game=game,
        **rest,
    )


ENVS: tuple[EnvEntry, ...] = (
    # -- text ----------------------------------------------------------------------
    _e(
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
    _e(
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
    _e(
        "FrozenLake-v0",
        "turngym.envs.text.frozen_lake:FrozenLakeEnv",
        "text",
        100,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.frozen_lake:FrozenLakeExpert",
        description="FrozenLake gridworld in text; fixed or random 4x4/8x8 maps, optional slip",
    ),
    # -- classic (TextAdapter over Gymnasium toy-text envs) ----------------------------
    _e(
        "Taxi-v0",
        "turngym.envs.classic:TaxiTextEnv",
        "classic",
        200,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.classic:TaxiExpert",
        description="Gymnasium Taxi in text: pick up the passenger, drop them at the stand",
    ),
    _e(
        "CliffWalking-v0",
        "turngym.envs.classic:CliffWalkingTextEnv",
        "classic",
        100,
        finite_actions=True,
        stochastic=False,
        expert="turngym.agents.experts.classic:CliffWalkingExpert",
        description="Gymnasium CliffWalking in text: reach the goal without falling off",
    ),
    _e(
        "Blackjack-v0",
        "turngym.envs.classic:BlackjackTextEnv",
        "classic",
        30,
        finite_actions=True,
        stochastic=True,
        expert="turngym.agents.experts.classic:BlackjackExpert",
        description="Gymnasium Blackjack in text: one hand against the dealer (hit/stick)",
    ),
    # -- text: Wordle ----------------------------------------------------------------
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    _e(
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
    # -- web (Chromium via Playwright; sites served on 127.0.0.1) ------------------------
    _e(
        "WebShop-v0",
        "turngym.envs.web.shop:WebShopEnv",
        "web",
        30,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.web:SiteOracle",
        description="WebShop: search a local store and buy what the instruction asks for; "
        "difficulty='hard' (default: near-miss distractors, paraphrased instructions) or "
        "'easy'; WebShop's attribute/option/price reward",
    ),
    _e(
        "WebForum-v0",
        "turngym.envs.web.forum:WebForumEnv",
        "web",
        30,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.web:SiteOracle",
        answer_action="answer({!r})",
        description="WebArena-like forum: post, reply, vote, edit your profile or find a fact; "
        "10 templates checked against the database or the answer",
    ),
    _e(
        "WebAdmin-v0",
        "turngym.envs.web.forum:WebAdminEnv",
        "web",
        30,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.web:SiteOracle",
        answer_action="answer({!r})",
        description="WebArena-like shop admin: change an order's address or status, update a "
        "product, or look up a fact; 10 templates",
    ),
    # -- gui -----------------------------------------------------------------------------
    _e(
        "ScreenGraph-v0",
        "turngym.envs.gui.screen_graph:ScreenGraphEnv",
        "gui",
        20,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.screen_graph:ScreenGraphExpert",
        system=(),  # drawn with Pillow: no X server
        description="open a named screen of a drawn app by clicking icons (GUI Exploration "
        "Lab style); text + screenshot observations, click(x, y) or click(index)",
    ),
    # -- swe (repositories in a bubblewrap sandbox; SWE-bench format and grading) --------
    _e(
        "SWE-v0",
        "turngym.envs.swe.env:SWEEnv",
        "swe",
        40,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.swe:SWEOracle",
        answer_action="submit()",
        description="fix a reported bug in a small Python repo with bash/edit/test tools; "
        "graded by hidden tests (SWE-bench style); task=... picks one",
    ),
    _e(
        "SWE-Lite-v0",
        "turngym.envs.swe.env:SWELiteEnv",
        "swe",
        40,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.swe:SWEOracle",
        answer_action="submit()",
        description="SWE-v0 on its five easiest bundled tasks",
    ),
)

# -- games (PettingZoo AEC; gym.make gives one seat against opponents) ----------------
GAMES: tuple[EnvEntry, ...] = (
    _g(
        "TicTacToe-v0",
        "turngym.envs.games.tictactoe:TicTacToe",
        30,
        "turngym.agents.experts.tictactoe:TicTacToeExpert",
        stochastic=False,
        description="tic-tac-toe, cells a1..c3; minimax expert",
    ),
    _g(
        "KuhnPoker-v0",
        "turngym.envs.games.kuhn_poker:KuhnPoker",
        100,
        "turngym.agents.experts.kuhn_poker:KuhnPokerExpert",
        stochastic=True,
        description="Kuhn poker (J/Q/K, ante 1, bet 1), chip stacks, rounds= hands; Nash expert",
    ),
    _g(
        "LeducHoldem-v0",
        "turngym.envs.games.leduc_holdem:LeducHoldem",
        200,
        "turngym.agents.experts.leduc_holdem:LeducHoldemExpert",
        stochastic=True,
        description="Leduc hold'em (6 cards, bets 2/4, public card), chip stacks; heuristic expert",
    ),
    _g(
        "SimpleNegotiation-v0",
        "turngym.envs.games.negotiation:SimpleNegotiation",
        50,
        "turngym.agents.experts.negotiation:NegotiationExpert",
        stochastic=True,
        finite_actions=False,
        description="trade 5 privately valued resources by talk and [Offer: ... -> ...]; "
        "rule-based trader expert",
    ),
    _g(
        "MiniHanabi-v0",
        "turngym.envs.games.mini_hanabi:MiniHanabi",
        100,
        "turngym.agents.experts.mini_hanabi:MiniHanabiExpert",
        stochastic=True,
        description="cooperative Hanabi, 3 colours x ranks 1-3, 2-3 players, shared reward; "
        "convention-based expert",
    ),
    _g(
        "ConnectFour-v0",
        "turngym.envs.games.connect_four:ConnectFour",
        100,
        "turngym.agents.experts.connect_four:ConnectFourExpert",
        stochastic=False,
        description="Connect Four, columns 1..7; alpha-beta negamax expert (depth 5)",
    ),
    _g(
        "LiarsDice-v0",
        "turngym.envs.games.liars_dice:LiarsDice",
        300,
        "turngym.agents.experts.liars_dice:LiarsDiceExpert",
        stochastic=True,
        description="Liar's Dice, 2-6 players, hidden dice; bid 'bid Q F' or call 'liar'",
    ),
)
ENVS = ENVS + GAMES

# -- MiniWoB++ (the miniwob package's HTML tasks on turngym's browser layer) ----------
MINIWOB: tuple[EnvEntry, ...] = tuple(
    _e(
        f"miniwob.{task}-v0",
        "turngym.envs.web.miniwob:MiniWoBEnv",
        "web",
        MINIWOB_TURNS.get(task, 20),
        finite_actions=False,
        stochastic=task in MINIWOB_STOCHASTIC,
        expert=(
            "turngym.agents.experts.miniwob:MiniWoBOracle" if task in MINIWOB_ORACLES else None
        ),
        kwargs=MappingProxyType({"task": task, "max_turns": MINIWOB_TURNS.get(task, 20)}),
        description=f"MiniWoB++ {task}: the task's page and reward, turngym's actions",
    )
    for task in MINIWOB_TASKS
)
ENVS = ENVS + MINIWOB

# -- desktop tasks (Tk apps and a sandboxed xterm on a private Xvfb) ------------------
GUI: tuple[EnvEntry, ...] = tuple(
    _e(
        f"gui.{task}-v0",
        "turngym.envs.gui.env:DesktopEnv",
        "gui",
        50,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.gui:GUIOracle",
        kwargs=MappingProxyType({"task": task}),
        description=f"desktop task {task}: bundled apps on Xvfb, computer-use actions",
    )
    for task in GUI_TASKS
)
ENVS = ENVS + GUI

# -- adapters over other projects' environments (issue 30): turngym/registry_adapters.py
ENVS = ENVS + adapter_rows(_e, _g)
"""Every registered id (env or game), one ``EnvEntry`` each; ``select`` picks rows by id,
glob or family (``FAMILIES``)."""

_BY_ID: dict[str, EnvEntry] = {e.id: e for e in ENVS}


# The families ``--family`` takes, in table order (benchmarks/headroom.py's too).
FAMILIES = (
    "text",
    "classic",
    "games",
    "web",
    "miniwob",
    "gui",
    "swe",
    "openspiel",
    "babyai",
    "crafter",
    "nethack",
    "textworld",
    "reasoning_gym",
)


def suggest(name: str) -> str | None:
    """The registered name closest to a mistyped one, or None when none is close.

    >>> suggest("Wordel-v0"), suggest("wordle"), suggest("Xyzzy-v7")
    ('Wordle-v0', 'Wordle-v0', None)
    """
    short = name.removeprefix(f"{NAMESPACE}/")
    names = {e.name.lower(): e.name for e in ENVS}
    bare = {e.name.lower().rsplit("-v", 1)[0]: e.name for e in ENVS}
    for table in (names, bare):  # a case slip or a missing version first
        if short.lower() in table:
            return table[short.lower()]
    close = difflib.get_close_matches(short.lower(), list(names), n=1, cutoff=0.75)
    return names[close[0]] if close else None


def entry(env_id: str) -> EnvEntry:
    """The table row of ``env_id`` (with or without the ``turngym/`` prefix).

    Raises:
        KeyError: the id is not registered; the message names the closest id, if any.

    """
    key = env_id if env_id.startswith(f"{NAMESPACE}/") else f"{NAMESPACE}/{env_id}"
    if key not in _BY_ID:
        guess = suggest(env_id)
        hint = f"did you mean {guess}?" if guess else "`turngym list` shows the known ids"
        raise KeyError(f"unknown turngym env {env_id!r}; {hint}")
    return _BY_ID[key]


def select(patterns: Sequence[str] = (), families: Sequence[str] = ()) -> list[EnvEntry]:
    """The rows named by ``patterns`` (ids, short ids or globs), or all, within ``families``.

    A glob (``*``, ``?``, ``[``) matches ids and short ids (``'*Poker*'``); ``families``
    are names of ``FAMILIES`` (``web``: the sites, ``miniwob``: the MiniWoB tasks). Rows
    keep the table's order and appear once.

    >>> [e.name for e in select(["*Poker*"])]
    ['KuhnPoker-v0']
    >>> len(select(families=["classic"]))
    3

    Raises:
        KeyError: an id that is not registered, or a glob that matches nothing.
        ValueError: a family that is not one of ``FAMILIES``.

    """
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {unknown[0]!r}")
    chosen: dict[str, EnvEntry] = {}
    for pattern in patterns:
        if not any(c in pattern for c in "*?["):
            row = entry(pattern)
            chosen[row.id] = row
            continue
        hits = [e for e in ENVS if fnmatch.fnmatchcase(e.id, pattern)]
        hits += [e for e in ENVS if fnmatch.fnmatchcase(e.name, pattern)]
        if not hits:
            raise KeyError(f"no turngym env id matches {pattern!r}")
        chosen.update((e.id, e) for e in hits)
    rows = [e for e in ENVS if e.id in chosen] if patterns else list(ENVS)
    return [e for e in rows if not families or e.group in families]


def load(target: str) -> Any:
    """Import ``module:attr`` and return the attribute."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def register_envs() -> None:
    """Register every table row with Gymnasium (idempotent, imports no env code).

    Gymnasium's ``register`` scans the whole registry for other versions of each new id,
    which made registering turngym's ~560 ids cost ~50 ms of every import. The specs go
    into the registry directly instead, after the same check done once for all rows: a
    row whose name another spec already uses (another version, or an unversioned env)
    still goes through ``register``, which warns or refuses as it always does.
    """
    from gymnasium.envs.registration import EnvSpec, register, registry

    taken = {(spec.namespace, spec.name) for spec in registry.values()}
    for e in ENVS:
        if e.id in registry:
            continue
        if (NAMESPACE, e.name.rsplit("-v", 1)[0]) in taken:
            register(
                id=e.id,
                entry_point=e.entry_point,
                max_episode_steps=e.max_episode_steps,
                kwargs=dict(e.kwargs),
            )
            continue
        registry[e.id] = EnvSpec(
            id=e.id,
            entry_point=e.entry_point,
            max_episode_steps=e.max_episode_steps,
            kwargs=dict(e.kwargs),
        )

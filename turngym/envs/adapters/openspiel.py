"""OpenSpiel's turn-based games as turngym games (PettingZoo AEC, ``turngym[openspiel]``).

``OpenSpielGame`` plays any sequential ``pyspiel`` game under turngym's game contract
(ARCHITECTURE.md section 4): ``{"text", "action_mask"}`` observations, string actions
named by OpenSpiel's ``action_to_string``, ``legal_actions`` in ``infos``, chance
outcomes drawn with OpenSpiel's probabilities from the game's own seeded RNG (so a
seed replays a game), and per-step rewards that are the changes of OpenSpiel's
``returns()`` (so they sum to the game's returns). ``game_class(name)`` (or this
module's attribute of that name, which registry rows use) is the class of one game.

What a player reads: ``information_state_string`` in imperfect-information games that
offer it, else ``observation_string``, else ``str(state)`` (perfect information only);
in perfect-information games the moves and chance outcomes are announced as well.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from turngym.core import Invalid, normalize_action
from turngym.envs.adapters.openspiel_games import GAMES
from turngym.envs.games.base import TextGame
from turngym.extras import needs_extra

if TYPE_CHECKING:
    import numpy as np

__all__ = ["GAME_NAMES", "OpenSpielGame", "game_class", "load_pyspiel"]

GAME_NAMES: tuple[str, ...] = tuple(row.name for row in GAMES)
"""OpenSpiel's short names of the registered games."""
_ROWS = {row.name: row for row in GAMES}
_PARAM_TYPES = (bool, int, float, str)
_MEMO_UNIVERSE = 64
"""Legal-action entries are memoised across games when the universe is this small."""


def load_pyspiel() -> Any:
    """Import ``pyspiel``, or raise ``MissingExtra`` naming ``turngym[openspiel]``."""
    with needs_extra("openspiel", "an OpenSpiel game"):
        import pyspiel
    return pyspiel


@dataclass(frozen=True)
class _Spec:
    """One loaded game and its action names: built once per (game, parameters)."""

    game: Any
    """the ``pyspiel.Game``"""
    names: tuple[str, ...]
    """the action universe: every player's action strings, deduplicated"""
    index: tuple[tuple[int, ...], ...]
    """``index[p][a]``: the position in ``names`` of player ``p``'s action id ``a``"""
    exact: tuple[dict[str, int], ...]
    """per player: action string -> action id"""
    loose: tuple[dict[str, int], ...]
    """per player: normalized string -> action id, for the strings no other string of the
    game's universe normalizes to"""
    cased: tuple[dict[str, int], ...]
    """per player: the other strings, spaces collapsed but case kept -> action id"""
    text: str
    """the state string a player reads (see the module docstring)"""
    perfect: bool
    """perfect information: moves and chance outcomes are announced to everyone"""
    zero_sum: bool
    """OpenSpiel declares the game zero-sum"""
    worst: float | None
    """the lowest return a player can get (``min_utility``), where OpenSpiel knows it"""
    terminal_rewards: bool
    """OpenSpiel pays only at the end (returns need not be read after every move)"""
    chance: bool
    """the game has chance nodes (deterministic games skip looking for them)"""
    opening_chance: tuple[tuple[int, float], ...] | None
    """the chance outcomes of the initial state where it is a chance node (the same in
    every game: the first deal is drawn without asking OpenSpiel again)"""


def _check_params(name: str, params: Any) -> dict[str, Any]:
    """``params`` as a plain dict; a clear ``ValueError`` when it cannot be one."""
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise ValueError(
            f"params must be a dict of {name}'s OpenSpiel parameters, got {type(params).__name__}"
        )
    pyspiel = load_pyspiel()
    allowed = sorted(pyspiel.load_game(name).get_type().parameter_specification)
    for key, value in params.items():
        if key not in allowed:
            raise ValueError(
                f"params: {key!r} is not a parameter of OpenSpiel's {name}; "
                f"allowed: {', '.join(allowed) or 'none'}"
            )
        if not isinstance(value, _PARAM_TYPES):
            raise ValueError(
                f"params[{key!r}] must be a bool, int, float or str, got {type(value).__name__}"
            )
    return dict(params)


def _spaced(text: str) -> str:
    """``text`` stripped, inner runs of whitespace collapsed to one space; case kept."""
    return " ".join(text.split())


def _text_kind(game_type: Any, perfect: bool) -> str:
    if not perfect and game_type.provides_information_state_string:
        return "information_state_string"
    if game_type.provides_observation_string:
        return "observation_string"
    if game_type.provides_information_state_string:
        return "information_state_string"
    return "str"


@functools.lru_cache(maxsize=256)
def _spec(name: str, params: tuple[tuple[str, Any], ...]) -> _Spec:
    pyspiel = load_pyspiel()
    # Simultaneous-move games are played as OpenSpiel's turn-based conversion: players
    # move one after another, and nobody sees the others' moves of the round before
    # the round is over (the strings come from the simultaneous state).
    load = pyspiel.load_game_as_turn_based if _ROWS[name].simultaneous else pyspiel.load_game
    try:
        game = load(name, dict(params))
    except pyspiel.SpielError as error:
        first = str(error).strip().splitlines()[-1] if str(error).strip() else "rejected"
        raise ValueError(
            f"params={dict(params)!r}: OpenSpiel's {name} rejects them ({first})"
        ) from None
    game_type = game.get_type()
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"params={dict(params)!r} make {name} a non-sequential game")
    perfect = game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    start = game.new_initial_state()
    n, count = game.num_players(), game.num_distinct_actions()
    names: list[str] = []
    position: dict[str, int] = {}
    index, exact, loose, cased = [], [], [], []
    for p in range(n):
        row = []
        mine: dict[str, int] = {}
        for a in range(count):
            # Registered games name each action id the same way in every state
            # (scripts/openspiel_games.py checks it), so the start names them all.
            text = start.action_to_string(p, a)
            if text not in position:
                position[text] = len(names)
                names.append(text)
            row.append(position[text])
            mine.setdefault(text, a)
        index.append(tuple(row))
        exact.append(mine)
    # Case is forgiven only where it tells no two strings of the whole universe apart:
    # Oware's player_0 plays pits "A"-"F" and player_1 "a"-"f", so "d" from player_0
    # must not play its own "D" (tests/envs/adapters/test_openspiel.py checks every game).
    counts: dict[str, int] = {}
    for text in names:
        key = normalize_action(text)
        counts[key] = counts.get(key, 0) + 1
    for mine in exact:
        loose.append(
            {normalize_action(t): a for t, a in mine.items() if counts[normalize_action(t)] == 1}
        )
        cased.append({_spaced(t): a for t, a in mine.items() if counts[normalize_action(t)] > 1})
    try:
        worst: float | None = float(game.min_utility())
    except pyspiel.SpielError:
        worst = None
    utility = game_type.utility
    return _Spec(
        game=game,
        names=tuple(names),
        index=tuple(index),
        exact=tuple(exact),
        loose=tuple(loose),
        cased=tuple(cased),
        text=_text_kind(game_type, perfect),
        perfect=perfect,
        zero_sum=utility == pyspiel.GameType.Utility.ZERO_SUM,
        worst=worst,
        terminal_rewards=game_type.reward_model == pyspiel.GameType.RewardModel.TERMINAL,
        chance=game_type.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC,
        opening_chance=tuple(start.chance_outcomes()) if start.is_chance_node() else None,
    )


class OpenSpielGame(TextGame[int]):
    """One OpenSpiel game as a PettingZoo AEC game with string actions.

    Use ``game_class(name)`` (or ``turngym.make_game("turngym/openspiel.<name>-v0")``);
    this base class plays the game named by its ``game_name``.

    Args:
        params: OpenSpiel's game parameters, e.g. ``{"rows": 6, "columns": 6}`` for
            ``breakthrough`` (``pyspiel.load_game(name, params)``); None: the defaults.
            An unknown name or a value OpenSpiel rejects raises ``ValueError``.
        **kwargs: ``TextGame`` options (``invalid_action_penalty``,
            ``max_invalid_actions``, ``render_mode``). Too many invalid actions in a row
            forfeit the game: the player's return drops to the game's worst.

    Example:
        >>> game = game_class("tic_tac_toe")()
        >>> game.reset(seed=0)
        >>> game.infos["player_0"]["legal_actions"][:3]
        ['x(0,0)', 'x(0,1)', 'x(0,2)']
        >>> game.step("x(1,1)")
        >>> "player_0 plays x(1,1)." in game.observe("player_1")["text"]
        True

    """

    metadata: ClassVar[dict[str, Any]] = {**TextGame.metadata, "name": "openspiel_v0"}
    game_name: ClassVar[str] = ""
    """OpenSpiel's short name of the game this class plays."""

    def __init__(self, *, params: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        name = self.game_name
        if not name:
            raise ValueError("OpenSpielGame needs a game: use game_class(name)()")
        checked = _check_params(name, params)
        spec = _spec(name, tuple(sorted(checked.items())))
        self.params = checked
        self._spec = spec
        self.spiel_game = spec.game
        self.action_names = spec.names
        # Some games declare zero-sum but are not after every move (repeated_leduc_poker
        # pays a hand's loser first); the static table says which held in random games.
        self.zero_sum = spec.zero_sum and _ROWS[name].zero_sum
        super().__init__(num_players=spec.game.num_players(), **kwargs)
        self.state: Any = None
        self._legal_ids: list[int] = []
        self._memo_legal = len(spec.names) <= _MEMO_UNIVERSE
        # Per-step work read once here: the step path is a few microseconds of Python
        # next to OpenSpiel's own (benchmarks/overhead_openspiel.py).
        self._perfect = spec.perfect
        self._has_chance = spec.chance
        self._terminal_rewards = spec.terminal_rewards
        self._exact_ids = spec.exact
        self._text_of: Any = None  # the state class's string method (None: str(state))
        self._opening: tuple[int, list[int], Any] | None = None  # see _start
        self._said: list[dict[int, str]] = [{} for _ in range(self.n)]  # "... plays x(1,1)."
        self._game_over: dict[tuple[float, ...], str] = {}  # returns -> "Game over. ..."
        me = [f"You are {a}." for a in self.possible_agents]
        self._heads_over = [f"{head}\n" for head in me]
        self._heads = [
            [
                f"{head} Your turn.\n" if c == i else f"{head} {self.possible_agents[c]} to act.\n"
                for c in range(self.n)
            ]
            for i, head in enumerate(me)
        ]
        self._paid_returns: list[float] = [0.0] * self.n
        self._chance = load_pyspiel().PlayerId.CHANCE
        row = _ROWS[name]
        rounds = (
            " Moves are simultaneous: players answer in turn, but nobody sees the others' "
            "moves of a round before it is over."
            if row.simultaneous
            else ""
        )
        self._rules = (
            f"OpenSpiel's {row.title} ({name}), {self.n} player{'s' * (self.n != 1)}. Each "
            f"turn you read your view of the game (OpenSpiel's {spec.text.replace('_', ' ')}) "
            "and answer with one of your legal actions, written as listed. Your reward is "
            f"the change of your OpenSpiel return, so your rewards add up to it.{rounds}"
        )

    @classmethod
    def check_num_players(cls, num_players: Any) -> None:
        """OpenSpiel's parameters fix the number of players; any positive count is fine."""
        if type(num_players) is not int or num_players < 1:
            raise ValueError(f"num_players must be a positive int, got {num_players!r}")

    # -- the common paths, one call each --------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; the same seed deals the same game (``TextGame.reset``).

        ``TextGame.reset`` written out, with ``_start`` too where OpenSpiel's initial
        state needs no chance move (its player and legal actions are then read once):
        small games start one every few moves.
        """
        if options or self.render_mode == "human":
            super().reset(seed, options)
            return
        if seed is not None:
            self._rng = None  # built on first use, as TextGame.reset has it
            self._fast = None
            self._seed = seed
        self.agents = agents = self.possible_agents[:]
        n = self.n
        zeros, falses = self._zeros, self._falses
        self.rewards = zeros.copy()
        self._cumulative_rewards = zeros.copy()
        self.terminations = falses.copy()
        self.truncations = falses.copy()
        self._streak = [0] * n
        self._step_rewards = [0.0] * n
        self._returns = [0.0] * n
        self._paid_returns = [0.0] * n
        self._paid = False
        self._skip_agent_selection = None
        self.turn = 0
        self.over = False
        self._obs_cache = None
        rules = self._rules
        self._pending = pending = []  # the rules first, chance moves announced after
        infos: dict[str, dict[str, Any]] = {}
        for a in agents:
            pending.append([rules])
            infos[a] = {"invalid_action": False, "turn": 0, "legal_actions": []}
        opening = self._opening
        if opening is None:
            self._legal_turn = -1
            self._start({})
            entry = self._legal_entry()
        else:
            self.state = self.spiel_game.new_initial_state()
            self.current, self._legal_ids, entry = opening
            self._legal_cache = entry
            self._legal_turn = 0
        self.agent_selection = first = agents[self.current]
        infos[first]["legal_actions"] = list(entry[0])
        self.infos = infos

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection``; a bad action never raises (``TextGame``).

        A legal action written as listed, by the player to move, is played here in one
        call: ``TextGame.step`` with this class's ``_parse``, ``_apply`` and
        ``_legal_entry`` written out, which is most of the adapter's cost per move in
        small games. Anything else goes through ``TextGame.step``; both play alike
        (``tests/envs/adapters/test_openspiel.py`` checks them against each other).
        """
        i = self.current
        found = self._exact_ids[i].get(action) if type(action) is str else None
        if (
            found is None
            or self.over
            or self._legal_turn != self.turn
            or found not in self._legal_ids
            or self.render_mode == "human"
        ):
            super().step(action)
            return
        agent = self.agent_selection  # not over: nobody is terminated or truncated
        self._cumulative_rewards[agent] = 0.0
        if self._paid:  # the last step paid: PettingZoo's rewards are this step's alone
            self._step_rewards = [0.0] * self.n
            self._paid = False
            rewards = self.rewards
            for a in rewards:
                rewards[a] = 0.0
        pending = self._pending
        pending[i].clear()  # it has read them
        self._obs_cache = None
        self._streak[i] = 0
        # _apply(found)
        if self._perfect:
            said = self._said[i].get(found)
            if said is None:
                name = self.action_names[self._spec.index[i][found]]
                said = self._said[i][found] = f"{self.possible_agents[i]} plays {name}."
            for news in pending:
                news.append(said)
        state = self.state
        state.apply_action(found)
        if self._has_chance and state.is_chance_node():
            self._chance_moves()
        if self._terminal_rewards and not state.is_terminal():
            self.current = current = state.current_player()
        else:
            self._after_move()
            current = self.current
        self.turn = turn = self.turn + 1
        if self._paid:
            self._settle_rewards()
        nxt = self.agent_selection = self.agents[current]
        if self.over:
            self._announce_result()
            return
        # _legal_entry()
        self._legal_ids = ids = state.legal_actions()
        if self._memo_legal:
            key = (current, tuple(ids))
            entry = self._entries.get(key)
            if entry is None:
                entry = self._new_entry(key)
        else:
            entry = self._new_entry(None)
        self._legal_cache = entry
        self._legal_turn = turn
        infos = self.infos
        if current != i:
            infos[agent] = {"invalid_action": False, "turn": turn, "legal_actions": []}
        infos[nxt] = {"invalid_action": False, "turn": turn, "legal_actions": list(entry[0])}

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent`` reads now (``TextGame.observe``, with ``_view`` written out).

        The ``action_mask`` array is shared between calls and read-only; copy it to edit it.
        """
        i = self.agent_name_mapping[agent]
        cache, turn = self._obs_cache, self.turn
        if cache is not None and cache[0] == i and cache[1] == turn:
            return cache[2]
        parts = self._pending[i][:]
        state = self.state
        text = str(state) if self._text_of is None else self._text_of(state, i)
        mask: np.ndarray | None
        if self.over:
            parts.append(self._heads_over[i] + text)
            mask = self._no_mask
        else:
            current = self.current
            parts.append(self._heads[i][current] + text)
            if i == current:
                legal = self._legal_cache if self._legal_turn == turn else self._legal_entry()
                if legal[0]:
                    parts.append(legal[1])
                mask = legal[2]
            else:
                mask = self._no_mask
        obs = {"text": "\n".join(parts), "action_mask": mask}
        self._obs_cache = (i, turn, obs)
        return obs

    # -- the rules: OpenSpiel's ----------------------------------------------------------

    def _start(self, options: dict[str, Any]) -> str:
        self.state = state = self.spiel_game.new_initial_state()
        self._paid_returns = [0.0] * self.n
        opening = self._opening
        if opening is not None:  # see below: every game opens alike
            self.current, self._legal_ids, self._legal_cache = opening
            self._legal_turn = 0  # TextGame.reset reads the entry of turn 0 next
            return self._rules
        if self._text_of is None and self._spec.text != "str":
            # The class's method, not the state's bound one: a copied game reads its own
            # state. Every state of a game has the same class, so it is looked up once.
            self._text_of = getattr(type(state), self._spec.text)
        drawn = self._spec.opening_chance is not None
        if drawn:
            self._chance_moves(self._spec.opening_chance)
        if self._terminal_rewards and not state.is_terminal():
            self.current = state.current_player()  # _after_move's common case: no pay
        else:
            self._after_move()
        if not (drawn or self.over or self._paid):
            # Nothing drawn, paid or ended: OpenSpiel's initial state is the same in every
            # game, so its player to move and legal actions are read once (the list of
            # ids is never changed in place).
            entry = self._legal_entry()
            self._opening = (self.current, self._legal_ids, entry)
        return self._rules

    def _chance_moves(self, outcomes: Any = None) -> None:
        """Play chance nodes with outcomes drawn from the game's own RNG.

        Called at a chance node (each caller has just asked), so the loop asks after a
        move; ``outcomes``: the first node's, where they are known (the opening's).
        """
        state, perfect = self.state, self._perfect
        random = (self._fast or self.random).random  # the property only when it builds
        if outcomes is None:
            outcomes = state.chance_outcomes()
        while True:
            draw = random()
            action = outcomes[-1][0]
            for outcome, probability in outcomes:
                draw -= probability
                if draw < 0.0:
                    action = outcome
                    break
            if perfect:
                said = "Chance: " + state.action_to_string(self._chance, action) + "."
                for news in self._pending:  # self.announce(said), without the call
                    news.append(said)
            state.apply_action(action)
            if not state.is_chance_node():
                return
            outcomes = state.chance_outcomes()

    def _after_move(self) -> None:
        """Pay the changes of the returns; end the game or pass the turn."""
        state = self.state
        terminal = state.is_terminal()
        if terminal or not self._spec.terminal_rewards:  # else nothing to pay yet
            returns = state.returns()
            paid, step_rewards = self._paid_returns, self._step_rewards
            for i in range(self.n):
                change = returns[i] - paid[i]
                if change:
                    step_rewards[i] += change  # self.pay(i, change), without the call
                    self._paid = True
                    paid[i] = returns[i]
        if terminal:
            key = tuple(returns)
            said = self._game_over.get(key)
            if said is None:  # games end with few distinct returns: each message made once
                said = "Game over. Returns: " + ", ".join(
                    f"{a} {r:g}" for a, r in zip(self.possible_agents, returns, strict=True)
                )
                said += "."
                if len(self._game_over) < 10_000:
                    self._game_over[key] = said
            self.over = True  # self.finish(said), without the calls
            for news in self._pending:
                news.append(said)
        else:
            self.current = state.current_player()

    def _legal_entry(self) -> tuple[tuple[str, ...], str, np.ndarray | None]:
        # TextGame._legal_entry with _legal_state written out (one call fewer a move).
        # Entries are memoised on (player, legal ids) across games: worth it for small
        # action universes (tic-tac-toe's boards), a waste of memory for big ones (Go's
        # legal sets rarely repeat).
        if self._legal_turn == self.turn:
            return self._legal_cache
        self._legal_ids = legal = self.state.legal_actions()
        if self._memo_legal:
            key = (self.current, tuple(legal))
            entry = self._entries.get(key)
            if entry is None:
                entry = self._new_entry(key)
        else:
            entry = self._new_entry(None)
        self._legal_cache = entry
        self._legal_turn = self.turn
        return entry

    def _legal(self) -> list[str]:
        names, index = self.action_names, self._spec.index[self.current]
        return [names[index[a]] for a in self._legal_ids]

    def _parse(self, action: str) -> int | Invalid:
        i = self.current
        found = self._exact_ids[i].get(action)
        if found is None:
            found = self._spec.loose[i].get(normalize_action(action))
        if found is None and self._spec.cased[i]:
            found = self._spec.cased[i].get(_spaced(action))
        if self._legal_turn != self.turn:
            self._legal_entry()  # sets self._legal_ids for this turn
        if found is not None and found in self._legal_ids:
            return found
        legal = ", ".join(self.legal_actions(i))
        if found is None:
            if self._spec.cased[i]:  # say why "d" is unknown where "D" is legal
                return Invalid(
                    f"unknown action (case tells this game's actions apart); legal now: {legal}"
                )
            return Invalid(f"unknown action; legal now: {legal}")
        name = self.action_names[self._spec.index[i][found]]
        return Invalid(f"{name} is not legal now; legal: {legal}")

    def _apply(self, action: int) -> None:
        if self._perfect:
            i = self.current
            said = self._said[i].get(action)
            if said is None:
                name = self.action_names[self._spec.index[i][action]]
                said = self._said[i][action] = f"{self.possible_agents[i]} plays {name}."
            for news in self._pending:  # self.announce(said), without the call
                news.append(said)
        state = self.state
        state.apply_action(action)
        if self._has_chance and state.is_chance_node():
            self._chance_moves()
        if self._terminal_rewards and not state.is_terminal():
            self.current = state.current_player()  # _after_move's common case: no pay
        else:
            self._after_move()

    def _forfeit(self, i: int) -> None:
        """Player ``i`` forfeits: its return drops to the game's worst (or by 1 below it)."""
        total = self._returns[i] + self._step_rewards[i]
        worst = self._spec.worst
        loss = 1.0 + max(0.0, total) if worst is None else max(0.0, total - worst)
        if loss:
            self.pay(i, -loss)
            others = [k for k in range(self.n) if k != i]
            if self.zero_sum and others:  # the others share it, so the sum stays zero
                for k in others:
                    self.pay(k, loss / len(others))
        self.finish(f"{self.possible_agents[i]} forfeits after too many invalid actions.")

    # -- what players see ----------------------------------------------------------------

    def _view(self, i: int) -> str:
        state = self.state
        text = str(state) if self._text_of is None else self._text_of(state, i)
        head = self._heads_over[i] if self.over else self._heads[i][self.current]
        return head + text

    def _render(self) -> str:
        # A few games print nothing before the first move (coordinated_mp).
        return str(self.state) or f"{self.game_name}: no moves yet"

    def success(self, agent: str) -> bool:
        """Whether ``agent`` ended with a positive return (a win in a zero-sum game)."""
        return self.over and self._returns[self.agent_name_mapping[agent]] > 0


@functools.cache
def game_class(name: str) -> type[OpenSpielGame]:
    """The ``OpenSpielGame`` subclass that plays OpenSpiel's ``name`` (a registered game).

    Raises:
        ValueError: ``name`` is not one of ``GAME_NAMES``.

    """
    if name not in _ROWS:
        raise ValueError(
            f"game must be one of the registered OpenSpiel games ({len(GAME_NAMES)}, "
            f"e.g. tic_tac_toe), got {name!r}"
        )
    row = _ROWS[name]
    cls = type(
        name,
        (OpenSpielGame,),
        {
            "game_name": name,
            "__module__": __name__,
            "__qualname__": name,
            "__doc__": f"OpenSpiel's {row.title} ({name}) as a turngym game.",
            "metadata": {**OpenSpielGame.metadata, "name": f"openspiel_{name}_v0"},
            "player_counts": (row.players,),
        },
    )
    return cls


def __getattr__(name: str) -> type[OpenSpielGame]:
    # Registry rows name a game as ``turngym.envs.adapters.openspiel:<game>``.
    if name in _ROWS:
        return game_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

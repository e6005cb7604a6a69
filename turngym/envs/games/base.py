"""``TextGame``: the base class of turngym's turn-based games (PettingZoo AEC envs).

It owns what every game must get right the same way (ARCHITECTURE.md section 4):
agents ``player_0..``, the ``{"text", "action_mask"}`` observation, string actions
(``GameAction`` over ``action_names``), ``infos[agent]["legal_actions"]``, per-step
rewards with PettingZoo's accumulation, the game's own RNG, and the invalid-action
policy (a zero-sum penalty, a retry allowance, then a forfeit). A subclass writes the
rules: ``_start``, ``_legal``, ``_apply``, ``_view`` and ``_render``.

What a player reads: everything that happened since it last acted (moves, private
news such as its dealt card), then its view of the game, then its legal actions
when it is its turn. The first observation starts with the rules.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Hashable
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from turngym.core import Invalid, normalize_action, preview
from turngym.spaces import GameAction, Unicode
from turngym.splitmix import SplitMix64

__all__ = ["Invalid", "TextGame"]

A = TypeVar("A")


def _bad_type(action: Any, limit: int) -> Invalid:
    if type(action) is not str:
        return Invalid(f"actions are strings, got {type(action).__name__}")
    return Invalid(f"the action is longer than {limit} characters")


def _outside_turngym() -> int:
    """The ``stacklevel`` of ``TextGame.__init__``'s first caller outside turngym.

    A game's own ``__init__``, ``make_game`` and ``gym.make`` are inside: the warning is
    the user's code's to see.
    """
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith(
        ("turngym.", "gymnasium.", "pettingzoo.", "turngym")
    ):
        level, frame = level + 1, frame.f_back  # type: ignore[assignment]
    return level


class TextGame(AECEnv[str, dict[str, Any], str], Generic[A]):
    """Base class for turn-based text games with string actions.

    Subclasses set ``action_names`` (the fixed action universe; empty for free-form
    games) and implement:
        ``_start(options) -> str``: deal/set up with ``self.random`` (fast, for small
        draws) or ``self.np_random`` (NumPy; built on first use), return the rules
        (shown at the top of each player's first observation); set ``self.current``.
        ``_legal() -> list[str]``: the legal actions of ``self.current`` (free-form
        games return [] and list none in ``infos``; their text says what to write).
        ``_parse(action) -> A | Invalid``: the default looks the normalized string up
        in ``action_names`` and checks it is legal.
        ``_apply(action: A)``: play it for ``self.current``; report with ``announce``/
        ``tell``, pay with ``pay``, end with ``finish``, pass the turn by setting
        ``self.current``.
        ``_view(i) -> str``: what player ``i`` sees of the game now.
        ``_render() -> str``: the full state (all private information) as text.
    Optionally ``_forfeit(i)`` (what a player loses by too many invalid actions: the
    match, always, with a return no better than the worst the game has) and
    ``success(agent)``.

    Args:
        invalid_action_penalty: the reward of an invalid action, a number <= 0 (the
            sign ``TextEnv`` takes: ``-0.1``), paid to its player and, in a zero-sum
            game, its opposite shared among the others so the sum stays zero. A
            positive number (this class's old sign) still means its negative, for one
            release, with a ``DeprecationWarning``.
        max_invalid_actions: this many invalid actions in a row forfeit the game; the
            ones before are retries (the turn stays with the player). 1: the first
            invalid action loses; None: unlimited retries.
        render_mode: ``"ansi"`` (``render()`` returns text), ``"human"`` or None.

    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "text_game",
        "is_parallelizable": False,
    }
    action_names: tuple[str, ...] = ()
    """The fixed action universe (``action_mask`` is aligned with it); () when free-form.
    A class default; a game whose universe depends on its options sets it per instance
    before calling ``TextGame.__init__``."""
    zero_sum: bool = True
    """Per-step rewards of all players sum to zero (a class default; a game with a
    reward option may set it per instance)."""
    cooperative: ClassVar[bool] = False
    """All players score together and ``success`` is a perfect team score, which a good
    but imperfect player may rarely reach (``turngym.testing`` then asks its expert to
    beat a random player's return instead)."""
    player_counts: ClassVar[tuple[int, ...]] = (2,)
    """The numbers of players the game can be played by (``num_players`` is checked)."""
    max_obs_length: ClassVar[int] = 65_536
    max_action_length: ClassVar[int] = 10_000

    def __init__(
        self,
        *,
        num_players: int = 2,
        invalid_action_penalty: float = 0.0,
        max_invalid_actions: int | None = 3,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.check_num_players(num_players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported; use 'ansi', 'human' or None"
            )
        if max_invalid_actions is not None and (
            isinstance(max_invalid_actions, bool)
            or not isinstance(max_invalid_actions, int)
            or max_invalid_actions < 1
        ):
            raise ValueError(
                f"max_invalid_actions must be a positive int or None, got {max_invalid_actions!r}"
            )
        if (
            isinstance(invalid_action_penalty, bool)
            or not isinstance(invalid_action_penalty, (int, float))
            or not math.isfinite(invalid_action_penalty)
        ):
            raise ValueError(
                "invalid_action_penalty is the reward of an invalid action, a number <= 0 "
                f"(e.g. -0.1), got {invalid_action_penalty!r}"
            )
        if invalid_action_penalty > 0:
            warnings.warn(
                f"invalid_action_penalty={invalid_action_penalty} is the reward of an invalid "
                f"action now, as for text envs: pass {-invalid_action_penalty} (a positive "
                "number is read as its negative until the next release)",
                DeprecationWarning,
                stacklevel=_outside_turngym(),
            )
            invalid_action_penalty = -invalid_action_penalty
        self.invalid_action_penalty = float(invalid_action_penalty)
        self.max_invalid_actions = max_invalid_actions
        self.render_mode = render_mode
        self.n = num_players
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        # reset copies these (a dict's copy is about 3x faster than dict.fromkeys)
        self._zeros = dict.fromkeys(self.possible_agents, 0.0)
        self._falses = dict.fromkeys(self.possible_agents, False)
        text = Unicode(self.max_obs_length)
        if self.action_names:
            self._index = {normalize_action(a): i for i, a in enumerate(self.action_names)}
            self._exact = {a: i for i, a in enumerate(self.action_names)}
            self._obs_space: spaces.Space[Any] = spaces.Dict(
                {"text": text, "action_mask": spaces.MultiBinary(len(self.action_names))}
            )
            self._act_space: Unicode = GameAction(self.action_names, self.max_action_length)
        else:
            self._index = {}
            self._exact = {}
            self._obs_space = spaces.Dict({"text": text})
            self._act_space = Unicode(self.max_action_length)
        self._rng: np.random.Generator | None = None
        self._fast: SplitMix64 | None = None
        self._seed: int | None = None
        self._entries: dict[Hashable, tuple[tuple[str, ...], str, np.ndarray | None]] = {}
        self._no_mask = np.zeros(len(self.action_names), dtype=np.int8)
        self._no_mask.setflags(write=False)
        self.agents: list[str] = []
        self._legal_cache: tuple[tuple[str, ...], str, np.ndarray | None] = ((), "", None)
        self._legal_turn = -1  # the turn _legal_cache was computed for
        self.current = 0
        self.turn = 0
        self.over = False

    @classmethod
    def check_num_players(cls, num_players: Any) -> None:
        """Raise a clear ``ValueError`` unless ``num_players`` is in ``player_counts``."""
        counts = cls.player_counts
        if type(num_players) is int and num_players in counts:
            return
        if len(counts) == 1:
            allowed = str(counts[0])
        elif len(counts) == 2:
            allowed = f"{counts[0]} or {counts[1]}"
        elif counts == tuple(range(counts[0], counts[-1] + 1)):
            allowed = f"{counts[0]} to {counts[-1]}"
        else:
            allowed = ", ".join(map(str, counts))
        raise ValueError(
            f"{cls.__name__} is for {allowed} players, got num_players={num_players!r}"
        )

    @property
    def random(self) -> SplitMix64:
        """A fast seeded RNG for draws in the hot path (cards, dice); built on first use."""
        if self._fast is None:
            self._fast = SplitMix64(self._seed)
        return self._fast

    @property
    def np_random(self) -> np.random.Generator:
        """The game's own RNG, seeded by ``reset(seed=...)`` (never the global one)."""
        if self._rng is None:
            self._rng, _ = seeding.np_random(self._seed)
        return self._rng

    # -- PettingZoo API --------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """``Dict(text=Unicode, action_mask=MultiBinary(n))``; free-form games: no mask."""
        return self._obs_space

    def action_space(self, agent: str) -> Unicode:
        """String actions: ``GameAction(action_names)``, or ``Unicode`` when free-form."""
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; the same seed deals the same game."""
        if seed is not None:
            # Built on first use: deterministic games (tic-tac-toe) never pay for them.
            self._rng = None
            self._fast = None
            self._seed = seed
        self.agents = self.possible_agents[:]
        n = self.n
        zeros, falses = self._zeros, self._falses
        self.rewards = zeros.copy()
        self._cumulative_rewards = zeros.copy()
        self.terminations = falses.copy()
        self.truncations = falses.copy()
        self._streak = [0] * n
        self._step_rewards = [0.0] * n
        self._returns = [0.0] * n
        self._paid = False
        self._skip_agent_selection: str | None = None
        self.current = 0
        self.turn = 0
        self.over = False
        self._obs_cache: tuple[int, int, dict[str, Any]] | None = None
        self._legal_turn = -1
        # loops, not comprehensions: a comprehension is a call of its own (Python 3.11),
        # and a small game resets every few moves
        self._pending: list[list[str]] = []
        for _ in range(n):
            self._pending.append([])
        rules = self._start(dict(options) if options else {})
        for pending in self._pending:
            pending.insert(0, rules)
        self.agent_selection = self.agents[self.current]
        infos: dict[str, dict[str, Any]] = {}
        if self.action_names:
            for a in self.agents:
                infos[a] = {"invalid_action": False, "turn": 0, "legal_actions": []}
            infos[self.agent_selection]["legal_actions"] = list(self._legal_entry()[0])
        else:
            for a in self.agents:
                infos[a] = {"invalid_action": False, "turn": 0}
        self.infos = infos
        if self.render_mode == "human":
            print(self._render())

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection``; a bad action never raises."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._dead_step()  # any action of a finished player is ignored
            return
        i = self.current
        self._cumulative_rewards[agent] = 0.0
        if self._paid:  # the last step paid: PettingZoo's rewards are this step's alone
            self._step_rewards = [0.0] * self.n
            self._paid = False
            rewards = self.rewards
            for a in rewards:
                rewards[a] = 0.0
        self._pending[i].clear()  # it has read them
        self._obs_cache = None
        if type(action) is str and len(action) <= self.max_action_length:
            parsed: A | Invalid = self._parse(action)
        else:
            parsed = _bad_type(action, self.max_action_length)
        if type(parsed) is Invalid:
            self._after_invalid(agent, i, action, parsed)
            return
        self._streak[i] = 0
        self._apply(parsed)  # type: ignore[arg-type]
        self.turn = turn = self.turn + 1
        if self._paid:
            self._settle_rewards()
        current = self.current
        nxt = self.agent_selection = self.agents[current]
        infos = self.infos
        if self.over:
            self._announce_result()
        elif self.action_names:  # the common case, kept lean
            legal = list(self._legal_entry()[0])
            if current != i:
                infos[agent] = {"invalid_action": False, "turn": turn, "legal_actions": []}
            infos[nxt] = {"invalid_action": False, "turn": turn, "legal_actions": legal}
        else:
            infos[agent] = {"invalid_action": False, "turn": turn}
            infos[nxt] = {"invalid_action": False, "turn": turn}
        if self.render_mode == "human":
            print(self._render())

    def _after_invalid(self, agent: str, i: int, action: Any, parsed: Invalid) -> None:
        """The invalid-action path of ``step``: penalty, retry or forfeit, infos."""
        self._invalid(i, action, parsed.reason)
        if self._paid:
            self._settle_rewards()
        self.agent_selection = self.agents[self.current]
        if self.over:
            self._announce_result()
        self.infos[agent] = self._info(i, invalid=True, reason=parsed.reason)
        if self.render_mode == "human":
            print(self._render())

    def _announce_result(self) -> None:
        """The game is over: every player is terminated and learns the result."""
        # _info(k, invalid=False) written out: a small game ends every few moves
        terminations, infos, turn = self.terminations, {}, self.turn
        names, success, listed = self.possible_agents, self.success, bool(self.action_names)
        for k, a in enumerate(self.agents):  # a loop, not a comprehension: one call fewer
            terminations[a] = True
            info: dict[str, Any] = {"invalid_action": False, "turn": turn}
            if listed:
                info["legal_actions"] = []
            info["success"] = success(names[k])
            infos[a] = info
        self.infos = infos

    def _dead_step(self) -> None:
        """PettingZoo's ``_was_dead_step``, leaner: drop the finished agent, pick the next."""
        agent = self.agent_selection
        del self.terminations[agent], self.truncations[agent], self.rewards[agent]
        del self._cumulative_rewards[agent], self.infos[agent]
        self.agents.remove(agent)
        for other in self.agents:
            if self.terminations[other] or self.truncations[other]:
                if self._skip_agent_selection is None:
                    self._skip_agent_selection = agent
                self.agent_selection = other
                break
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        for other in self.rewards:
            self.rewards[other] = 0.0

    def _settle_rewards(self) -> None:
        """Copy this step's rewards into PettingZoo's dicts and the running returns."""
        step_rewards = self._step_rewards
        rewards, cumulative, returns = self.rewards, self._cumulative_rewards, self._returns
        for k, a in enumerate(self.agents):
            rewards[a] = step_rewards[k]
            cumulative[a] += step_rewards[k]
            returns[k] += step_rewards[k]

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent`` reads now: news since it last acted, its view, its legal actions.

        The ``action_mask`` array is shared between calls and read-only; copy it to edit it.
        """
        i = self.agent_name_mapping[agent]
        cache = self._obs_cache
        if cache is not None and cache[0] == i and cache[1] == self.turn:
            return cache[2]
        parts = self._pending[i][:]
        parts.append(self._view(i))
        if i == self.current and not self.over:
            legal = self._legal_cache if self._legal_turn == self.turn else self._legal_entry()
            if legal[0]:
                parts.append(legal[1])
            mask = legal[2]
        else:
            mask = self._no_mask
        obs: dict[str, Any] = {"text": "\n".join(parts)}
        if self.action_names:
            obs["action_mask"] = mask
        self._obs_cache = (i, self.turn, obs)
        return obs

    def render(self) -> str | None:
        """The full game state as text (``ansi``), printed (``human``), or None."""
        if self.render_mode is None:
            return None
        if not self.agents and not self.over:
            return "(call reset() first)"
        text = self._render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (a subclass with resources overrides this)."""

    # -- helpers for subclasses ------------------------------------------------------

    def announce(self, text: str) -> None:
        """Tell every player ``text`` (a public event)."""
        for pending in self._pending:
            pending.append(text)

    def tell(self, i: int, text: str) -> None:
        """Tell player ``i`` alone (private news: a dealt card, a hint)."""
        self._pending[i].append(text)

    def pay(self, i: int, amount: float) -> None:
        """Add ``amount`` to player ``i``'s reward of this step."""
        self._step_rewards[i] += amount
        self._paid = True

    def finish(self, text: str) -> None:
        """End the game (after the ``pay`` calls that settle it)."""
        self.over = True
        self.announce(text)

    def legal_actions(self, i: int) -> list[str]:
        """Player ``i``'s legal actions now ([] when it is not its turn or the game is over)."""
        if i != self.current or self.over:
            return []
        return list(self._legal_entry()[0])

    def _legal_entry(self) -> tuple[tuple[str, ...], str, np.ndarray | None]:
        """(legal actions, their line of text, read-only mask), computed once a turn.

        Games whose legal actions depend on a small state return it from
        ``_legal_state()``; entries are then kept across games (tic-tac-toe's boards).
        """
        if self._legal_turn == self.turn:
            return self._legal_cache
        key = self._legal_state()
        entry = self._entries.get(key) if key is not None else None
        if entry is None:
            entry = self._new_entry(key)
        self._legal_cache = entry
        self._legal_turn = self.turn
        return entry

    def _new_entry(self, key: Hashable | None) -> tuple[tuple[str, ...], str, np.ndarray | None]:
        """``_legal_entry``'s entry made from ``_legal()``, kept under ``key`` unless None."""
        legal = tuple(self._legal())
        line = f"Your legal actions: {', '.join(legal)}."
        mask = None
        if self.action_names:
            mask = np.zeros(len(self.action_names), dtype=np.int8)
            exact = self._exact  # an unknown name is check_game's to report
            mask[[exact[name] for name in legal if name in exact]] = 1
            mask.setflags(write=False)
        entry = (legal, line, mask)
        if key is not None and len(self._entries) < 100_000:
            self._entries[key] = entry
        return entry

    def _legal_state(self) -> Hashable | None:
        """A key of everything ``_legal`` depends on, to memoise it; None: do not."""
        return None

    @property
    def returns(self) -> list[float]:
        """Each player's total reward in this game so far."""
        return list(self._returns)

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random action for the player to move: a uniformly random legal one.

        Free-form games override it with random well-formed actions (offers, replies,
        talk), so random opponents and property tests reach every rule of the game.
        """
        legal = self.legal_actions(self.current)
        if legal:
            return legal[int(rng.integers(len(legal)))]
        return "..."  # a free-form game without its own sampler: harmless talk

    def check_invariants(self) -> str | None:
        """What is wrong with the state (e.g. chips not conserved), or None. For tests."""
        return None

    def success(self, agent: str) -> bool:
        """Whether ``agent`` won: a positive total reward once the game is over."""
        return self.over and self._returns[self.agent_name_mapping[agent]] > 0

    # -- the rules, written by subclasses -------------------------------------------

    def _start(self, options: dict[str, Any]) -> str:
        raise NotImplementedError

    def _legal(self) -> list[str]:
        raise NotImplementedError

    def _parse(self, action: str) -> A | Invalid:
        """Look ``action`` up in ``action_names`` (any case and spacing); it must be legal."""
        k = self._exact.get(action)
        if k is None:
            k = self._index.get(normalize_action(action))
        legal = self.legal_actions(self.current)
        if k is None:
            return Invalid(f"unknown action; legal now: {', '.join(legal)}")
        name = self.action_names[k]
        if name not in legal:
            return Invalid(f"{name} is not legal now; legal: {', '.join(legal)}")
        return name  # type: ignore[return-value]

    def _apply(self, action: A) -> None:
        raise NotImplementedError

    def _view(self, i: int) -> str:
        raise NotImplementedError

    def _render(self) -> str:
        raise NotImplementedError

    def _forfeit(self, i: int) -> None:
        """Player ``i`` made one invalid action too many and loses the match.

        It loses 1 plus whatever it had gained so far, so its return ends at
        ``min(return so far, 0) - 1``: never above -1, so quitting while ahead never
        pays. The others share what it loses (a zero-sum game stays zero-sum).
        """
        others = [k for k in range(self.n) if k != i]
        loss = 1.0 + max(0.0, self._returns[i] + self._step_rewards[i])
        self.pay(i, -loss)
        for k in others:
            self.pay(k, loss / len(others))
        self.finish(f"{self.possible_agents[i]} forfeits after too many invalid actions.")

    # -- plumbing --------------------------------------------------------------------

    def _invalid(self, i: int, action: Any, reason: str) -> None:
        self._streak[i] += 1
        penalty = self.invalid_action_penalty  # a reward <= 0
        if penalty:
            self.pay(i, penalty)
            if self.zero_sum:
                for k in range(self.n):
                    if k != i:
                        self.pay(k, -penalty / (self.n - 1))
        limit = self.max_invalid_actions
        if limit is not None and self._streak[i] >= limit:
            self.tell(i, f"Invalid action {preview(action)}: {reason}.")
            self._forfeit(i)
            return
        left = limit - self._streak[i] if limit is not None else None
        tries = "" if left is None else f" ({left} {'try' if left == 1 else 'tries'} left)"
        self.tell(i, f"Invalid action {preview(action)}: {reason}. Try again{tries}.")

    def _info(self, i: int, *, invalid: bool, reason: str = "") -> dict[str, Any]:
        info: dict[str, Any] = {"invalid_action": invalid, "turn": self.turn}
        if self.action_names:  # free-form games list no legal actions
            mine = i == self.current and not self.over
            info["legal_actions"] = list(self._legal_entry()[0]) if mine else []
        if invalid:
            info["invalid_reason"] = reason
        if self.over:
            info["success"] = self.success(self.possible_agents[i])
        return info

    def _maybe_print(self) -> None:
        if self.render_mode == "human":
            print(self._render())

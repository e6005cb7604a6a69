"""``TextAdapter``: a classic Gymnasium env with a ``Discrete`` action space, played in text.

The adapter names the actions, describes each state in words and reports success,
so any toy-text env becomes a turngym text env. Three are registered with their own
describers: ``Taxi-v0`` (``TaxiTextEnv``), ``CliffWalking-v0`` (``CliffWalkingTextEnv``)
and ``Blackjack-v0`` (``BlackjackTextEnv``). For any other env the fallback names the
actions ``"0"``..``"n-1"`` and shows ``repr(obs)``.

Rewards are the wrapped env's own (Taxi: -1 a step, +20 delivery, -10 illegal
pickup/drop-off; CliffWalking: -1 a step, -100 off the cliff; Blackjack: +1/0/-1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.envs.toy_text.blackjack import (
    BlackjackEnv,
    is_bust,
    is_natural,
    score,
    sum_hand,
    usable_ace,
)
from gymnasium.envs.toy_text.cliffwalking import CliffWalkingEnv
from gymnasium.envs.toy_text.taxi import MAP as TAXI_MAP
from gymnasium.envs.toy_text.taxi import TaxiEnv

from turngym.core import Invalid, Outcome, TextEnv, match_action, normalize_action

__all__ = [
    "BlackjackTextEnv",
    "CliffWalkingTextEnv",
    "Describe",
    "IsSuccess",
    "StateKey",
    "TaxiTextEnv",
    "TextAdapter",
]

Describe = Callable[[gym.Env, Any, bool], str]
"""``describe(classic_env.unwrapped, obs, done) -> text`` of the current state."""
IsSuccess = Callable[[gym.Env, Any, float, bool], bool]
"""``is_success(classic_env.unwrapped, obs, reward, terminated)`` on each step."""
StateKey = Callable[[gym.Env, Any], "str | None"]
"""``state_key(classic_env.unwrapped, obs)``: a hashable id of the state, or None."""


def _describe_repr(env: gym.Env, obs: Any, done: bool) -> str:
    return f"Observation: {obs!r}"


def _success_positive_end(env: gym.Env, obs: Any, reward: float, terminated: bool) -> bool:
    return terminated and reward > 0


def _key_small_obs(env: gym.Env, obs: Any) -> str | None:
    # Discrete and tuple-of-discrete observations identify the state; arrays may be huge.
    if isinstance(obs, (int, np.integer)) or (
        isinstance(obs, tuple) and all(isinstance(x, (int, np.integer)) for x in obs)
    ):
        return repr(tuple(int(x) for x in obs) if isinstance(obs, tuple) else int(obs))
    return None


class TextAdapter(TextEnv[int]):
    """Play a classic Gymnasium env with a ``Discrete`` action space through text.

    Each turn the agent answers with an action name (case and spacing do not matter;
    ``aliases`` adds other accepted spellings). The wrapped env is reseeded from
    ``self.np_random`` on every reset, so one seed gives one episode.

    Args:
        env: the classic env (it is stepped as given; ``env.unwrapped`` is what
            ``describe``, ``is_success`` and ``state_key`` see).
        action_names: one canonical name per action, in action order; default
            ``"0"``..``"n-1"``.
        describe: text of the current state; default ``repr(obs)``.
        instruction: the task statement opening the first observation; default a
            generic one naming the env and its actions.
        is_success: whether a step solved the task; default: it terminated the
            episode with a positive reward.
        state_key: the ``info["state_key"]`` of a state; default ``repr(obs)`` for
            discrete (or tuple-of-discrete) observations, otherwise none.
        aliases: extra accepted spellings, ``{alias: canonical name}``.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ``render_mode``, ...).

    Example:
        >>> import gymnasium as gym
        >>> from turngym.envs.classic import TextAdapter
        >>> names = ["left", "down", "right", "up"]
        >>> env = TextAdapter(gym.make("FrozenLake-v1"), action_names=names)
        >>> obs, info = env.reset(seed=0)
        >>> info["legal_actions"]
        ['left', 'down', 'right', 'up']
        >>> obs, reward, terminated, truncated, info = env.step(" Down ")
        >>> info["invalid_action"]
        False

    """

    def __init__(
        self,
        env: gym.Env,
        action_names: Sequence[str] | None = None,
        describe: Describe | None = None,
        *,
        instruction: str | None = None,
        is_success: IsSuccess | None = None,
        state_key: StateKey | None = None,
        aliases: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        space = getattr(env, "action_space", None)
        if not isinstance(space, gym.spaces.Discrete):
            raise ValueError(
                "TextAdapter needs an env with a Discrete action space, got "
                f"{space!r}; discretize continuous actions first"
            )
        n = int(space.n)
        names = [str(i) for i in range(n)] if action_names is None else list(action_names)
        if len(names) != n:
            raise ValueError(
                f"action_names must name all {n} actions of the env, got {len(names)}: {names}"
            )
        lookup = {normalize_action(name): i for i, name in enumerate(names)}
        if len(lookup) != n or "" in lookup:
            raise ValueError(
                f"action_names must be non-empty and distinct ignoring case/spaces, got {names}"
            )
        for alias, target in (aliases or {}).items():
            if target not in names:
                raise ValueError(f"alias {alias!r} points to {target!r}, not one of {names}")
            lookup.setdefault(normalize_action(alias), names.index(target))
        super().__init__(**kwargs)
        self.inner = env
        self.action_names = names
        self._start = int(space.start)
        self._lookup = lookup
        self._describe = describe or _describe_repr
        self._is_success = is_success or _success_positive_end
        self._key = state_key or _key_small_obs
        if instruction is None:
            name = env.spec.id if env.spec is not None else type(env.unwrapped).__name__
            instruction = (
                f"You control the Gymnasium environment {name}. Each turn, answer with one "
                f"action: {', '.join(names)}. Maximise your total reward."
            )
        self._instruction_text = instruction
        self._obs: Any = None
        self._ended = False

    # -- the game --------------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> str:
        # The classic env gets its seed from our RNG: same seed, same episode, and a
        # reused adapter replays exactly like a fresh one.
        self._obs, _ = self.inner.reset(seed=int(self.np_random.integers(2**31)))
        self._ended = False
        self.instruction = self._instruction_text
        return f"{self.instruction}\n\n{self._text()}"

    def _parse(self, action: str) -> int | Invalid:
        index = match_action(action, self._lookup)
        if index is None:
            return Invalid(f"unknown action; answer with one of: {', '.join(self.action_names)}")
        return index

    def _apply(self, action: int) -> Outcome:
        obs, reward, terminated, truncated, _ = self.inner.step(self._start + action)
        self._obs = obs
        reward = float(reward)
        terminated, truncated = bool(terminated), bool(truncated)
        success = bool(self._is_success(self.inner.unwrapped, obs, reward, terminated))
        self._ended = terminated or truncated
        text = f"You chose {self.action_names[action]}. Reward: {reward:g}.\n{self._text()}"
        if self._ended:
            verdict = "you succeeded" if success else "you did not succeed"
            text += f"\nThe episode is over: {verdict}."
        return Outcome(text, reward, terminated=terminated, truncated=truncated, success=success)

    def _legal_actions(self) -> list[str]:
        return list(self.action_names)

    def _render(self) -> str:
        return self._text()

    def _state_key(self) -> str | None:
        if not self._started:
            return None
        return self._key(self.inner.unwrapped, self._obs)

    def _text(self) -> str:
        return self._describe(self.inner.unwrapped, self._obs, self._ended)

    def close(self) -> None:
        """Close the wrapped env too."""
        self.inner.close()
        super().close()


def _require_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


# -- Taxi ------------------------------------------------------------------------------

TAXI_ACTIONS = ("south", "north", "east", "west", "pickup", "dropoff")
TAXI_STANDS = ("R", "G", "Y", "B")


def _describe_taxi(env: gym.Env, obs: Any, done: bool) -> str:
    taxi: TaxiEnv = env  # type: ignore[assignment]
    row, col, passenger, dest = taxi.decode(int(taxi.s))
    grid = [list(line) for line in TAXI_MAP]
    grid[1 + row][2 * col + 1] = "T"

    def stand(i: int) -> str:
        r, c = taxi.locs[i]
        return f"{TAXI_STANDS[i]} (row {r}, column {c})"

    if passenger == 4:
        where = "in the taxi"
    elif done and passenger == dest:
        where = f"delivered at {stand(passenger)}"
    else:
        where = f"waiting at {stand(passenger)}"
    board = "\n".join("".join(line) for line in grid)
    return (
        f"{board}\nTaxi: row {row}, column {col}. Passenger: {where}. Destination: {stand(dest)}."
    )


def _taxi_key(env: gym.Env, obs: Any) -> str:
    return f"taxi:{int(env.s)}"  # type: ignore[attr-defined]


def _terminated(env: gym.Env, obs: Any, reward: float, terminated: bool) -> bool:
    return terminated


class TaxiTextEnv(TextAdapter):
    """Gymnasium's Taxi in text: fetch the passenger and drop them at their destination.

    Args:
        is_rainy: moves slip sideways with probability 0.2 (Gymnasium's rainy taxi).
        fickle_passenger: the passenger may change destination once after boarding.
        **kwargs: ``TextEnv`` options.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/Taxi-v0")
        >>> obs, info = env.reset(seed=0)
        >>> info["legal_actions"]
        ['south', 'north', 'east', 'west', 'pickup', 'dropoff']
        >>> obs, reward, *_ = env.step("north")
        >>> reward
        -1.0

    """

    def __init__(
        self, is_rainy: bool = False, fickle_passenger: bool = False, **kwargs: Any
    ) -> None:
        inner = TaxiEnv(
            is_rainy=_require_bool("is_rainy", is_rainy),
            fickle_passenger=_require_bool("fickle_passenger", fickle_passenger),
        )
        instruction = (
            "Drive the taxi T on a 5x5 grid: pick up the passenger at their stand (R, G, Y "
            "or B) and drop them off at their destination stand. Rows count 0-4 from the "
            "top, columns 0-4 from the left. '|' is a wall that blocks east/west moves; ':' "
            "is open. Actions: south (down a row), north (up a row), east (right), west "
            "(left), pickup, dropoff. Rewards: -1 per action, +20 for dropping the passenger "
            "at the destination (this ends the episode), -10 for a pickup or drop-off that "
            "is not allowed."
        )
        if is_rainy:
            instruction += " It is raining: a move sometimes slides the taxi sideways."
        if fickle_passenger:
            instruction += " The passenger may change their mind about the destination."
        super().__init__(
            inner,
            TAXI_ACTIONS,
            _describe_taxi,
            instruction=instruction,
            is_success=_terminated,
            state_key=_taxi_key,
            aliases={
                "down": "south",
                "up": "north",
                "right": "east",
                "left": "west",
                "pick up": "pickup",
                "drop off": "dropoff",
            },
            **kwargs,
        )


# -- CliffWalking ----------------------------------------------------------------------

CLIFF_ACTIONS = ("up", "right", "down", "left")


def _describe_cliff(env: gym.Env, obs: Any, done: bool) -> str:
    cliff: CliffWalkingEnv = env  # type: ignore[assignment]
    rows, cols = cliff.shape
    row, col = divmod(int(cliff.s), cols)
    lines = []
    for r in range(rows):
        cells = []
        for c in range(cols):
            if (r, c) == (row, col):
                cells.append("P")
            elif (r, c) == (rows - 1, 0):
                cells.append("S")
            elif (r, c) == (rows - 1, cols - 1):
                cells.append("G")
            elif cliff._cliff[r, c]:
                cells.append("C")
            else:
                cells.append(".")
        lines.append(" ".join(cells))
    return "\n".join(lines) + f"\nYou are at row {row}, column {col}."


def _cliff_key(env: gym.Env, obs: Any) -> str:
    return f"cliff:{int(env.s)}"  # type: ignore[attr-defined]


class CliffWalkingTextEnv(TextAdapter):
    """Gymnasium's CliffWalking in text: walk along a cliff edge to the goal.

    Args:
        is_slippery: a move goes sideways with probability 2/3 (Gymnasium's option).
        **kwargs: ``TextEnv`` options.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/CliffWalking-v0")
        >>> obs, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step("right")
        >>> reward, terminated, info["state_key"]
        (-100.0, False, 'cliff:36')

    """

    def __init__(self, is_slippery: bool = False, **kwargs: Any) -> None:
        inner = CliffWalkingEnv(is_slippery=_require_bool("is_slippery", is_slippery))
        instruction = (
            "Walk from the start S (bottom left) to the goal G (bottom right) of a 4x12 "
            "grid. Legend: P you, S start, G goal, C cliff, . safe ground. Rows count 0-3 "
            "from the top, columns 0-11 from the left. Stepping onto the cliff costs -100 "
            "and sends you back to S; every other move costs -1 (walking into the edge "
            "leaves you in place). Actions: up, right, down, left."
        )
        if is_slippery:
            instruction += " The ground is slippery: a move often goes sideways instead."
        super().__init__(
            inner,
            CLIFF_ACTIONS,
            _describe_cliff,
            instruction=instruction,
            is_success=_terminated,
            state_key=_cliff_key,
            aliases={"north": "up", "east": "right", "south": "down", "west": "left"},
            **kwargs,
        )


# -- Blackjack -------------------------------------------------------------------------

BLACKJACK_ACTIONS = ("stick", "hit")


def _cards(hand: Sequence[int]) -> str:
    return ", ".join("A" if card == 1 else str(card) for card in hand)


def _hand_text(hand: list[int]) -> str:
    if is_bust(hand):
        return f"{_cards(hand)} (total {sum_hand(hand)}, bust)"
    soft = ", soft: an ace counts 11" if usable_ace(hand) else ""
    return f"{_cards(hand)} (total {sum_hand(hand)}{soft})"


def _describe_blackjack(env: gym.Env, obs: Any, done: bool) -> str:
    game: BlackjackEnv = env  # type: ignore[assignment]
    mine = f"Your hand: {_hand_text(game.player)}."
    if not done:
        up = "A" if game.dealer[0] == 1 else str(game.dealer[0])
        return f"{mine} Dealer shows: {up} (the other card is face down)."
    me, dealer = score(game.player), score(game.dealer)
    result = "You win." if me > dealer else ("It is a draw." if me == dealer else "You lose.")
    if is_bust(game.player):
        result = "You went bust and lose."
    elif game.sab and is_natural(game.player) and not is_natural(game.dealer):
        result = "Your natural blackjack wins."
    return f"{mine} Dealer's hand: {_hand_text(game.dealer)}. {result}"


def _blackjack_key(env: gym.Env, obs: Any) -> str:
    total, dealer, soft = (int(x) for x in obs)
    return f"blackjack:{total},{dealer},{soft}"


class BlackjackTextEnv(TextAdapter):
    """Gymnasium's Blackjack in text: one hand against the dealer (infinite deck).

    Args:
        natural: pay 1.5 for a winning natural blackjack (ignored when ``sab``).
        sab: Sutton & Barto's rules, as ``Blackjack-v1``: a natural beats a non-natural
            dealer hand.
        **kwargs: ``TextEnv`` options.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/Blackjack-v0")
        >>> obs, info = env.reset(seed=0)
        >>> info["legal_actions"]
        ['stick', 'hit']

    """

    def __init__(self, natural: bool = False, sab: bool = True, **kwargs: Any) -> None:
        inner = BlackjackEnv(
            natural=_require_bool("natural", natural), sab=_require_bool("sab", sab)
        )
        instruction = (
            "Play one hand of blackjack against the dealer. Cards 2-10 count their value, "
            "face cards count 10, an ace (A) counts 1 or 11. Finish closer to 21 than the "
            "dealer without going over (bust). Actions: hit (take another card) or stick "
            "(stop; the dealer then draws until reaching 17 or more). Reward: +1 for a win, "
            "0 for a draw, -1 for a loss."
        )
        super().__init__(
            inner,
            BLACKJACK_ACTIONS,
            _describe_blackjack,
            instruction=instruction,
            # A win pays +1 (1.5 for a paid natural); a draw pays 0.
            is_success=_success_positive_end,
            state_key=_blackjack_key,
            aliases={"stand": "stick"},
            **kwargs,
        )

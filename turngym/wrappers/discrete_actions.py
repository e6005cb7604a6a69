"""``DiscreteActions``: a ``Discrete(n)`` action space over a text env's fixed action names.

Classic RL libraries (Stable-Baselines3, sb3-contrib's ``MaskablePPO``) pick integer
actions. This wrapper numbers the env's action universe (the fixed list of action
names), turns an integer back into its name before the env sees it, and puts an
``action_mask`` (``np.int8``, aligned with the universe) in every ``info``, built from
``info["legal_actions"]``. ``action_masks()`` returns the current mask, which is the
method ``MaskablePPO`` looks for.

Where the universe comes from, first match wins:

1. ``actions=[...]`` given to the wrapper;
2. the env's ``action_names`` (``TextAdapter`` classic envs such as ``Taxi-v0``);
3. the game's ``action_names`` for a single-agent game view (the names of its
   ``GameAction`` space, e.g. ``TicTacToe-v0``'s cells);
4. the fixed action lists of turngym's grid envs (FrozenLake, Maze, Sokoban, BabyAIText).

Envs whose actions have no fixed finite list (Wordle's guesses could be listed with
``actions=``; Chess moves or Bandit arms that change per episode cannot) raise a
``ValueError`` naming the env.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from turngym.core import normalize_action

__all__ = ["ActionIndex", "DiscreteActions", "find_action_universe"]

# Text envs whose legal actions are always the same module-level list. They name no
# universe on the env object, so it is looked up here by class (import strings keep
# `import turngym.wrappers` light).
_FIXED_UNIVERSES: dict[str, str] = {
    "turngym.envs.text.frozen_lake:FrozenLakeEnv": "turngym.envs.text.frozen_lake:ACTIONS",
    "turngym.envs.text.maze:MazeEnv": "turngym.envs.text.maze:ACTIONS",
    "turngym.envs.text.sokoban:SokobanEnv": "turngym.envs.text.sokoban_levels:DIRECTIONS",
    "turngym.envs.text.babyai_text:BabyAITextEnv": "turngym.envs.text.babyai_text:ACTIONS",
}


def _env_name(env: gym.Env) -> str:
    spec = env.spec or env.unwrapped.spec
    return spec.id if spec is not None else type(env.unwrapped).__name__


def find_action_universe(env: gym.Env) -> tuple[str, ...]:
    """The fixed, ordered action names of ``env``; ValueError if it has none.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> find_action_universe(gym.make("turngym/FrozenLake-v0"))
        ('left', 'down', 'right', 'up')

    """
    base = env.unwrapped
    names = getattr(base, "action_names", None)
    if not names:
        game = getattr(base, "game", None)
        names = getattr(game, "action_names", None)
    if not names:
        from turngym.registry import load

        cls = type(base)
        path = _FIXED_UNIVERSES.get(f"{cls.__module__}:{cls.__qualname__}")
        names = load(path) if path is not None else None
    if not names:
        raise ValueError(
            f"{_env_name(env)} has no fixed, finite list of action names for DiscreteActions "
            "to number (its legal actions change from state to state or are free text); "
            "pass actions=[...] to DiscreteActions if a fixed list covers every legal action"
        )
    return tuple(str(name) for name in names)


class ActionIndex:
    """Integers <-> action names over a fixed universe, and legal-action masks.

    The logic of ``DiscreteActions`` without the env, so other wrappers (a PettingZoo
    one) can share it.

    Example:
        >>> index = ActionIndex(["left", "down", "right", "up"])
        >>> index.decode(2), index.mask(["Up", "left"]).tolist()
        ('right', [1, 0, 0, 1])

    """

    def __init__(self, names: Sequence[str]) -> None:
        names = tuple(names)
        lookup = {normalize_action(name): i for i, name in enumerate(names)}
        if not names or len(lookup) != len(names):
            raise ValueError(
                f"actions must be a non-empty list of names distinct ignoring case and "
                f"spacing, got {list(names)!r}"
            )
        self.names = names
        self._lookup = lookup

    def __len__(self) -> int:
        return len(self.names)

    def decode(self, action: Any) -> str:
        """The name of integer ``action``; anything else becomes a string no env accepts.

        The fallback keeps the contract that a bad action never raises: the env's own
        invalid-action path explains it, counts it and applies its penalty.
        """
        index = _as_index(action)
        if index is not None and 0 <= index < len(self.names):
            return self.names[index]
        return f"<action {action!r} is not an index in 0..{len(self.names) - 1}>"

    def mask(self, legal: Sequence[str] | None) -> np.ndarray:
        """``np.int8`` 0/1 over the universe; all ones when ``legal`` is unknown (None).

        Legal actions outside the universe cannot be chosen and are left out.
        """
        if legal is None:
            return np.ones(len(self.names), dtype=np.int8)
        out = np.zeros(len(self.names), dtype=np.int8)
        for name in legal:
            i = self._lookup.get(normalize_action(name)) if isinstance(name, str) else None
            if i is not None:
                out[i] = 1
        return out


def _as_index(action: Any) -> int | None:
    """An int from Python/NumPy integers and one-element integer arrays; else None."""
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        return int(action.reshape(()))
    return None


class DiscreteActions(
    gym.Wrapper[Any, Any, Any, Any],
    gym.utils.RecordConstructorArgs,
):
    """Choose actions by index: ``Discrete(n)`` over the env's fixed action names.

    ``info["action_mask"]`` (``np.int8``, 1 = legal) comes with every reset and step,
    and ``action_masks()`` returns it for sb3-contrib's ``MaskablePPO``. An index out
    of range (or not an integer) is passed on as a string the env rejects, so it takes
    the env's invalid-action path instead of raising.

    Args:
        env: a turngym text env or single-agent game view.
        actions: the universe to number; default: found on the env
            (see ``find_action_universe``).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> from turngym.wrappers import DiscreteActions
        >>> env = DiscreteActions(gym.make("turngym/TicTacToe-v0", opponent="random"))
        >>> obs, info = env.reset(seed=0)
        >>> env.action_space, info["action_mask"].tolist()
        (Discrete(9), [1, 1, 1, 1, 1, 1, 1, 1, 1])
        >>> obs, reward, terminated, truncated, info = env.step(4)  # b2, the centre
        >>> int(info["action_mask"][4])
        0

    """

    def __init__(self, env: gym.Env, actions: Sequence[str] | None = None) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, actions=actions)
        gym.Wrapper.__init__(self, env)
        if isinstance(actions, str):
            raise ValueError(f"actions must be a list of names, not one string: {actions!r}")
        names = find_action_universe(env) if actions is None else tuple(actions)
        self.index = ActionIndex(names)
        self.action_space = gym.spaces.Discrete(len(self.index))
        self._mask = self.index.mask(None)

    @property
    def action_names(self) -> tuple[str, ...]:
        """The universe: ``action_names[i]`` is what action ``i`` sends to the env."""
        return self.index.names

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env; ``info["action_mask"]`` holds the first legal actions."""
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._with_mask(info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play the action named by index ``action``; a bad index never raises."""
        obs, reward, terminated, truncated, info = self.env.step(self.index.decode(action))
        return obs, float(reward), terminated, truncated, self._with_mask(info)

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as booleans (sb3-contrib's ``MaskablePPO`` calls this)."""
        return self._mask.astype(bool)

    def _with_mask(self, info: dict[str, Any]) -> dict[str, Any]:
        self._mask = self.index.mask(info.get("legal_actions"))
        return {**info, "action_mask": self._mask.copy()}

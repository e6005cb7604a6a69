"""The env a trainer trains on: a registered id (or a given factory) with its wrappers.

- ``env_id_of``: the registered id of a config's env, and whether it is a game.
- ``make_text_env``: ``turngym.make`` with a stack of wrapper specs
  (``turngym.wrappers.specs``); ``make_game_env``: ``turngym.make_game`` with the game
  twins of the same specs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from turngym.wrappers.specs import wrap_env, wrap_game

__all__ = ["env_id_of", "make_game_env", "make_text_env"]


def env_id_of(env: str, env_fn: Any, games: bool, trainer: str) -> tuple[str, bool]:
    """The registered id of ``env`` and whether it is a game (``env_fn``: ``env`` as is).

    Raises a one-line ``ValueError`` for an unknown id, or for a game when the
    ``trainer`` (its name, for the message) only takes single-agent envs.
    """
    if env_fn is not None:
        return env, False
    from turngym.registry import entry

    try:
        row = entry(env)
    except KeyError as error:
        raise ValueError(str(error.args[0])) from None
    if row.game is not None and not games:
        raise ValueError(f"{trainer} trains on single-agent envs; {row.id} is a game")
    return row.id, row.game is not None


def make_text_env(
    env_id: str,
    env_kwargs: dict[str, Any],
    wrappers: Sequence[str] = (),
    env_fn: Callable[[], Any] | None = None,
    tokenizer: Any = None,
    system_prompt: str | None = None,
) -> Any:
    """``turngym.make(env_id, **env_kwargs)`` (or ``env_fn()``) with ``wrappers`` applied.

    ``wrappers`` go on innermost first, as ``turngym.wrappers.specs.wrap_env`` puts
    them (token-counting wrappers count with the policy's ``tokenizer`` and
    ``system_prompt``).

    Raises:
        ValueError: bad env arguments, wrapper options or wrapper order (one line).

    """
    import turngym

    try:
        env = env_fn() if env_fn is not None else turngym.make(env_id, **env_kwargs)
    except TypeError as error:
        raise ValueError(f"env_kwargs {env_kwargs}: {error}") from None
    return wrap_env(env, wrappers, tokenizer=tokenizer, system_prompt=system_prompt)


def make_game_env(
    env_id: str,
    env_kwargs: dict[str, Any],
    wrappers: Sequence[str] = (),
    tokenizer: Any = None,
    system_prompt: str | None = None,
) -> Any:
    """``turngym.make_game(env_id, **env_kwargs)`` with the game twins of ``wrappers``.

    Each wrapper of the spec becomes its game twin (``wrap_game``), which acts for every
    seat; ``tokenizer`` and ``system_prompt`` as for ``make_text_env``.

    Raises:
        ValueError: bad game arguments, a wrapper with no game twin, bad options (one line).

    """
    import turngym

    try:
        game = turngym.make_game(env_id, **env_kwargs)
    except TypeError as error:
        raise ValueError(f"env_kwargs {env_kwargs}: {error}") from None
    return wrap_game(game, wrappers, tokenizer=tokenizer, system_prompt=system_prompt)

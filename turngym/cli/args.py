"""What the turngym commands share: user errors, help, env ids and globs, --set, making envs."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from turngym.extras import MissingExtra
from turngym.registry import FAMILIES

if TYPE_CHECKING:
    from turngym.registry import EnvEntry

__all__ = [
    "FAMILIES_HELP",
    "OPPONENT_HELP",
    "SET_HELP",
    "WRAPPERS_HELP",
    "CliError",
    "DefaultsFormatter",
    "agent_for",
    "check_kwargs",
    "full_id",
    "game_options",
    "make_env",
    "parse_sets",
    "selected",
    "wrappers_for",
]


SET_HELP = "env constructor argument, e.g. --set size=8 (repeatable)"
OPPONENT_HELP = "games: who plays the other seats (default: random)"
WRAPPERS_HELP = (
    "wrapper specs around the env, innermost first, comma list (name or name:key=value;...), "
    "as turngym train takes them; default: a trained hf:DIR model's own stack, else none"
)

FAMILIES_HELP = ", ".join(FAMILIES[:-1]).replace("web", "web (the sites)") + f" or {FAMILIES[-1]}"
"""the families ``--family`` takes, as help text"""


class DefaultsFormatter(argparse.HelpFormatter):
    """Help that ends each flag with its default, where the default is a value."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        # no value to show: a switch, an unset option (its help says what then), a list
        unset = default is None or default is False or default is argparse.SUPPRESS
        if unset or default == [] or "%(default)" in text or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


class CliError(Exception):
    """A user-facing error: printed without a traceback, exit status 2."""


def selected(patterns: Sequence[str], families: Sequence[str]) -> list[EnvEntry]:
    """Registry rows by id, short id or glob (``'*Poker*'``), within ``families``."""
    from turngym.registry import select

    try:
        return select(patterns, families)
    except KeyError as error:
        raise CliError(str(error.args[0])) from None
    except ValueError as error:
        raise CliError(f"--{error}") from None


def full_id(name: str) -> str:
    """The full id of ``name`` (``Wordle-v0`` or ``turngym/Wordle-v0``)."""
    from turngym.registry import entry

    try:
        return entry(name).id
    except KeyError as error:
        raise CliError(str(error.args[0])) from None


def parse_sets(pairs: Sequence[str]) -> dict[str, Any]:
    """``--set key=value`` pairs as kwargs; a value that reads as a Python literal is one.

    >>> parse_sets(["size=8", "map=random", "sizes=[1, 2]"])
    {'size': 8, 'map': 'random', 'sizes': [1, 2]}
    """
    kwargs: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.isidentifier():
            raise CliError(f"--set takes key=value (e.g. --set size=8), got {pair!r}")
        try:
            kwargs[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            kwargs[key] = raw
    return kwargs


# Keyword arguments gym.make takes itself, beside the env's own.
_MAKE_KWARGS = ("max_episode_steps", "disable_env_checker")


def check_kwargs(env_id: str, kwargs: dict[str, Any]) -> None:
    """A ``--set`` key the env does not take is an error that lists the ones it does."""
    import difflib

    from turngym.registry import entry

    row = entry(env_id)
    valid = row.kwarg_names()
    for key in kwargs:
        if key not in valid and key not in _MAKE_KWARGS:
            close = difflib.get_close_matches(key, valid, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise CliError(f"{row.name} takes no {key!r}; {hint}it takes: {', '.join(valid)}")


def make_env(env_id: str, kwargs: dict[str, Any]) -> Any:
    """``gym.make(env_id, **kwargs)``, with bad kwargs and missing extras as ``CliError``."""
    import gymnasium as gym

    from turngym.registry import entry

    try:
        check_kwargs(env_id, kwargs)
        return gym.make(env_id, **kwargs)
    except (ValueError, TypeError) as error:
        raise CliError(f"cannot make {env_id} with {kwargs}: {error}") from None
    except MissingExtra as error:  # said with the env's name, which the env code lacks
        row = entry(env_id)
        system = row.system if row.extra == error.extra else None
        raise CliError(str(MissingExtra(row.name, error.extra, system=system))) from None


def game_options(env_id: str, args: argparse.Namespace, kwargs: dict[str, Any]) -> None:
    """Put ``--opponent``/``--seat`` into the kwargs of a game's single-agent view."""
    from turngym.registry import entry

    wanted = {"opponent": args.opponent, "seat": args.seat}
    given = {k: v for k, v in wanted.items() if v is not None}
    if not given:
        return
    if entry(env_id).game is None:
        raise CliError(f"--opponent and --seat are for games; {env_id} is a single-agent env")
    if "seat" in given and given["seat"] != "random":
        try:
            given["seat"] = int(given["seat"])
        except ValueError:
            raise CliError(f"--seat takes 0, 1, ... or random, got {given['seat']!r}") from None
    kwargs.update(given)


def agent_for(kind: str, env: Any, seed: int) -> Any:
    """``make_agent(kind, env, seed=seed)``, with a bad model dir or URL as ``CliError``."""
    from turngym.sdk.agents import make_agent

    try:
        return make_agent(kind, env, seed=seed)
    except ValueError as error:  # a missing model dir, a bad URL: the user's to fix
        raise CliError(str(error)) from error


def wrappers_for(kind: str, given: str | None) -> tuple[str, ...]:
    """The wrapper stack agent ``kind`` plays under: ``--wrappers`` if given, else its own.

    A model a turngym trainer saved (``hf:DIR``) records the stack it was trained under.

    Raises:
        CliError: a spec no wrapper takes, or a malformed settings file.

    """
    from turngym.sdk.agents import trained_wrappers
    from turngym.wrappers.specs import split_specs

    try:
        if given is not None:
            return tuple(split_specs(given))
        return tuple(trained_wrappers(kind))
    except ValueError as error:
        raise CliError(f"--wrappers: {error}") from None

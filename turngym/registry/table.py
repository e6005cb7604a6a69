"""The table of every registered id, its lookups, and its registration with Gymnasium.

``ENVS`` is each family module's rows side by side, in the order ``turngym list``,
``select`` and Gymnasium's registry show them; ``entry``, ``select`` and ``suggest``
look rows up. The table holds import strings only, so reading it (and registering it)
imports no env code.
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Sequence

from turngym.registry.babyai import BABYAI
from turngym.registry.base import NAMESPACE, EnvEntry
from turngym.registry.classic import CLASSIC
from turngym.registry.crafter import CRAFTER
from turngym.registry.games import GAMES
from turngym.registry.gui import GUI, SCREEN_GRAPH
from turngym.registry.miniwob import MINIWOB
from turngym.registry.nethack import NETHACK
from turngym.registry.openspiel import OPENSPIEL
from turngym.registry.reasoning_gym import REASONING_GYM
from turngym.registry.swe import SWE
from turngym.registry.text import TEXT, TOYS
from turngym.registry.textworld import TEXTWORLD
from turngym.registry.web import SITES

__all__ = ["ADAPTERS", "ENVS", "FAMILIES", "entry", "register_envs", "select", "suggest"]

ADAPTERS: tuple[EnvEntry, ...] = OPENSPIEL + BABYAI + CRAFTER + NETHACK + TEXTWORLD + REASONING_GYM
"""The rows of the adapters over other projects' environments (issue 30)."""

ENVS: tuple[EnvEntry, ...] = (
    TOYS + CLASSIC + TEXT + SITES + SCREEN_GRAPH + SWE + GAMES + MINIWOB + GUI + ADAPTERS
)
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

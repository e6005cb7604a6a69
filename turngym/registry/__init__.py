"""The one table of turngym env ids, and their registration with Gymnasium.

The table holds import strings only, so reading it (and registering it) imports no
env code. ``register_envs()`` runs on ``import turngym`` and, through the
``_turngym_gym_plugin.pth`` hook, whenever gymnasium is imported, so
``gym.make("turngym/Wordle-v0")`` works in a fresh interpreter.

One module per concern: ``base`` (the ``EnvEntry`` row and the row builders), one
module of rows per family (``text``, ``classic``, ``games``, ``web``, ``miniwob``,
``gui``, ``swe``, ``openspiel``, ``babyai``, ``crafter``, ``nethack``, ``textworld``,
``reasoning_gym``) and ``table`` (``ENVS``, its lookups and ``register_envs``).
"""

from __future__ import annotations

from turngym.registry.base import NAMESPACE as NAMESPACE
from turngym.registry.base import EnvEntry, load
from turngym.registry.games import GAMES
from turngym.registry.gui import GUI
from turngym.registry.miniwob import MINIWOB
from turngym.registry.table import ENVS, FAMILIES, entry, register_envs, select, suggest

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

"""``GUITask``: what a desktop task template says, and ``Screen``, what its checks read.

A template draws its parameters from the env's RNG (``sample``), writes the starting
files into the episode's folder (``setup``), tells each app how to start (``config``),
states the task (``instruction``) and checks the result from the apps' reported state
and the files (``check``). Templates are plain classes with no X or Tk imports, so the
catalog can be read without starting anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

__all__ = ["GUITask", "pick", "words"]

TERMINAL = "terminal"
"""The app name of the sandboxed ``xterm`` (not a Tk app: it reports no state)."""

_WORD_LIST = (
    "amber apple atlas autumn bamboo beacon birch breeze canyon cedar cherry cobalt "
    "comet coral cotton crystal dawn delta desert ember falcon fern fjord forest "
    "galaxy garnet glacier granite harbor hazel horizon indigo island ivory jasmine "
    "juniper lagoon lantern lemon lilac linen maple meadow mint monsoon nectar oasis "
    "olive onyx orbit orchid pebble pepper pine planet plum prairie quartz raven reef "
    "river saffron sage sierra silver spruce summit sunset thistle thunder tide topaz "
    "tulip valley velvet willow winter zephyr"
)
_WORDS = tuple(_WORD_LIST.split())


def words(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` distinct common words drawn from ``rng`` (names for notes, files, people).

    >>> words(np.random.default_rng(0), 2)
    ['spruce', 'orbit']
    """
    return [str(w) for w in rng.choice(_WORDS, size=n, replace=False)]


def pick(rng: np.random.Generator, options: tuple[Any, ...] | list[Any]) -> Any:
    """One of ``options``, drawn from ``rng``."""
    return options[int(rng.integers(len(options)))]


class GUITask:
    """A task template: seeded parameters, starting state, instruction, programmatic check.

    Subclasses set ``name`` (``"notes-create"``), ``apps`` (``APPS`` names and/or
    ``"terminal"``, laid out left to right) and ``max_turns``, and write ``sample``,
    ``instruction`` and ``check``; ``setup`` and ``config`` when the task starts from
    files or app settings.
    """

    name: ClassVar[str] = ""
    apps: ClassVar[tuple[str, ...]] = ()
    max_turns: ClassVar[int] = 30
    description: ClassVar[str] = ""

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """The episode's parameters (JSON-serialisable), drawn from ``rng`` only."""
        raise NotImplementedError

    def setup(self, params: Mapping[str, Any], workdir: Path) -> None:
        """Write the starting files into ``workdir`` (empty at this point)."""

    def config(self, params: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """Each app's ``load`` config, by app name (apps not named get ``{}``)."""
        return {}

    def instruction(self, params: Mapping[str, Any]) -> str:
        """The task statement shown to the agent."""
        raise NotImplementedError

    def check(self, params: Mapping[str, Any], state: Mapping[str, Any], workdir: Path) -> bool:
        """Whether the task is done, from the apps' ``state()`` (by app name) and the files."""
        raise NotImplementedError

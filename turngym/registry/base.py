"""The registry's row type and the builders every family module makes its rows with.

``EnvEntry`` is one registered id; ``env_row`` and ``game_row`` build the rows of the
family modules (``text``, ``games``, ``openspiel``...), which ``turngym.registry.table``
puts together into ``ENVS``. This module imports no family module, so the family
modules import it one way.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from turngym.extras import unavailable

__all__ = ["NAMESPACE", "EnvEntry", "env_row", "game_row", "load"]

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

        >>> from turngym.registry import entry
        >>> entry("miniwob.click-test-v0").group, entry("WebShop-v0").group
        ('miniwob', 'web')
        """
        if self.suite is not None:
            return self.suite
        return "miniwob" if self.name.startswith("miniwob.") else self.family

    def kwarg_names(self) -> list[str]:
        """The constructor arguments ``gym.make(self.id, **kwargs)`` accepts (imports the env).

        >>> from turngym.registry import entry
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

        >>> from turngym.registry import entry
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


def env_row(name: str, entry_point: str, family: str, steps: int | None, **rest: Any) -> EnvEntry:
    """A row of ``family`` with its id in turngym's namespace and the family's needs.

    The family's extra and Debian packages (``web``, ``gui``, ``swe``) apply unless
    ``rest`` names its own (``extra=...``, ``system=...``).
    """
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


def game_row(name: str, game: str, steps: int, expert: str | None, **rest: Any) -> EnvEntry:
    """A game row: ``gym.make`` gives one seat (``GameView``), ``make_game`` the AEC env."""
    return env_row(
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


def load(target: str) -> Any:
    """Import ``module:attr`` and return the attribute."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)

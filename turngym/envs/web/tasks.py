"""What a local web site gives its env: tasks, their oracle plans, and how they are scored.

A *site* (``turngym/envs/web/sites/<name>/``) is a small web application backed by one
SQLite file. Its ``Site`` object builds the prepared database once, serves the app for a
copy of it, draws a ``Task`` from a template with the env's RNG, and scores the episode
from the database state (and the agent's ``answer(...)``), so no judge model is needed.

Every task carries an oracle plan: ``Step``s that name their target by accessibility role
and accessible name (``Step.click("button", "Add to cart")``), resolved against the
observation at the time they run. The plan is written from the database (the site knows
the answer), and CI plays it to prove every template is solvable.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np

__all__ = ["STEP_ACTIONS", "Site", "Step", "Task", "WSGIApp"]

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Any]
"""A WSGI application (PEP 3333)."""

STEP_ACTIONS = ("click", "fill", "select", "press", "goto", "back", "answer")
"""The actions an oracle step may take (a subset of the agent's actions)."""


@dataclass(frozen=True)
class Step:
    """One step of an oracle plan, resolved against the observation when it runs.

    ``click``/``fill``/``select`` name their element by ``role`` (Chromium's
    accessibility role: ``link``, ``button``, ``textbox``, ``combobox``, ``radio``...)
    and exact accessible ``name``; ``text`` is what to type, the option to pick, the key
    to press, the path to open (``goto``) or the answer to give.

    >>> Step.fill("textbox", "Search", "red shoes")
    Step(action='fill', role='textbox', name='Search', text='red shoes')
    """

    action: str
    role: str = ""
    name: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        if self.action not in STEP_ACTIONS:
            raise ValueError(f"unknown step action {self.action!r}; use one of {STEP_ACTIONS}")

    @classmethod
    def click(cls, role: str, name: str) -> Step:
        """Click the element with this role and accessible name."""
        return cls("click", role, name)

    @classmethod
    def fill(cls, role: str, name: str, text: str) -> Step:
        """Type ``text`` into the field with this role and name (replacing its value)."""
        return cls("fill", role, name, text)

    @classmethod
    def select(cls, role: str, name: str, option: str) -> Step:
        """Pick ``option`` (its visible text) in the drop-down with this role and name."""
        return cls("select", role, name, option)

    @classmethod
    def press(cls, key: str) -> Step:
        """Press a key (``"Enter"``) in the focused element."""
        return cls("press", text=key)

    @classmethod
    def goto(cls, path: str) -> Step:
        """Open a path of the site (``"/cart"``)."""
        return cls("goto", text=path)

    @classmethod
    def answer(cls, text: str) -> Step:
        """End the episode with this answer."""
        return cls("answer", text=text)


@dataclass(frozen=True)
class Task:
    """One task drawn from a site's template.

    Attributes:
        template: the template's name (``"buy_product"``, ``"reply_to_post"``...).
        instruction: what the agent is told to do.
        goal: what the site's ``score`` checks, template-specific and JSON-able.
        oracle: a plan that solves the task, written from the database.
        start_path: the page the episode starts on.

    """

    template: str
    instruction: str
    goal: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    oracle: tuple[Step, ...] = ()
    start_path: str = "/"


class Site(Protocol):
    """A local web application with tasks (one per env class: shop, forum, admin)."""

    name: str
    """short name with a version (``shop-v1``), used for the prepared database's file name"""
    templates: tuple[str, ...]
    """the task templates ``sample_task`` can draw from (annotate it ``tuple[str, ...]``
    in a site class: a bare tuple literal is inferred as fixed-length and fails the type)"""

    def build_database(self, path: Path) -> None:
        """Write the prepared database to ``path`` (deterministic: same file every time)."""
        ...

    def app(self, db_path: Path) -> WSGIApp:
        """The WSGI application serving the database at ``db_path``."""
        ...

    def sample_task(
        self, rng: np.random.Generator, conn: sqlite3.Connection, template: str | None = None
    ) -> Task:
        """Draw a task (from ``template``, or from any template) using ``rng`` only.

        ``conn`` is the freshly restored database, so a task may record in its ``goal``
        what the start state was (``score`` then checks that nothing else changed; the
        forum and admin sites use ``sites.pages.expect_change`` for the whole database).
        """
        ...

    def finished(self, task: Task, conn: sqlite3.Connection) -> bool:
        """Whether the site state ends the episode (a placed order); ``answer`` always does."""
        ...

    def score(self, task: Task, conn: sqlite3.Connection, answer: str | None) -> float:
        """The episode's reward in [0, 1]; 1.0 means solved."""
        ...

"""What a MiniWoB solver sees and the few actions it builds: ``Episode`` and helpers.

Every solver is a generator that yields actions and reads the newest observation from
its ``Episode`` after each one. Facts the accessibility tree lacks are read privileged-ly
through the env's JavaScript bridge (``Episode.js``) and clicked by viewport coordinates
(``Episode.click_element``); solvers that do so say so in their docstrings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from turngym.envs.web.axtree import find_id
from turngym.envs.web.miniwob import MiniWoBEnv

__all__ = [
    "ELEMENT",
    "STATIC",
    "Episode",
    "Lost",
    "Plan",
    "Solver",
    "click",
    "fill",
    "keys",
    "submit",
]

Plan = Iterator[str]
"""A solver's actions, one at a time (a generator)."""

Solver = Callable[["Episode"], Plan]
"""A task's solver: given the episode, its plan."""

ELEMENT = re.compile(r"^\s*\[(\d+)\] (\S+)(?: '((?:[^'\\]|\\.)*)')?(.*)$")
"""An element line of the tree: id, role, name (escaped), the rest."""
STATIC = re.compile(r"^\s*StaticText '((?:[^'\\]|\\.)*)'")
"""A text line of the tree: its (escaped) text."""

# A point of an element a click would reach, once any jQuery animation has ended (a person
# waits for a sliding panel to stop before clicking into it) and the element is scrolled
# into view: its centre, or else the first point of a grid over it that no other element
# covers (buttons may overlap). ``%s`` is a JavaScript expression that gives the element.
_POINT = """(async () => {
  const el = (%s);
  if (!el) return null;
  for (let i = 0; i < 100 && window.jQuery && jQuery(':animated').length; i++)
    await new Promise(r => setTimeout(r, 20));
  // Images still loading move everything below them when they arrive (order-food's
  // type icons have a width and no height): a point read before that misses.
  for (let i = 0; i < 100 && [...document.images].some(im => !im.complete); i++)
    await new Promise(r => setTimeout(r, 20));
  el.scrollIntoView({block: 'nearest'});
  await new Promise(r => requestAnimationFrame(r));
  const b = el.getBoundingClientRect();
  const points = [[0.5, 0.5]];
  for (const fy of [0.2, 0.5, 0.8]) for (const fx of [0.1, 0.3, 0.5, 0.7, 0.9])
    points.push([fx, fy]);
  for (const [fx, fy] of points) {
    const x = b.left + fx * b.width, y = b.top + fy * b.height;
    const hit = document.elementFromPoint(x, y);
    if (hit && (hit === el || el.contains(hit))) return [x, y];
  }
  return [b.left + b.width / 2, b.top + b.height / 2];
})()"""

# The first visible element matching a CSS selector whose text is exactly the one given.
_BY_TEXT = """[...document.querySelectorAll(%s)].find(e =>
  e.textContent.trim() === %s && e.getClientRects().length > 0)"""


class Lost(Exception):
    """The solver cannot find what it needs on the page; the oracle waits (``noop``)."""


class Episode:
    """What a solver sees and can do: the newest observation and a few look-ups."""

    def __init__(self, env: MiniWoBEnv, goal: str) -> None:
        self.env = env
        self.goal = goal
        self.text = ""

    # -- the observation ---------------------------------------------------------------

    def elements(self, role: str | None = None) -> list[tuple[int, str, str, str]]:
        """Every element line as (id, role, name, rest), optionally of one role only."""
        found = []
        for line in self.text.splitlines():
            match = ELEMENT.match(line)
            if match and (role is None or match.group(2) == role):
                name = re.sub(r"\\(.)", r"\1", match.group(3) or "")
                found.append((int(match.group(1)), match.group(2), name, match.group(4)))
        return found

    def statics(self) -> list[str]:
        """The page's texts (``StaticText`` lines), in order."""
        return [
            re.sub(r"\\(.)", r"\1", m.group(1))
            for m in map(STATIC.match, self.text.splitlines())
            if m
        ]

    def find(self, role: str, name: str) -> int:
        """The id of the element of ``role`` named ``name``.

        Raises:
            Lost: there is none on the page.

        """
        element = find_id(self.text, role, name)
        if element is None:
            raise Lost(f"no {role} {name!r}")
        return element

    def quoted(self) -> list[str]:
        """The double-quoted phrases of the utterance."""
        return re.findall(r'"(.*?)"', self.goal)

    # -- privileged page reads ---------------------------------------------------------

    def js(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the task's page (privileged)."""
        assert self.env._page is not None
        return self.env._run(self.env._page.evaluate(expression))

    def click_element(self, expression: str) -> str:
        """A ``mouse_click`` on the element a JS expression gives, where nothing covers it.

        Raises:
            Lost: the expression gave no element.

        """
        centre = self.js(_POINT % expression)
        if not centre:
            raise Lost(f"no element for {expression}")
        return f"mouse_click({centre[0]:.1f}, {centre[1]:.1f})"

    def click_text(self, text: str, selector: str = "*") -> str:
        """A ``mouse_click`` on the first visible ``selector`` element reading ``text``."""
        return self.click_element(_BY_TEXT % (json.dumps(selector), json.dumps(text)))


def click(element: int) -> str:
    """A click on the element with this id."""
    return f"click({element})"


def fill(element: int, text: str) -> str:
    """A fill of the element with this id."""
    return f"fill({element}, {json.dumps(text)})"


def submit(s: Episode) -> str:
    """A click on the page's Submit button."""
    return click(s.find("button", "Submit"))


def keys(text: str) -> Plan:
    """One ``press`` per character of ``text``."""
    for key in text:
        yield f"press({json.dumps(key)})"

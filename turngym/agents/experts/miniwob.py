"""The scripted expert of the MiniWoB++ tasks: one small solver per task.

``MiniWoBOracle`` reads the task's utterance and the accessibility tree of each
observation and answers with the action a careful human would take next. Every solver
is a generator that yields actions and reads the newest observation from its
``_Episode`` after each one, so a multi-step task reads top to bottom like its plan.

Some facts are not in the accessibility tree: the ``<span>`` links of ``click-link``
have no role and so no id, and canvas or SVG tasks draw their answer. Solvers that need
them read the page privileged-ly through the env's own JavaScript bridge and click by
viewport coordinates (``mouse_click``); each such solver says so in its docstring.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.web.axtree import find_id
from turngym.envs.web.miniwob import MiniWoBEnv

__all__ = ["SOLVERS", "MiniWoBOracle"]

Plan = Iterator[str]

_ELEMENT = re.compile(r"^\s*\[(\d+)\] (\S+)(?: '((?:[^'\\]|\\.)*)')?(.*)$")
_STATIC = re.compile(r"^\s*StaticText '((?:[^'\\]|\\.)*)'")

# A point of an element a click would reach, once any jQuery animation has ended (a person
# waits for a sliding panel to stop before clicking into it) and the element is scrolled
# into view: its centre, or else the first point of a grid over it that no other element
# covers (buttons may overlap). ``%s`` is a JavaScript expression that gives the element.
_POINT = """(async () => {
  const el = (%s);
  if (!el) return null;
  for (let i = 0; i < 100 && window.jQuery && jQuery(':animated').length; i++)
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


class _Episode:
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
            match = _ELEMENT.match(line)
            if match and (role is None or match.group(2) == role):
                name = re.sub(r"\\(.)", r"\1", match.group(3) or "")
                found.append((int(match.group(1)), match.group(2), name, match.group(4)))
        return found

    def statics(self) -> list[str]:
        """The page's texts (``StaticText`` lines), in order."""
        return [
            re.sub(r"\\(.)", r"\1", m.group(1))
            for m in map(_STATIC.match, self.text.splitlines())
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


def _click(element: int) -> str:
    return f"click({element})"


def _fill(element: int, text: str) -> str:
    return f"fill({element}, {json.dumps(text)})"


# -- clicking --------------------------------------------------------------------------


def _click_test(s: _Episode) -> Plan:
    """Click the one button."""
    yield _click(s.find("button", "Click Me!"))


def _click_button_named(s: _Episode) -> Plan:
    """Click the button the utterance names (``Click button ONE.``, ``"submit"``)."""
    match = re.search(r'Click (?:on the "(.+?)"|button (\w+))', s.goal)
    if match is None:
        raise Lost(s.goal)
    yield _click(s.find("button", match.group(1) or match.group(2)))


def _click_overlapping_button(s: _Episode) -> Plan:
    """Click button ONE or TWO where the other does not cover it.

    Privileged: the buttons are placed at random and may overlap, so the point to click
    is found from their boxes in the page.
    """
    match = re.search(r"Click button (\w+)", s.goal)
    if match is None:
        raise Lost(s.goal)
    yield s.click_text(match.group(1), "button")


def _click_button_sequence(s: _Episode) -> Plan:
    """Click ONE, then TWO (privileged like ``_click_overlapping_button``)."""
    yield s.click_text("ONE", "button")
    yield s.click_text("TWO", "button")


def _click_link(s: _Episode) -> Plan:
    """Click the link span with the asked text (privileged: the spans have no id)."""
    yield s.click_text(s.quoted()[0], "span.alink")


def _click_dialog(s: _Episode) -> Plan:
    """Close the dialog with its "x" (the titlebar's Close button)."""
    yield _click(s.find("button", "Close"))


def _click_dialog_2(s: _Episode) -> Plan:
    """Click the dialog's button the utterance names; "x" is the Close button."""
    label = s.quoted()[0]
    yield _click(s.find("button", "Close" if label == "x" else label))


def _checkbox_names(goal: str) -> list[str]:
    """The names in ``Select A, B and click Submit.`` (none for ``Select nothing ...``)."""
    match = re.search(r"Select (.*) and click Submit", goal)
    if match is None or match.group(1) == "nothing":
        return []
    return [w.strip() for w in match.group(1).split(",") if w.strip()]


def _click_checkboxes(s: _Episode) -> Plan:
    """Tick exactly the named boxes, then Submit."""
    for name in _checkbox_names(s.goal):
        yield _click(s.find("checkbox", name))
    yield _click(s.find("button", "Submit"))


def _click_checkboxes_soft(s: _Episode) -> Plan:
    """Tick the boxes whose word means the same as one asked for, then Submit.

    Privileged: the synonym groups are read from the task's ``SYNONYMS``.
    """
    asked = re.search(r"similar to (.*) and click Submit", s.goal)
    words = [] if asked is None else [w.strip() for w in asked.group(1).split(",")]
    groups: list[list[str]] = s.js("SYNONYMS")
    wanted = {w for g in groups if any(a in g for a in words) for w in g}
    for element, _, name, _ in s.elements("checkbox"):
        if name in wanted:
            yield _click(element)
    yield _click(s.find("button", "Submit"))


def _click_option(s: _Episode) -> Plan:
    """Choose the named radio button, then Submit."""
    yield _click(s.find("radio", _checkbox_names(s.goal)[0]))
    yield _click(s.find("button", "Submit"))


def _click_tab(s: _Episode) -> Plan:
    """Click the tab the utterance names."""
    match = re.search(r"Tab #\d+", s.goal)
    if match is None:
        raise Lost(s.goal)
    yield _click(s.find("link", match.group(0)))


def _click_tab_2(s: _Episode) -> Plan:
    """Open the tab holding the asked link, then click the link.

    When no tab holds it, the task (``-medium``) wants the other, empty tab clicked.

    Privileged: the link spans have no id; which tab holds one is read from the page.
    """
    word = s.quoted()[0]
    tab = s.js(
        "(() => { const e = [...document.querySelectorAll('span.alink')].find("
        f"e => e.textContent === {json.dumps(word)}); "
        "return e ? e.closest('[role=tabpanel]').id.split('-')[1] : null; })()"
    )
    if tab is None:
        yield _click(s.elements("link")[1][0])
        return
    tabs = [e for e, _, name, _ in s.elements("link") if name in (f"Tab #{tab}", str(tab))]
    if not tabs:
        raise Lost(word)
    yield _click(tabs[0])
    yield s.click_text(word, "span.alink")


def _click_collapsible(s: _Episode) -> Plan:
    """Open the section, then Submit."""
    section = next((e for e, _, name, _ in s.elements("tab") if name.startswith("Section")), None)
    if section is None:
        raise Lost("no section")
    yield _click(section)
    yield _click(s.find("button", "Submit"))


def _click_collapsible_2(s: _Episode) -> Plan:
    """Open the section holding the asked link, then click the link.

    Privileged: the link spans have no id; which section holds one is read from the page.
    """
    word = s.quoted()[0]
    header = s.js(
        "(() => { const e = [...document.querySelectorAll('span.alink')].find("
        f"e => e.textContent === {json.dumps(word)}); "
        "return e ? e.parentElement.previousElementSibling.textContent.trim() : null; })()"
    )
    if header is None:
        raise Lost(word)
    yield _click(s.find("tab", header))
    yield s.click_text(word, "span.alink")


def _click_widget(s: _Episode) -> Plan:
    """Click a widget of the asked kind (privileged: text and textarea look alike)."""
    kind = s.quoted()[0]
    yield s.click_element(f"document.querySelector('[data-type={json.dumps(kind)}]')")


# -- typing ----------------------------------------------------------------------------


def _submit(s: _Episode) -> str:
    return _click(s.find("button", "Submit"))


def _enter_text(s: _Episode) -> Plan:
    """Type the quoted text (in the asked case) into the field, then Submit."""
    text = s.quoted()[0]
    if "upper case" in s.goal:
        text = text.upper()
    elif "lower case" in s.goal:
        text = text.lower()
    yield _fill(s.elements("textbox")[0][0], text)
    yield _submit(s)


def _enter_password(s: _Episode) -> Plan:
    """Type the password into both fields, then Submit."""
    password = s.quoted()[0]
    for element, *_ in s.elements("textbox"):
        yield _fill(element, password)
    yield _submit(s)


def _login_user(s: _Episode) -> Plan:
    """Type the username and password, then Login."""
    user, password = s.quoted()[:2]
    first, second = (e for e, *_ in s.elements("textbox")[:2])
    yield _fill(first, user)
    yield _fill(second, password)
    yield _click(s.find("button", "Login"))


def _focus_text(s: _Episode) -> Plan:
    """Click into the asked textbox (the only one, or the 1st/2nd/3rd)."""
    match = re.search(r"(\d)(?:st|nd|rd|th)", s.goal)
    index = int(match.group(1)) - 1 if match else 0
    yield _click(s.elements("textbox")[index][0])


def _choose_list(s: _Episode) -> Plan:
    """Pick the named entry of the drop-down, then Submit."""
    name = re.search(r"Select (.*) from the list", s.goal)
    if name is None:
        raise Lost(s.goal)
    yield f"select({s.elements('combobox')[0][0]}, {json.dumps(name.group(1))})"
    yield _submit(s)


def _answer_box(s: _Episode, answer: str) -> Plan:
    yield _fill(s.elements("textbox")[0][0], answer)
    yield _submit(s)


def _simple_arithmetic(s: _Episode) -> Plan:
    """Work out ``a op b =`` and type the result."""
    problem = next(t for t in s.statics() if t.endswith("="))
    a, op, b = re.findall(r"-?\d+|[-+x*/]", problem.rstrip("= "))[:3]
    ops: dict[str, Callable[[int, int], int]] = {
        "+": lambda x, y: x + y,
        "-": lambda x, y: x - y,
        "x": lambda x, y: x * y,
        "*": lambda x, y: x * y,
        "/": lambda x, y: x // y,
    }
    yield from _answer_box(s, str(ops[op](int(a), int(b))))


def _simple_algebra(s: _Episode) -> Plan:
    """Solve ``x op d = m`` or ``d op x = m`` shown on the page."""
    equation = next(t for t in s.statics() if re.fullmatch(r"\S+ [-+] \S+ = -?\d+", t))
    first, op, second, _, result = equation.split()
    total = int(result)
    if first == "x":  # x + d = m, x - d = m
        answer = total - int(second) if op == "+" else total + int(second)
    else:  # d + x = m, d - x = m
        answer = total - int(first) if op == "+" else int(first) - total
    yield from _answer_box(s, str(answer))


def _find_word(s: _Episode) -> Plan:
    """Type the n-th word of the paragraph, its punctuation dropped."""
    match = re.search(r"(\d+)(?:st|nd|rd|th) word", s.goal)
    if match is None:
        raise Lost(s.goal)
    paragraph = next(t for t in s.statics() if t not in s.goal and "word" not in t)
    words = [re.sub(r"[^a-zA-Z]", "", w) for w in paragraph.split()]
    yield from _answer_box(s, words[int(match.group(1)) - 1])


def _read_table(s: _Episode) -> Plan:
    """Type the table's value for each asked label, then Submit."""
    cells = [name for _, _, name, _ in s.elements("cell")]
    table = dict(zip(cells[0::2], cells[1::2], strict=False))
    lines = s.text.splitlines()
    boxes = s.elements("textbox")
    if len(boxes) == 1:  # read-table: the label is in the utterance
        label = re.search(r"value of (.*) into", s.goal)
        if label is None:
            raise Lost(s.goal)
        yield _fill(boxes[0][0], table[label.group(1)])
    else:  # read-table-2: each box follows its "Label:" text
        key = ""
        for line in lines:
            text = _STATIC.match(line)
            if text and text.group(1).endswith(":"):
                key = text.group(1)[:-1]
            box = _ELEMENT.match(line)
            if box and box.group(2) == "textbox":
                yield _fill(int(box.group(1)), table[key])
    yield _submit(s)


def _odd_or_even(s: _Episode) -> Plan:
    """Mark each number with its Odd or Even button (the pair around it), then Submit."""
    marks: list[str] = []
    odd = 0
    for line in s.text.splitlines():
        element = _ELEMENT.match(line)
        if element and element.group(3) == "Odd":
            odd = int(element.group(1))
        number = _STATIC.match(line)
        if number and re.fullmatch(r"-?\d+", number.group(1)):
            # The Even button is the next element after this number's Odd one.
            marks.append(_click(odd if int(number.group(1)) % 2 else odd + 1))
    yield from marks
    yield _submit(s)


def _text_transform(s: _Episode) -> Plan:
    """Type the skewed letters shown between the utterance and the field."""
    letters = [t for t in s.statics() if t != s.goal]
    yield from _answer_box(s, "".join(letters))


def _scroll_text(s: _Episode) -> Plan:
    """Type the last word of the text area (privileged: its full text, as if scrolled)."""
    text = s.js("document.querySelector('textarea').value")
    yield _fill(s.elements("textbox")[-1][0], re.sub(r"[^\w]", "", str(text).split()[-1]))
    yield _submit(s)


def _guess_number(s: _Episode) -> Plan:
    """Binary search on 0..9 with the page's "higher"/"lower" feedback."""
    low, high = 0, 9
    while low <= high:
        guess = (low + high) // 2
        yield _fill(s.elements("spinbutton")[0][0], str(guess))
        yield _submit(s)
        feedback = " ".join(s.statics()).lower()
        if "higher" in feedback:
            low = guess + 1
        elif "lower" in feedback:
            high = guess - 1
        else:
            return


def _keys(text: str) -> Plan:
    for key in text:
        yield f"press({json.dumps(key)})"


def _enter_date(s: _Episode) -> Plan:
    """Type mm, dd and yyyy into the date field (it moves on by itself), then Submit."""
    match = re.search(r"(\d\d)/(\d\d)/(\d{4})", s.goal)
    if match is None:
        raise Lost(s.goal)
    yield _click(s.find("spinbutton", "Month"))
    yield from _keys("".join(match.groups()))
    yield _submit(s)


def _enter_time(s: _Episode) -> Plan:
    """Type hours, minutes and AM/PM into the time field, then Submit."""
    match = re.search(r"(\d+):(\d\d) ([AP])M", s.goal)
    if match is None:
        raise Lost(s.goal)
    hours, minutes, half = match.groups()
    yield _click(s.find("spinbutton", "Hours"))
    yield from _keys(f"{int(hours):02d}{minutes}{half}")
    yield _submit(s)


def _navigate_tree(s: _Episode) -> Plan:
    """Open the folders down to the asked name, then click it.

    Privileged: the tree's names are texts without ids, so the closed folder above the
    name, and the name itself, are found in the page.
    """
    target = (
        "[...document.querySelectorAll('#tree span')]"
        f".find(e => e.textContent === {json.dumps(s.quoted()[0])})"
    )
    for _ in range(4):
        closed = (
            f"(() => {{ const t = {target}; let folder = null;"
            " for (let p = t.parentElement; p && p.id !== 'tree'; p = p.parentElement)"
            "   if (p.tagName === 'UL' && getComputedStyle(p).display === 'none')"
            "     folder = p.parentElement.querySelector(':scope > span');"
            " return folder; })()"
        )
        if not s.js(f"!!{closed}"):
            break
        yield s.click_element(closed)
    yield s.click_element(target)


def _use_autocomplete(s: _Episode) -> Plan:
    """Type the start, open the suggestions (ArrowDown) and pick one with the asked end."""
    parts = s.quoted()
    start, end = parts[0], parts[1] if len(parts) > 1 else ""
    yield _fill(s.find("textbox", "Tags:"), start)
    yield 'press("ArrowDown")'
    # A suggestion is a nameless listitem followed by its text.
    item, pick = None, None
    for line in s.text.splitlines():
        element = _ELEMENT.match(line)
        if element:
            item = int(element.group(1)) if element.group(2) == "listitem" else item
        text = _STATIC.match(line)
        if text and item is not None and text.group(1).endswith(end):
            pick = item
            break
    if pick is None:
        raise Lost(f"no suggestion ending in {end!r}")
    yield _click(pick)
    yield _submit(s)


def _find_greatest(s: _Episode) -> Plan:
    """Turn the card with the greatest number face up, then Submit.

    Privileged: the cards are ``<div>``s without ids, so the card is found in the page
    (by the number it holds) and clicked by its position.
    """
    numbers = [int(t) for t in s.statics() if re.fullmatch(r"\d+", t)]
    if not numbers:
        raise Lost("no cards")
    yield s.click_text(str(max(numbers)), ".card")
    yield _click(s.find("button", "Submit"))


SOLVERS: dict[str, Callable[[_Episode], Plan]] = {
    "click-test": _click_test,
    "click-test-2": _click_overlapping_button,
    "click-test-transfer": _click_overlapping_button,
    "click-button": _click_button_named,
    "click-button-sequence": _click_button_sequence,
    "click-link": _click_link,
    "click-dialog": _click_dialog,
    "click-dialog-2": _click_dialog_2,
    "click-checkboxes": _click_checkboxes,
    "click-checkboxes-large": _click_checkboxes,
    "click-checkboxes-transfer": _click_checkboxes,
    "click-checkboxes-soft": _click_checkboxes_soft,
    "click-option": _click_option,
    "click-tab": _click_tab,
    "click-tab-2": _click_tab_2,
    "click-tab-2-easy": _click_tab_2,
    "click-tab-2-medium": _click_tab_2,
    "click-tab-2-hard": _click_tab_2,
    "click-collapsible": _click_collapsible,
    "click-collapsible-nodelay": _click_collapsible,
    "click-collapsible-2": _click_collapsible_2,
    "click-collapsible-2-nodelay": _click_collapsible_2,
    "click-widget": _click_widget,
    "enter-text": _enter_text,
    "enter-text-2": _enter_text,
    "enter-text-dynamic": _enter_text,
    "enter-password": _enter_password,
    "login-user": _login_user,
    "focus-text": _focus_text,
    "focus-text-2": _focus_text,
    "choose-list": _choose_list,
    "simple-arithmetic": _simple_arithmetic,
    "simple-algebra": _simple_algebra,
    "find-word": _find_word,
    "read-table": _read_table,
    "read-table-2": _read_table,
    "odd-or-even": _odd_or_even,
    "unicode-test": _click_button_named,
    "text-transform": _text_transform,
    "scroll-text": _scroll_text,
    "guess-number": _guess_number,
    "enter-date": _enter_date,
    "enter-time": _enter_time,
    "navigate-tree": _navigate_tree,
    "use-autocomplete": _use_autocomplete,
    "use-autocomplete-nodelay": _use_autocomplete,
    "find-greatest": _find_greatest,
}
"""The solver of each task the oracle knows."""


class MiniWoBOracle(BaseAgent):
    """Plays the current MiniWoB task with its scripted solver (privileged: ``env.task``).

    A task without a solver, or a solver that cannot find what it needs, gets ``noop()``.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/miniwob.click-test-v0")  # doctest: +SKIP
        >>> oracle = MiniWoBOracle(env)  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)  # doctest: +SKIP
        >>> oracle.act(obs, info)  # doctest: +SKIP
        'click(1)'

    """

    def __init__(self, env: gym.Env) -> None:
        self._env = unwrap(env, MiniWoBEnv, "MiniWoBOracle")
        self._episode: _Episode | None = None
        self._plan: Plan | None = None

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode's plan (also done on each new episode)."""
        self._episode = self._plan = None

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next action of the task's plan, or ``noop()`` when there is none."""
        goal = str(info.get("instruction", self._env.instruction))
        if self._episode is None or info.get("turn") == 0 or goal != self._episode.goal:
            solver = SOLVERS.get(self._env.task)
            self._episode = _Episode(self._env, goal)
            self._plan = solver(self._episode) if solver is not None else None
        self._episode.text = obs["text"] if isinstance(obs, dict) else str(obs)
        if self._plan is None:
            return "noop()"
        try:
            return next(self._plan)
        except Exception:  # the plan is over, or the page is not as the solver expects
            self._plan = None
            return "noop()"

"""Oversized literals in an action never raise out of ``step()``: they are invalid actions.

Python refuses ``int()`` of a string over 4,300 digits (``sys.get_int_max_str_digits``),
``int("²")`` although ``"²".isdigit()``, and ``ast``/``json`` give up on deep brackets;
a parser that converts what it matched without a bound lets a policy crash the rollout
with ``column 999...9`` (ConnectFour-v0 raised ``ValueError`` on 4,401 digits). Every
registered id that runs on the base install without a system package (text, classic,
games, ScreenGraph and the adapters whose libraries are installed) is stepped here
directly, one env per id, with a dozen oversized actions plus its own legal actions with
their numbers blown up. The ids that need Chromium, Xvfb or bubblewrap (web, MiniWoB,
the desktop tasks, SWE) are covered through the parser their env calls first
(``web.actions.parse_action``, ``gui.actions.parse_action``, ``parse_call`` over the SWE
tools), and the number readers whose path depends on the episode's data (TryAgainQA's
answer check, SearchQA's document ids, CarDealer's prices, the Reasoning Gym scorer's
guard), MemoryTools' ids, and the web sites' and settings app's form fields are given
the literals directly.
"""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import pytest

from turngym.calls import parse_call
from turngym.core import Invalid
from turngym.envs.gui import actions as gui_actions
from turngym.envs.swe.env import SWEEnv
from turngym.envs.swe.tools import TOOLS
from turngym.envs.web import actions as web_actions
from turngym.registry import ENVS, EnvEntry

HUGE = "9" * 5000
"""More digits than ``int()`` converts (4,300)."""
PAST_FLOAT = "9" * 400
"""Digits past a float's range: ``float()`` gives inf, and ``round(inf)`` raises."""

OVERSIZED: tuple[str, ...] = (
    HUGE,
    "-" + HUGE,
    "1e999999",
    "-1e-999999",
    HUGE + ".5",
    "0." + HUGE,
    "[" * 5000,
    "x" * 1_000_000,
    f"${PAST_FLOAT}.5",
    f"click({HUGE})",
    f'click("{HUGE}")',
    "click(" + "[" * 5000 + ")",
    "a" + HUGE,
    "\u0663" * 5000,  # Arabic-Indic digits: int() reads them
    "\u00b2",  # superscript two: isdigit() but not int()
    "column \u00b2",
)
"""The literals every env gets; each must be an invalid action or a normal step."""

# Free-form envs take their numbers inside their own syntax; these put an odd one ({n})
# there: past int()'s limit, past a float's range (1e308) but not int()'s, and "²".
OWN_SYNTAX: dict[str, tuple[str, ...]] = {
    "ToolUse-v0": (
        "get_order(order_id={n})",
        'get_order(order_id="#W{n}")',
        '{{"name": "get_order", "arguments": {{"order_id": {n}}}}}',
    ),
    "Countdown-v0": ("{n} + 1", "({n}.5 - 1) * 2", "1e999999 - 1", "9 ** 9 ** 9 ** 9"),
    "TryAgainQA-v0": ("The answer is {n}.", "-{n}.{n}"),
    "SearchQA-v0": ("open[d{n}]", "open[{n}]", "open[d\u00b2]", "answer[{n}]"),
    "CarDealer-v0": (
        "offer the Civic for ${n}",
        "offer the Civic for ${n}k",
        "offer the Civic for $1" + ",999" * 200,
        "My budget is {n} thousand",
    ),
    "TextCraft-v0": ("get {n} stick", "craft {n} paper using {n} sugar cane"),
    "TwentyQuestions-v0": ("Is it bigger than {n} meters?",),
    "GuessMyCity-v0": (
        "Does it have more than {n} million people?",
        "Is its population over {n}.5?",
        "Is it north of 1e999999 degrees?",
    ),
    "SimpleNegotiation-v0": ("[Offer: {n} Wood -> {n} Wheat]",),
    "LiarsDice-v0": ("bid {n} {n}", "bid {n} fives"),
    "MiniHanabi-v0": ("play {n}", "hint player {n} red", "hint {n} 1"),
    "ConnectFour-v0": ("column {n}", "drop in column {n}", "c{n}"),
}


def _own_syntax(name: str) -> list[str]:
    numbers = (HUGE, PAST_FLOAT, "\u00b2")
    return [t.format(n=n) for t in OWN_SYNTAX.get(name, ()) for n in numbers]


_NUMBER = re.compile(r"\d+")


def _blown_up(legal: list[str]) -> list[str]:
    """The first legal actions that hold a number, with the number made huge or odd."""
    numbered = [a for a in legal if _NUMBER.search(a)][:3]
    out = []
    for action in numbered:
        out.append(_NUMBER.sub(HUGE, action))
        out.append(_NUMBER.sub(PAST_FLOAT, action))
        out.append(_NUMBER.sub("-" + HUGE, action, count=1))
        out.append(_NUMBER.sub("\u00b2", action, count=1))
    return out


_LONG_EPISODES = {"max_invalid_actions": None, "attempts": 1000, "num_games": 1}


def _cheap(entry: EnvEntry) -> bool:
    """Runs here without a browser, an X server or a sandbox."""
    return not entry.system and entry.unavailable() is None


CHEAP = [e for e in ENVS if _cheap(e)]
EXPENSIVE_GROUPS = sorted({e.group for e in ENVS if not _cheap(e)})


def _step_all(env: gym.Env, actions: list[str], where: str) -> None:
    """Step every action (resetting when an episode ends); none may raise."""
    for action in actions:
        problem = None
        try:
            _, _, terminated, truncated, info = env.step(action)
        except Exception as error:  # the contract: a bad action never raises
            problem = f"{where}: step({action[:40]!r}...) raised {error!r}"
        if problem:
            pytest.fail(problem, pytrace=False)
        assert isinstance(info.get("invalid_action"), bool), f"{where}: no invalid_action"
        if terminated or truncated:
            env.reset(seed=0)


@pytest.mark.parametrize("entry", CHEAP, ids=[e.name for e in CHEAP])
def test_oversized_literals_are_invalid_actions(entry: EnvEntry) -> None:
    # Episodes that do not end on a string of invalid actions or answers need no reset
    # (an adapter may take seconds to make a task); TextWorld plays the one game its
    # conformance test makes too.
    names = entry.kwarg_names()
    kwargs: dict[str, Any] = {k: v for k, v in _LONG_EPISODES.items() if k in names}
    env = gym.make(entry.id, max_episode_steps=10_000, **kwargs)
    try:
        _, info = env.reset(seed=0)
        actions = list(OVERSIZED) + _own_syntax(entry.name)
        actions += _blown_up(list(info.get("legal_actions") or []))
        _step_all(env, actions, entry.id)
    finally:
        env.close()


def test_every_own_syntax_row_names_a_cheap_id() -> None:
    names = {e.name for e in CHEAP}
    assert set(OWN_SYNTAX) <= names, set(OWN_SYNTAX) - names


def test_the_expensive_families_are_the_ones_covered_by_their_parsers() -> None:
    # A new family that needs a system package must get its parser covered below.
    assert EXPENSIVE_GROUPS == ["gui", "miniwob", "swe", "web"]


SWE_MAX = SWEEnv.max_action_length

CALLS = (
    f"click({HUGE})",
    f"click(-{HUGE})",
    f'click("{HUGE}")',
    'click("\u00b2")',
    'click("[\u00b2]")',
    "click(1e999999)",
    f"click({HUGE}.5, 3)",
    f"scroll({HUGE}, 1)",
    "scroll(1e999999, -1e999999)",
    f"mouse_click({HUGE}, 0)",
    f'view("a.py", {HUGE}, {HUGE})',
    f'insert("a.py", {HUGE}, "x")',
    'view("a.py", 1e999999)',
    "click(" + "[" * 5000 + ")",
    "click(" + "(" * 5000 + ")",
    "click(" + "-" * 5000 + "1)",
    "click(" + "not " * 3000 + "1)",
    "click(" + "~" * 5000 + "1)",
    "[" * 5000,
    '{"name": "click", "arguments": {"x": ' + HUGE + ', "y": 1}}',
    '{"name": "click", "arguments": "{\\"x\\": ' + HUGE + '}"}',
    '{"name": "click", "arguments": ' + "[" * 5000 + "}",
    "x" * 1_000_000,
    *OVERSIZED,
)


@pytest.mark.parametrize(
    "parse",
    [
        web_actions.parse_action,
        gui_actions.parse_action,
        lambda text: parse_call(text, TOOLS, max_chars=SWE_MAX, json_calls=True),
    ],
    ids=["web-and-miniwob", "gui", "swe"],
)
def test_call_parsers_refuse_oversized_literals(parse: Any) -> None:
    for text in CALLS:
        problem = None
        try:
            parsed = parse(text)
        except Exception as error:
            problem = f"parsing {text[:40]!r}... raised {error!r}"
        if problem:
            pytest.fail(problem, pytrace=False)
        assert isinstance(parsed, Invalid), f"{text[:40]!r}... was accepted as {parsed!r}"


def test_answer_checks_read_huge_numbers_without_raising() -> None:
    from turngym.envs.text.search_corpus import load_corpus
    from turngym.envs.text.try_again_qa import check_answer

    for text in (HUGE, f"-{HUGE}.{HUGE}", f"1,{'999,' * 2000}999", "0." + HUGE, "\u0663" * 5000):
        assert not check_answer(text, "29", "number")
    corpus = load_corpus()
    for ref in (f"d{HUGE}", HUGE, "d\u00b2", "\u00b2", "\u0663" * 5000):
        assert corpus.lookup(ref) is None


def test_scorer_guard_and_price_reader_bound_their_numbers() -> None:
    from turngym.envs.adapters.answer_guard import admissible
    from turngym.envs.text.car_dealer import parse_price

    # sympy kept 1e-999999 exact and took 19 s to score it (no exception: a stall)
    assert not admissible("polynomial_multiplication", "-1e-999999")
    assert admissible("polynomial_multiplication", "1e-300*x**2")
    for text in (f"${PAST_FLOAT}", f"${PAST_FLOAT}k", "$1" + ",999" * 200, f"${HUGE}"):
        assert parse_price(text) is None


def test_memory_tool_ids_past_ints_limit_are_call_errors() -> None:
    from turngym.wrappers.memory import parse_tool_call

    for text in (f"memory_update: {HUGE}: new text", f"memory_delete: #{HUGE}"):
        call = parse_tool_call(text)
        assert call is not None and call.error, call
    for text in OVERSIZED:
        parse_tool_call(text)  # an env action (None) or a call; never an exception


def test_site_forms_read_oversized_numbers() -> None:
    # Reached by goto(...) or fill(...); a raise there is a 500 page for the agent.
    from werkzeug.test import EnvironBuilder
    from werkzeug.wrappers import Request

    from turngym.envs.gui.apps.settings_file import font_size_error
    from turngym.envs.web.sites.admin import app as admin
    from turngym.envs.web.sites.forum import app as forum

    for page in (HUGE, PAST_FLOAT, "\u00b2", "\u0663" * 5000):
        request = Request(EnvironBuilder(query_string={"page": page}).get_environ())
        assert admin._page_number(request) == forum._page_number(request) == 1
    for amount in (HUGE, PAST_FLOAT, PAST_FLOAT + ".50", "\u00b2"):
        assert admin._cents(amount) is None
    for size in (HUGE, "\u00b2", "1" * 400):
        assert font_size_error(size) is not None

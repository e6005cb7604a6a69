"""A collapsed policy must not stall rollouts: every parser of model output is linear.

A policy that degenerates into repeating ``\\boxed{``, ``<answer>`` or ``<state>`` with
no closing brace or tag writes 100,000 characters of it in one reply. Parsers that
re-scan the rest of the text from every opener take quadratic time on it (44 s, 9 s
and 15 s before the fix). Each test gives its parser such a reply; the pytest timeout
(a few seconds, far above what a linear scan needs even on a loaded machine) is the
guard, not an assertion on elapsed time. What the parser returns is checked too, and
tests/wrappers check the same parsers on ordinary replies.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import TypeVar

import chess
import pytest

import turngym
from turngym.envs.text.chess_game import parse_move
from turngym.wrappers.internal_state import InternalState, InternalStateGame
from turngym.wrappers.markovian_chunks import MarkovianChunks
from turngym.wrappers.memory import MemoryTools, parse_tool_call
from turngym.wrappers.parse_action import ActionParser, ParseAction

SIZE = 100_000
T = TypeVar("T")


def timed(call: Callable[[], T]) -> T:
    """``call()``, with pytest-timeout's interruption reported as a plain failure.

    The timeout can interrupt a loop at an instruction with no line number, and pytest
    then crashes while drawing the traceback; a failure without one says enough.
    """
    try:
        return call()
    except pytest.fail.Exception as stop:
        message = f"{stop}: the parser is not linear in its input"
    pytest.fail(message, pytrace=False)


def repeated(piece: str, tail: str = "") -> str:
    """``piece`` over and over to ``SIZE`` characters, then ``tail``."""
    return (piece * (SIZE // len(piece) + 1))[:SIZE] + tail


@pytest.mark.timeout(5)
@pytest.mark.parametrize(
    ("piece", "tail", "found"),
    [
        ("\\boxed{", "", None),
        ("\\boxed{", "\\boxed{7}", "7"),
        ("\\boxed{{", "", None),
        ("\\boxed{{}", "", None),
        ("}\\boxed{", "", ""),  # every box but the last closes at once: empty
    ],
)
def test_boxed_on_unclosed_boxes(piece, tail, found):
    parsed = timed(lambda: ActionParser(boxed=True).parse(repeated(piece, tail)))
    assert parsed == found


@pytest.mark.timeout(5)
@pytest.mark.parametrize(
    ("piece", "tail", "found"),
    [
        ("<answer>", "", None),
        ("<ANSWER>", "", None),
        ("<answer>", "</answer>", "<answer>" * (SIZE // 8 - 1)),
        ("<answer>x</answer", "", None),
        ("<answer>a</answer>", "", "a"),
    ],
)
def test_answer_tag_on_unclosed_tags(piece, tail, found):
    parsed = timed(lambda: ActionParser().parse(repeated(piece, tail)))
    assert parsed == found


@pytest.mark.timeout(5)
def test_parse_action_wrapper_steps_through_a_flood_of_tags():
    env = ParseAction(turngym.make("turngym/FrozenLake-v0"))
    env.reset(seed=0)
    *_, info = timed(lambda: env.step(repeated("<answer>")))
    assert info["format_error"] and info["invalid_action"]


@pytest.mark.timeout(5)
@pytest.mark.parametrize("piece", ["<state>", "<state>x</state", "<STATE><state>"])
def test_internal_state_on_unclosed_states(piece):
    env = InternalState(turngym.make("turngym/FrozenLake-v0"), max_state_chars=50)
    env.reset(seed=0)
    *_, info = timed(lambda: env.step(repeated(piece)))
    action, state = timed(lambda: env._split(repeated(piece, "</state> down")))
    assert not info["state_missing"] and info["state_truncated"]
    assert action == "down" and state is not None and len(state) > SIZE // 2


@pytest.mark.timeout(5)
def test_internal_state_game_on_unclosed_states():
    game = InternalStateGame(turngym.make_game("turngym/TicTacToe-v0"))
    game.reset(seed=0)
    timed(lambda: game.step(repeated("<state>")))
    assert game.infos["player_0"]["invalid_action"]  # no move outside the state


@pytest.mark.timeout(5)
def test_markovian_chunks_on_unclosed_answers():
    env = MarkovianChunks(turngym.make("turngym/Countdown-v0"), chunk_tokens=SIZE, carry_tokens=8)
    env.reset(seed=0)
    *_, info = timed(lambda: env.step(repeated("<answer> ")))
    assert info["context_event"] == "chunk"


@pytest.mark.timeout(5)
def test_memory_tool_call_nested_json_is_not_a_crash():
    # 100k of '{"tool":' nests objects deeper than json's recursion limit.
    env = MemoryTools(turngym.make("turngym/FrozenLake-v0"))
    env.reset(seed=0)
    assert timed(lambda: parse_tool_call(repeated('{"tool":'))) is None
    *_, info = timed(lambda: env.step(repeated('{"tool":')))
    assert info["invalid_action"] and not info["wrapper_turn"]


@pytest.mark.timeout(5)
@pytest.mark.parametrize("text", [repeated("+", "x"), repeated("!", "e4"), "e4" + repeated("+")])
def test_chess_moves_with_a_flood_of_annotation_marks(text):
    result = timed(lambda: parse_move(chess.Board(), text))
    assert (result == chess.Move.from_uci("e2e4")) == text.startswith("e4")


# -- the same answers as the old regexes on ordinary (short) replies --------------------

PIECES = ["<answer>", "</answer>", "<ANSWER>", "</Answer>", "<state>", "</state>", "<STATE>"]
PIECES += ["\\boxed{", "{", "}", "a", " ", "\n", "x y", "<", ">", "/", "answer", "state"]


def old_tag(text: str, tag: str) -> str | None:
    found = re.findall(rf"<{tag}>(.*?)</{tag}>", text, re.S | re.I)
    return found[-1].strip() if found else None


def old_split(text: str) -> tuple[str, str | None]:
    block = re.compile(r"<state>(.*?)</state>", re.S | re.I)
    blocks, rest = block.findall(text), block.sub(" ", text)
    unclosed = re.search(r"<state>(.*)$", rest, re.S | re.I)
    if unclosed is not None:
        blocks.append(unclosed.group(1))
        rest = rest[: unclosed.start()]
    return rest.strip(), (blocks[-1].strip() if blocks else None)


def old_boxed(text: str) -> str | None:
    start = text.rfind("\\boxed{")
    while start != -1:
        depth, k = 0, start + len("\\boxed")
        for j in range(k, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                return text[k + 1 : j].strip()
        start = text.rfind("\\boxed{", 0, start)
    return None


def test_parsers_answer_as_the_old_regexes_did():
    rng = random.Random(26)
    answer, boxed = ActionParser(), ActionParser(boxed=True)
    state = InternalState(turngym.make("turngym/FrozenLake-v0"))
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        assert answer.parse(text) == old_tag(text, "answer"), text
        assert boxed.parse(text) == old_boxed(text), text
        assert state._split(text) == old_split(text), text

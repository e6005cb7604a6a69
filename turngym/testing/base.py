"""What the checks of ``turngym.testing`` share.

Their reports (``CheckReport``), fresh envs and games from what a caller passes
(``env_maker``, ``game_maker``), the fuzz corpus of bad actions (``fuzz_actions``,
``oversized_actions``, ``near_legal``) and the rule that picks actions while a check
plays (``mixed_policy``).
"""

from __future__ import annotations

import re
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from turngym.core import normalize_action

__all__ = [
    "BIG",
    "FREE_TEXT",
    "HUGE",
    "OVERSIZED",
    "CheckReport",
    "CheckResult",
    "ConformanceError",
    "EnvSource",
    "GameSource",
    "StepProblem",
    "case_clashes",
    "env_maker",
    "first_difference",
    "fuzz_actions",
    "game_maker",
    "mixed_policy",
    "near_legal",
    "oversized_actions",
    "random_unicode",
    "run_check",
]

EnvSource = str | gym.Env | Callable[[], gym.Env]

HUGE = 100_000


class ConformanceError(AssertionError):
    """An env failed one or more conformance checks; the message holds the table."""


@dataclass
class CheckResult:
    """The outcome of one named check."""

    name: str
    passed: bool
    detail: str = ""
    seconds: float = 0.0
    skipped: bool = False


@dataclass
class CheckReport:
    """All checks run on one env."""

    env_id: str
    results: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when no check failed (skipped checks do not fail)."""
        return all(r.passed or r.skipped for r in self.results)

    def table(self) -> str:
        """A plain-text pass/fail table."""
        rows = [("check", "result", "time", "detail")]
        for r in self.results:
            status = "skip" if r.skipped else ("PASS" if r.passed else "FAIL")
            rows.append((r.name, status, f"{r.seconds:.2f}s", r.detail))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines = [f"conformance of {self.env_id}"]
        for row in rows:
            lines.append(
                "  ".join(c.ljust(w) for c, w in zip(row[:3], widths, strict=True)) + "  " + row[3]
            )
        return "\n".join(lines)


def env_maker(source: EnvSource, make_kwargs: dict[str, Any]) -> tuple[Callable[..., gym.Env], str]:
    """A maker ``make(**extra)`` of fresh envs, and the name to report."""
    if isinstance(source, str):
        import turngym  # noqa: F401  (registers the ids)

        return (lambda **extra: gym.make(source, **make_kwargs, **extra)), source
    if isinstance(source, gym.Env):
        spec = source.spec
        if spec is None:
            raise TypeError(
                "check_text_env got an env instance without a spec, so it cannot build fresh "
                "copies for the reset-safety check; pass the class or a zero-argument factory"
            )
        return (lambda **extra: gym.make(spec, **make_kwargs, **extra)), spec.id
    if callable(source):
        name = getattr(source, "__name__", type(source).__name__)
        return (lambda **extra: source(**make_kwargs, **extra)), name
    raise TypeError(f"check_text_env takes an env id, an env or a factory, got {source!r}")


def random_unicode(rng: np.random.Generator, n: int) -> str:
    """``n`` random characters from many Unicode blocks (surrogates and controls too)."""
    # Mix of ASCII, Latin-1, CJK, emoji, control characters and lone surrogates.
    blocks = [
        (0x20, 0x7E),
        (0x00, 0x1F),
        (0xA0, 0x24F),
        (0x4E00, 0x4FFF),
        (0x1F300, 0x1F64F),
        (0xD800, 0xDFFF),
        (0x0590, 0x06FF),
    ]
    out = []
    for _ in range(n):
        lo, hi = blocks[int(rng.integers(len(blocks)))]
        out.append(chr(int(rng.integers(lo, hi + 1))))
    return "".join(out)


def case_clashes(names: Iterable[str]) -> frozenset[str]:
    """The normalized spellings shared by two or more of ``names`` (Oware's ``a`` and ``A``).

    >>> sorted(case_clashes(["A", "a", "B", "pass", "pass"]))
    ['a']
    """
    first: dict[str, str] = {}
    clashes = set()
    for name in names:
        key = normalize_action(name)
        if first.setdefault(key, name) != name:
            clashes.add(key)
    return frozenset(clashes)


def near_legal(
    rng: np.random.Generator, action: str, clashes: frozenset[str] = frozenset()
) -> tuple[str, bool]:
    """A variant of a legal action; True when the contract says it must be accepted.

    A change of case must be accepted unless case tells two actions apart: ``clashes``
    (from ``case_clashes``) holds the spellings where it does.
    """
    kind = int(rng.integers(8))
    if kind in (0, 2):
        variant = action.upper() if kind == 0 else action.title()
        return variant, variant == action or normalize_action(variant) not in clashes
    if kind == 1:
        return f"  {action}\n", True
    if kind == 3 and len(action) > 1:
        i = int(rng.integers(len(action)))
        return action[:i] + action[i + 1 :], False
    if kind == 4:
        return action + action[-1:], False
    if kind == 5:
        return f"action: {action}", False
    if kind == 6:
        return f"{action}!?", False
    return action[::-1], False


BIG = "9" * 5000  # past int()'s 4,300 digits

OVERSIZED = (
    BIG,
    "-" + BIG,
    BIG + ".5",
    "1e999999",
    "-1e-999999",
    "$" + "9" * 400 + ".5",  # past a float's range: round(float(...)) raises
    "[" * 5000,
    f"click({BIG})",
    "a" + BIG,
    "\u00b2",  # isdigit() but not int()
    "\u0663" * 500,  # Arabic-Indic digits, which int() reads
)

DIGITS = re.compile(r"\d+")


def oversized_actions(legal: list[str] | None) -> list[str]:
    """Literals no parser may convert unbounded, and legal actions with huge numbers."""
    numbered = [a for a in legal or [] if DIGITS.search(a)][:2]
    return [*OVERSIZED, *(DIGITS.sub(BIG, a) for a in numbered)]


def fuzz_actions(rng: np.random.Generator, legal: list[str] | None) -> Iterator[tuple[str, Any]]:
    """Yield (category, action) forever, rotating through the kinds of bad input."""
    while True:
        kind = int(rng.integers(10))
        if kind <= 2 and legal:
            yield "legal", legal[int(rng.integers(len(legal)))]
        elif kind <= 4 and legal:
            yield "near", legal[int(rng.integers(len(legal)))]
        elif kind == 5:
            yield "empty", ["", " ", "\n\t", "\x00"][int(rng.integers(4))]
        elif kind == 6 and rng.random() < 0.1:
            yield "huge", random_unicode(rng, 8) * (HUGE // 8)
        elif kind == 7 and rng.random() < 0.2:
            yield "nonstr", [None, 42, 3.5, b"bytes", ["up"], {"a": 1}][int(rng.integers(6))]
        else:
            yield "random", random_unicode(rng, int(rng.integers(1, 40)))


class StepProblem(Exception):
    """What a check found wrong in one step: its message is the check's detail."""


def mixed_policy(rng: np.random.Generator, free_text: str | None = None) -> Callable[[dict], Any]:
    """A policy of mostly legal actions, else fuzz.

    With ``free_text``, half the turns that list no legal actions (free-form games) send
    it, so such games see well-formed text too.
    """
    fuzz = fuzz_actions(rng, None)

    def choose(info: dict) -> Any:
        legal = info.get("legal_actions")
        if legal and rng.random() < 0.85:
            return legal[int(rng.integers(len(legal)))]
        if free_text is not None and not legal and rng.random() < 0.5:
            return free_text
        return next(fuzz)[1]

    return choose


def first_difference(a: list[str], b: list[str]) -> str:
    """Where two recorded episodes first differ, in one line."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"step {i}: {x[:120]} != {y[:120]}"
    return f"lengths differ: {len(a)} vs {len(b)}"


def run_check(name: str, fn: Callable[[], Any]) -> CheckResult:
    """Run one check: its ``CheckResult``, with the exception's reason when it raised."""
    start = time.perf_counter()
    try:
        out = fn()
    except StepProblem as problem:
        return CheckResult(name, False, str(problem), time.perf_counter() - start)
    except Exception as error:
        tb = traceback.format_exc(limit=-4)
        return CheckResult(name, False, f"{error!r}\n{tb}", time.perf_counter() - start)
    if isinstance(out, CheckResult):
        out.seconds = time.perf_counter() - start
        return out
    return CheckResult(name, True, str(out), time.perf_counter() - start)


GameSource = str | Callable[..., Any]

FREE_TEXT = "I propose: hello"  # free-form games: something that reads like text


def game_maker(source: GameSource, make_kwargs: dict[str, Any]) -> tuple[Callable[..., Any], str]:
    """A maker ``make(**extra)`` of fresh games, and the name to report."""
    if isinstance(source, str):
        import turngym

        return (lambda **extra: turngym.make_game(source, **make_kwargs, **extra)), source
    if callable(source):
        name = getattr(source, "__name__", type(source).__name__)
        return (lambda **extra: source(**make_kwargs, **extra)), name
    raise TypeError(f"check_game takes a game id or a factory, got {source!r}")

"""Degenerate-answer probe for answer-graded envs: ``check_degenerate_answers``.

An RL policy optimises whatever pays. When a reward grades a submitted answer, an
answer that reads no question (``nan``, ``0``, nothing, the question copied back, a
prefix of the right answer) must not win more often than a random agent does, or the
policy learns that answer instead of the task (ARCHITECTURE.md section 10)::

    from turngym.testing import check_degenerate_answers
    check_degenerate_answers("turngym/reasoning_gym.coin_flip-v0")   # raises on failure
    report = check_degenerate_answers("turngym/TryAgainQA-v0", seeds=50,
                                      raise_on_failure=False)
    print(report.table())

Each degenerate answer is one policy: it is sent, through the env's answer form (the
registry's ``answer_action``: ``answer[{}]``, ``answer({!r})``...), on every turn of an
episode (a multi-attempt env hears it on every attempt), over ``seeds`` episodes; the
random agent (``turngym.agents.RandomAgent``) plays the same seeds. The corpus: empty
and blank text, ``nan``, ``inf``, ``-0``, ``0``, ``1``, ``true``, ``none``, huge numbers,
repeated tokens, format tags without content (``<answer></answer>``), and per episode
the question, its last line and what follows its last colon (the question's input),
the legal-action list, and, when the right answer is known (``KNOWN_ANSWERS``), its
first and last character and halves, the previous seed's answer (a scorer that checks
for *a* solution, not this question's, pays it), and the answer right most often over
the seeds (sent on all of them: answers that bunch up pay a constant guess).

When is a success rate "clearly" above the random agent's? Each is a binomial
proportion over the same seeds; a degenerate answer fails when the lower end of its
Wilson score interval lies above the upper end of the random agent's, both at ``z``
standard deviations (default 3: a one-sided 0.13% chance each of being that far off,
so a run of ~30 answers over ~100 ids stays clear of false alarms). With 20 seeds and
a random agent that never wins, an answer fails from 11 wins of 20; with 100 seeds,
from 17 of 100. More seeds find rarer wins.

The probe looks for reward holes: answers that win where they are not the answer. A
task whose right answers bunch up (``False`` in half of ``course_schedule``'s questions,
``1`` in 40% of ``letter_counting``'s) pays a constant guess of that answer, which no
scorer can take away; so ``chance``, the success rate a constant right answer is
allowed, defaults to the share of the most common known answer over the seeds, and a
degenerate answer fails only when it also clearly beats that. The report keeps the
"most common answer" row, so such tasks stay visible (``benchmarks/README.md`` lists
them); ``chance=0.0`` makes the check strict.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from turngym.testing.base import ConformanceError, EnvSource, env_maker

__all__ = [
    "DEGENERATE_ANSWERS",
    "KNOWN_ANSWERS",
    "SCORED_DIRECTLY",
    "DegenerateAnswerError",
    "DegenerateReport",
    "DegenerateResult",
    "answer_graded_ids",
    "check_degenerate_answers",
    "wilson_bounds",
]

DEGENERATE_ANSWERS: tuple[tuple[str, str], ...] = (
    ("empty", ""),
    ("blank", "  \n\t"),
    ("nan", "nan"),
    ("NaN", "NaN"),
    ("inf", "inf"),
    ("-inf", "-inf"),
    ("-0", "-0"),
    ("0", "0"),
    ("1", "1"),
    ("-1", "-1"),
    ("0.5", "0.5"),
    ("true", "true"),
    ("false", "false"),
    ("none", "none"),
    ("null", "null"),
    ("huge int", "9" * 40),
    ("huge float", "1e308"),
    ("-huge float", "-1e308"),
    ("repeated a", " ".join(["a"] * 50)),
    ("repeated 0", " ".join(["0"] * 50)),
    ("repeated yes no", " ".join(["yes", "no"] * 25)),
    ("<answer></answer>", "<answer></answer>"),
    ("<answer> </answer>", "<answer> </answer>"),
    ("\\boxed{}", "\\boxed{}"),
    ("[]", "[]"),
    ("{}", "{}"),
    ('""', '""'),
)
"""The answers that read nothing: ``(label, text)``, the same on every question."""

Known = str | Sequence[str] | None
"""A known answer: the right answer, or it and its other accepted forms, or None."""

KNOWN_ANSWERS: dict[str, Callable[[Any], Known]] = {
    "ReasoningGymEnv": lambda env: (
        None if env.entry.get("answer") is None else str(env.entry["answer"])
    ),
    "TryAgainQAEnv": lambda env: str(env.question.answer),
    "SearchQAEnv": lambda env: (
        None if env.question is None else (env.question.answer, *env.question.aliases)
    ),
    "GuessMyCityEnv": lambda env: str(env.city.name),
    "TwentyQuestionsEnv": lambda env: str(env.secret) or None,
}
"""The right answer of the episode (and its other accepted forms), by the unwrapped env's
class name (privileged): its pieces join the corpus, and the answer most often right
over the seeds is played on all of them; classes not listed get neither."""


def _reasoning_gym_verdict(env: Any, answer: str) -> tuple[bool, float]:
    text = answer.strip()
    if not text or len(text) > env.max_answer_chars:
        return False, 0.0  # step() refuses it as invalid: no attempt, no reward
    score = float(env.score(text))
    return score >= 1.0, score if env.reward_mode == "score" else float(score >= 1.0)


SCORED_DIRECTLY: dict[str, Callable[[Any, str], tuple[bool, float]]] = {
    "ReasoningGymEnv": _reasoning_gym_verdict,
}
"""Envs whose answers are graded alone, by the unwrapped env's class name: ``(env,
answer) -> (success, return)`` of the answer sent on every attempt, without stepping.
A Reasoning Gym answer repeated on each attempt hears "try again" and is scored the
same each time, so ``env.score(answer)`` is what the episode pays; one reset per seed
then serves every answer (some datasets take a second per reset)."""


def answer_graded_ids() -> list[str]:
    """Every registered id whose reward grades a submitted answer (``answer_action`` set).

    >>> "turngym/reasoning_gym.coin_flip-v0" in answer_graded_ids()
    True
    """
    from turngym.registry import ENVS

    return [e.id for e in ENVS if e.answer_action is not None]


def wilson_bounds(successes: int, n: int, z: float = 3.0) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` in ``n`` trials, ``z`` deviations wide.

    >>> low, high = wilson_bounds(0, 20)
    >>> low, round(high, 3)
    (0.0, 0.31)
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    # exact at the ends, where rounding would leave 1e-17 (no success, every success)
    low = 0.0 if successes == 0 else max(0.0, (centre - spread) / scale)
    high = 1.0 if successes == n else min(1.0, (centre + spread) / scale)
    return low, high


class DegenerateAnswerError(ConformanceError):
    """A degenerate answer won clearly more often than the random agent (the table inside)."""


@dataclass
class DegenerateResult:
    """One degenerate answer (or the random agent) over the probe's seeds."""

    label: str
    """what was sent (``nan``, ``question copied``, ``prefix of the answer``...)"""
    example: str
    """the action sent on the first seed (shortened)"""
    successes: int = 0
    """episodes it succeeded in"""
    episodes: int = 0
    """episodes it played (one per seed)"""
    total_return: float = 0.0
    """the sum of its episodes' returns"""
    failed: bool = False
    """its success rate is clearly above the random agent's (and ``chance``)"""

    @property
    def rate(self) -> float:
        """Successes per episode."""
        return self.successes / self.episodes if self.episodes else 0.0

    @property
    def mean_return(self) -> float:
        """Mean episode return (partial credit included)."""
        return self.total_return / self.episodes if self.episodes else 0.0


@dataclass
class DegenerateReport:
    """The probe of one env: the random agent's row, then one row per degenerate answer."""

    env_id: str
    """the id (or factory name) probed"""
    random: DegenerateResult
    """the random agent on the same seeds"""
    results: list[DegenerateResult] = field(default_factory=list)
    """one row per degenerate answer, in corpus order"""
    z: float = 3.0
    """the Wilson intervals' width, in standard deviations"""
    chance: float = 0.0
    """the success rate any constant guess is allowed"""
    seconds: float = 0.0
    """wall time of the probe"""

    @property
    def passed(self) -> bool:
        """True when no degenerate answer won clearly more often than the random agent."""
        return not any(r.failed for r in self.results)

    @property
    def worst(self) -> DegenerateResult | None:
        """The degenerate answer with the highest success rate (None without answers)."""
        return max(self.results, key=lambda r: (r.rate, r.mean_return), default=None)

    @property
    def bar(self) -> float:
        """The success rate a degenerate answer's lower bound must stay under."""
        return max(
            wilson_bounds(self.random.successes, self.random.episodes, self.z)[1], self.chance
        )

    def table(self) -> str:
        """A plain-text table: each answer's success rate and mean return, FAIL marked."""
        rows = [("answer", "result", "success", "return", "example")]
        for r in [self.random, *self.results]:
            status = "random" if r is self.random else ("FAIL" if r.failed else "pass")
            rows.append(
                (r.label, status, f"{r.successes}/{r.episodes}", f"{r.mean_return:.3f}", r.example)
            )
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        verdict = "PASS" if self.passed else "FAIL"
        lines = [
            f"degenerate answers on {self.env_id}: {verdict} (a lower bound above "
            f"{self.bar:.3f} fails; z={self.z:g}, chance={self.chance:g})"
        ]
        for row in rows:
            cells = "  ".join(c.ljust(w) for c, w in zip(row[:4], widths, strict=True))
            lines.append(f"{cells}  {row[4]}")
        return "\n".join(lines)


# -- the answers of one episode ----------------------------------------------------


def _question(obs: Any, info: dict[str, Any]) -> str:
    text = info.get("instruction")
    if not isinstance(text, str) or not text.strip():
        text = obs.get("text", "") if isinstance(obs, dict) else obs
    return str(text)


def _episode_answers(obs: Any, info: dict[str, Any], known: Sequence[str]) -> list[tuple[str, str]]:
    """The answers read off this episode's question (and its right answer when known)."""
    question = _question(obs, info).strip()
    lines = [line.strip() for line in question.splitlines() if line.strip()]
    out = [("question copied", question)]
    if lines:
        out.append(("last line copied", lines[-1]))
    if ":" in question:
        out.append(("after the last colon", question.rsplit(":", 1)[1].strip()))
    legal = info.get("legal_actions")
    if legal:
        out.append(("legal actions listed", ", ".join(map(str, legal))))
    if known:
        # Halves and ends only (0.023437 of 0.0234375 is a right answer within any
        # tolerance), and no piece that is an accepted form of the answer ("Droho" of
        # "Droho River") or, as a number, within 1% of it (2.6792 of 2.67925433086 is
        # the answer rounded, not a piece of it).
        answer = known[0]
        half = max(1, len(answer) // 2)
        pieces = [
            ("answer's first character", answer[:1]),
            ("answer's first half", answer[:half]),
            ("answer's last character", answer[-1:]),
            ("answer's second half", answer[half:]),
        ]
        out += [(label, p) for label, p in pieces if not any(_same(p, k) for k in known)]
    return out


def _same(piece: str, answer: str) -> bool:
    if piece.strip().lower() == answer.strip().lower():
        return True
    try:
        a, b = float(piece), float(answer)
    except ValueError:
        return False
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= 0.01 * abs(b)


def _shown(text: str, limit: int = 40) -> str:
    flat = text.replace("\n", "\\n").replace("\t", "\\t")
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def _action(template: str, text: str) -> str:
    return template.format(text) if "{" in template else template


# -- playing -----------------------------------------------------------------------


def _play(
    env: gym.Env,
    obs: Any,
    info: dict[str, Any],
    action: str | Callable[[Any, dict[str, Any]], str],
    max_steps: int,
) -> tuple[bool, float]:
    """The episode just reset (``obs``, ``info``), ``action`` on every turn: (success, return)."""
    total, steps = 0.0, 0
    while True:
        sent = action(obs, info) if callable(action) else action
        obs, reward, terminated, truncated, info = env.step(sent)
        total += float(reward)
        steps += 1
        if terminated or truncated:
            return bool(info.get("success")), total
        # an invalid action changes nothing, so sending it again would only repeat it
        if steps >= max_steps or (not callable(action) and info.get("invalid_action")):
            return False, total


def _count(row: DegenerateResult, won: bool, got: float) -> None:
    row.successes += won
    row.episodes += 1
    row.total_return += got


def check_degenerate_answers(
    env_or_id: EnvSource,
    seeds: int | Sequence[int] = 20,
    *,
    seed: int = 0,
    answer_action: str | None = None,
    known_answer: Callable[[gym.Env], Known] | None = None,
    answers: Iterable[tuple[str, str]] = DEGENERATE_ANSWERS,
    z: float = 3.0,
    chance: float | None = None,
    max_steps: int = 50,
    score_directly: bool = True,
    make_kwargs: dict[str, Any] | None = None,
    raise_on_failure: bool = True,
) -> DegenerateReport:
    """Play degenerate answers on many seeds; fail when one wins clearly more than random.

    Args:
        env_or_id: a registered id, an env made by ``gym.make``, or a zero-argument factory.
        seeds: how many seeds (``seed``, ``seed + 1``...) or which ones.
        seed: the first seed when ``seeds`` is a count.
        answer_action: how the env takes an answer (``"answer[{}]"``, ``"submit()"``);
            default: the registry row's ``answer_action``, else the bare text (``"{}"``).
        known_answer: the episode's right answer (or it and its other accepted forms),
            from the env after ``reset``, for its pieces and the most common answer;
            default: ``KNOWN_ANSWERS`` by the env's class.
        answers: the fixed corpus, ``(label, text)`` pairs.
        z: width of both Wilson intervals, in standard deviations.
        chance: the success rate a constant right answer may have (0.5 for a yes/no
            task); an answer fails only when it also clearly beats this. Default: the
            share of the most common known answer over the seeds (0.0 when unknown).
        max_steps: turns per episode at most (besides the env's own time limit).
        score_directly: grade answers of the envs in ``SCORED_DIRECTLY`` without
            stepping (the same verdicts, one reset per seed); False plays every answer.
        make_kwargs: kwargs for ``gym.make`` / the factory.
        raise_on_failure: raise ``DegenerateAnswerError`` (with the table) on a failure.

    Returns:
        The report; ``report.table()`` prints it.

    Example:
        >>> from turngym.testing import check_degenerate_answers
        >>> check_degenerate_answers("turngym/TryAgainQA-v0", seeds=5).passed
        True

    """
    if isinstance(seeds, int):
        if seeds < 1:
            raise ValueError(f"seeds must be a count >= 1 or a list of seeds, got {seeds!r}")
        seed_list = list(range(seed, seed + seeds))
    else:
        seed_list = [int(s) for s in seeds]
        if not seed_list:
            raise ValueError("seeds must name at least one seed")
    if chance is not None and not 0.0 <= chance < 1.0:
        raise ValueError(f"chance must be a success rate in [0, 1), got {chance!r}")
    make, env_id = env_maker(env_or_id, dict(make_kwargs or {}))
    template = answer_action if answer_action is not None else _registered_action(env_id)
    fixed = list(answers) if "{" in template else [("fixed action", "")]
    start = time.perf_counter()
    env = make()
    try:
        from turngym.agents import RandomAgent

        agent = RandomAgent(env)
        random = DegenerateResult("random agent", "random legal actions or text")

        def random_action(obs: Any, info: dict[str, Any]) -> str:
            return agent.act(obs, info)

        direct = (
            SCORED_DIRECTLY.get(type(env.unwrapped).__name__)
            if score_directly and template == "{}"
            else None
        )
        by_label: dict[str, DegenerateResult] = {}

        def grade(label: str, text: str, s: int, fresh: tuple[Any, dict[str, Any]] | None) -> None:
            """``text`` on seed ``s`` (``fresh``: that seed's reset, not yet stepped)."""
            sent = _action(template, text)
            row = by_label.setdefault(label, DegenerateResult(label, _shown(sent)))
            if direct is not None:  # graded without stepping
                if fresh is None:
                    env.reset(seed=s)
                _count(row, *direct(env.unwrapped, text))
                return
            obs, info = env.reset(seed=s)
            _count(row, *_play(env, obs, info, sent, max_steps))

        answers_seen: Counter[str] = Counter()
        previous: list[str] = []  # the accepted forms of the last seed's answer
        for s in seed_list:
            obs, info = env.reset(seed=s)
            known = _known(env, known_answer) if "{" in template else []
            if known:
                answers_seen[known[0]] += 1
            corpus = fixed + (_episode_answers(obs, info, known) if "{" in template else [])
            # Another question's answer: a scorer that checks an answer is A solution
            # (four numbers make 24, a grid is a valid sudoku) and not THE solution of
            # this question pays it.
            if previous and not (known and any(_same(previous[0], k) for k in known)):
                corpus.append(("another question's answer", previous[0]))
            previous = known
            if direct is not None:  # every answer, then the random agent, on this reset
                for label, text in corpus:
                    grade(label, text, s, (obs, info))
            agent.reset(seed=s)
            _count(random, *_play(env, obs, info, random_action, max_steps))
            if direct is None:
                for label, text in corpus:
                    grade(label, text, s, None)
        # The answer right most often, sent on every seed: a task whose answers bunch up
        # ("1" in half the questions) pays it without a question read.
        common = answers_seen.most_common(1)
        if common and common[0][1] >= 2:
            for s in seed_list:
                grade("most common answer", common[0][0], s, None)
        if chance is None:  # the share of questions a constant right answer gets
            chance = common[0][1] / len(seed_list) if common and common[0][1] >= 2 else 0.0
    finally:
        env.close()
    allowed = 0.0 if chance is None else chance
    report = DegenerateReport(env_id, random, list(by_label.values()), z=z, chance=allowed)
    for row in report.results:
        row.failed = wilson_bounds(row.successes, row.episodes, z)[0] > report.bar
    report.seconds = time.perf_counter() - start
    if raise_on_failure and not report.passed:
        raise DegenerateAnswerError(report.table())
    return report


def _registered_action(env_id: str) -> str:
    from turngym.registry import entry

    try:
        row = entry(env_id)
    except KeyError:
        return "{}"
    return row.answer_action or "{}"


def _known(env: gym.Env, known_answer: Callable[[gym.Env], Known] | None) -> list[str]:
    """The accepted forms of the episode's answer, the answer first (none: unknown)."""
    if known_answer is not None:
        found = known_answer(env)
    else:
        lookup = KNOWN_ANSWERS.get(type(env.unwrapped).__name__)
        found = None if lookup is None else lookup(env.unwrapped)
    forms = [found] if isinstance(found, str) else list(found or [])
    return [f.strip() for f in forms if isinstance(f, str) and f.strip()]

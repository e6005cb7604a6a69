"""``reasoning_gym.<task>-v0``: one Reasoning Gym question per episode, a few attempts.

Each reset draws a seed from the env's RNG, builds the dataset with it
(``reasoning_gym.create_dataset(task, seed=..., size=1)``, which is cheap: entries are
generated on demand) and asks its one entry, which depends on that seed only, in any
process (``reasoning_gym_entries``). The dataset's own ``score_answer`` grades
each answer. A wrong answer hears only ``retry_message`` (unary feedback, as turngym's
``UnaryFeedback`` wrapper and ``TryAgainQA-v0`` do) until ``attempts`` answers are used.

Reward: paid once, when the episode ends: the score of the answer that ended it (the
first one scoring 1.0, else the last one). Partial credit (many scorers give 0.01 for a
wrong answer of the right form, or ``len(answer)/len(guess)`` when the guess contains
the answer) is never summed or maxed over attempts, so spraying answers earns nothing
a single answer would not; ``reward="success"`` pays 1.0 for a correct answer and 0.0
otherwise. ``success`` means a score of 1.0.

Answers go to scorers that evaluate text as Python only when
``turngym.envs.adapters.answer_guard`` finds them harmless; others score 0.0. Scorers
that pay a degenerate answer (``nan``, a prefix of the answer) have their score
corrected there (``answer_guard.QUIRKS``), and the datasets whose answer is often the
question's own input redraw such questions (``reasoning_gym_tasks.REDRAWN``), so that
no answer wins without reading the question (``turngym.testing.check_degenerate_answers``).

Scoring is bounded: some scorers do unbounded work on an answer (``sympy.simplify`` of
``exp(exp(exp(x)))``, ``rubiks_cube`` repeating a move ``R99999999`` times), so every
answer is scored in a worker process of the env's own
(``turngym.envs.adapters.bounded_score``), started at the first answer, within
``score_seconds`` of wall time (default 2 s; a CPU rlimit of as much) and
``score_memory_mb`` of memory. Past a bound the worker is killed (the next answer gets a
new one) and the answer scores 0.0, with the reason in ``info["score_error"]``. Only
datasets that keep Reasoning Gym's default scorer (an equality and a substring test,
linear in the answer's length) are scored in-process, and so are the answers whose shape
provably bounds their scorer's work (``turngym.envs.adapters.safe_shapes``: a
``spiral_matrix`` answer of digits, commas and brackets). ``close()`` kills the worker,
and it dies with the env's process however that ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.adapters.answer_guard import admissible, copies_input, guarded_score
from turngym.envs.adapters.bounded_score import BoundedScorer, score_here
from turngym.envs.adapters.reasoning_gym_entries import entry_here, make_dataset, make_entry
from turngym.envs.adapters.reasoning_gym_tasks import LEFT_OUT, REDRAWN, TASKS
from turngym.envs.adapters.safe_shapes import safe_in_process
from turngym.extras import needs_extra

__all__ = ["REWARDS", "ReasoningGymEnv"]

REWARDS = ("score", "success")
"""``ReasoningGymEnv(reward=...)``: the scorer's value, or 1.0/0.0 for right/wrong."""

MAX_DRAWS = 1000
"""Questions a ``REDRAWN`` dataset may draw per reset before its config is refused."""


class ReasoningGymEnv(TextEnv[str]):
    """Answer one question of a Reasoning Gym dataset, with unary feedback on a miss.

    Args:
        task: the dataset's name in ``reasoning_gym.factory.DATASETS`` (one of ``TASKS``).
        attempts: answers allowed per question, >= 1 (default 3).
        reward: ``"score"`` (the dataset's score of the final answer, partial credit
            included) or ``"success"`` (1.0 when it scores 1.0, else 0.0).
        config: keyword arguments of the dataset's config (e.g. ``{"min_digits": 2}``),
            checked by Reasoning Gym when the env is made.
        retry_message: what a wrong answer hears when attempts are left.
        max_answer_chars: longer answers are refused as invalid (they use no attempt).
        score_seconds: the wall-time (and CPU-time) bound of scoring one answer; past it
            the answer scores 0.0 and ``info["score_error"]`` says so.
        score_memory_mb: the memory the scorer's worker may take beyond its start.
        invalid_action_penalty, max_invalid_actions, render_mode: as in ``TextEnv``.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/reasoning_gym.basic_arithmetic-v0")
        >>> obs, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step("not a number")
        >>> obs, terminated, info["attempts_left"]
        ("Let's try again.", False, 2)

    """

    def __init__(
        self,
        task: str,
        *,
        attempts: int = 3,
        reward: str = "score",
        config: Mapping[str, Any] | None = None,
        retry_message: str = "Let's try again.",
        max_answer_chars: int = 20_000,
        score_seconds: float = 2.0,
        score_memory_mb: int = 2048,
        invalid_action_penalty: float = 0.0,
        max_invalid_actions: int | None = 10,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            invalid_action_penalty=invalid_action_penalty,
            max_invalid_actions=max_invalid_actions,
            render_mode=render_mode,
        )
        if task in LEFT_OUT:
            raise ValueError(f"task {task!r} is not offered: {LEFT_OUT[task]}")
        if task not in TASKS:
            raise ValueError(
                f"task must be one of Reasoning Gym's datasets ({', '.join(TASKS[:5])}, ... "
                f"{len(TASKS)} in all: turngym list --family reasoning_gym), got {task!r}"
            )
        if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
            raise ValueError(f"attempts must be an int >= 1, got {attempts!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if config is not None and not isinstance(config, Mapping):
            raise ValueError(f"config must be a mapping of the dataset's options, got {config!r}")
        if not isinstance(retry_message, str) or not retry_message.strip():
            raise ValueError(f"retry_message must be a non-empty string, got {retry_message!r}")
        if (
            isinstance(max_answer_chars, bool)
            or not isinstance(max_answer_chars, int)
            or max_answer_chars < 1
        ):
            raise ValueError(f"max_answer_chars must be an int >= 1, got {max_answer_chars!r}")
        if (
            isinstance(score_seconds, bool)
            or not isinstance(score_seconds, (int, float))
            or not 0 < score_seconds < float("inf")
        ):
            raise ValueError(
                f"score_seconds must be a number of seconds > 0, got {score_seconds!r}"
            )
        if (
            isinstance(score_memory_mb, bool)
            or not isinstance(score_memory_mb, int)
            or score_memory_mb < 64
        ):
            raise ValueError(f"score_memory_mb must be an int >= 64, got {score_memory_mb!r}")
        self.task = task
        self.attempts = attempts
        self.reward_mode = reward
        self.config = dict(config or {})
        self.retry_message = retry_message
        self.max_answer_chars = max_answer_chars
        with needs_extra("reasoning", f"reasoning_gym.{task}-v0"):
            import reasoning_gym  # noqa: F401  (needs_extra's check: make_dataset imports it)

        from reasoning_gym.dataset import ProceduralDataset

        try:  # fail here, not at the first reset, on a bad config
            probe = make_dataset(task, 0, self.config)
        except (TypeError, ValueError, AssertionError) as error:
            raise ValueError(f"config={self.config!r} is not valid for {task}: {error}") from None
        # The default scorer compares strings (== and `in`: linear time), so it cannot
        # stall; every other one runs in the worker.
        self._in_process = type(probe).score_answer is ProceduralDataset.score_answer
        # Answers of a shape that provably cannot stall this scorer skip the worker's round
        # trip (safe_shapes); every other answer still goes to the worker.
        self._safe_shape = None if self._in_process else safe_in_process(task)
        self.scorer = BoundedScorer(
            task, self.config, float(score_seconds), score_memory_mb, make_entry=entry_here
        )
        """The worker that scores answers (``kills``, ``starts``, ``pid``)."""
        self.entry: dict[str, Any] = {}
        """The dataset entry being asked (``question``, ``answer``, ``metadata``)."""
        self.answers: list[str] = []
        """The answers given so far in this episode."""
        self._dataset: Any = None
        self._entry_seed = 0
        tries = f"{attempts} attempts" if attempts > 1 else "one attempt"
        self._ask = f"\n\n(Give your answer only. You have {tries}.)"  # made once, not per reset

    @property
    def attempts_left(self) -> int:
        """Answers the agent may still give."""
        return self.attempts - len(self.answers)

    def _reset(self, options: dict[str, Any]) -> str:
        for _ in range(MAX_DRAWS):
            self._entry_seed = int(self.np_random.integers(2**31 - 1))
            # the seed alone decides: not the global generators, nor the hash seed
            self._dataset, self.entry = make_entry(self.task, self._entry_seed, self.config)
            if self.task not in REDRAWN or not copies_input(self.entry):
                break
        else:  # a config under which every answer is the question's input
            raise ValueError(
                f"{MAX_DRAWS} questions of {self.task} with config={self.config!r} were all "
                "answered by their own input; widen the config (see REDRAWN)"
            )
        self.answers = []
        self.instruction = question = self.entry["question"]
        return question + self._ask

    def _parse(self, action: str) -> str | Invalid:
        answer = action.strip()
        if not answer:
            return Invalid("the answer is empty")
        if len(answer) > self.max_answer_chars:
            return Invalid(f"answers are at most {self.max_answer_chars} characters")
        return answer

    def score(self, answer: str) -> float:
        """The dataset's score of ``answer`` for the current entry, in [0, 1].

        0.0 when the answer may not reach a scorer that evaluates it as Python
        (``answer_guard``), when the scorer fails on it, or when it runs past its bounds.
        """
        return self._verdict(answer)[0]

    def _verdict(self, answer: str) -> tuple[float, str | None]:
        """The score of ``answer``, and why it is 0.0 when the scorer failed or was stopped."""
        value: float | None
        if self._safe_shape is not None and self._safe_shape(answer):
            # the answer guard admits every answer of a safe shape (no call, no name)
            value, why = score_here(self._dataset, self.entry, answer, self.scorer.memory_mb)
        elif not admissible(self.task, answer):
            return 0.0, None
        elif self._in_process:
            try:
                value = float(self._dataset.score_answer(answer, self.entry))
            except Exception:  # a scorer that chokes on an answer rejects it
                return 0.0, "the scorer failed"
            why = None
        else:
            value, why = self.scorer.score(self._entry_seed, self.entry, answer)
        if value is None:
            return 0.0, why
        value = guarded_score(self.task, answer, self.entry, value)
        return (min(max(value, 0.0), 1.0) if value == value else 0.0), None

    def _apply(self, action: str) -> Outcome:
        self.answers.append(action)
        score, why = self._verdict(action)
        right = score >= 1.0
        info: dict[str, Any] = {} if why is None else {"score_error": why}
        left = self.attempts - len(self.answers)  # attempts_left, read once
        if not right and left > 0:
            info["attempts_left"] = left
            return Outcome(self.retry_message, 0.0, info=info)
        paid = score if self.reward_mode == "score" else float(right)
        obs = "Correct." if right else "Out of attempts."
        info.update(
            score=score, answer=_shown(self.entry.get("answer")), attempts_used=len(self.answers)
        )
        return Outcome(obs, paid, terminated=True, success=right, info=info)

    def close(self) -> None:
        """Stop the scorer's worker process (the next answer would start a new one)."""
        self.scorer.close()
        super().close()

    def __getstate__(self) -> dict[str, Any]:
        # A worker process does not travel: the copy starts its own at its first answer.
        state = self.__dict__.copy()
        state["scorer"] = (self.scorer.seconds, self.scorer.memory_mb)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        seconds, memory_mb = state["scorer"]
        self.__dict__.update(state)
        self.scorer = BoundedScorer(
            self.task, self.config, seconds, memory_mb, make_entry=entry_here
        )

    def _state_key(self) -> str:
        return f"{self.task}|{self._entry_seed}|{len(self.answers)}"

    def _extra_info(self) -> dict[str, Any]:
        return {"attempts_left": self.attempts - len(self.answers)}

    def _render(self) -> str:
        lines = [self.entry.get("question", "")]
        lines += [f"  attempt {k + 1}: {a[:80]}" for k, a in enumerate(self.answers)]
        lines.append(f"{self.attempts_left} of {self.attempts} attempts left")
        return "\n".join(lines)


def _shown(answer: Any) -> str:
    return "" if answer is None else str(answer)

"""The token-level ``Policy`` protocol every backend implements, and its value types.

A policy turns token-id prompts into sampled continuations (``generate``) and scores
given continuations (``score``). It knows nothing of envs: agents render observations
into prompt ids with ``policy.tokenizer`` and parse the text back into actions.
Backends: ``turngym.sdk.backends.hf`` (transformers), ``.openai`` (any
OpenAI-compatible server) and ``.vllm``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "Choices",
    "FinishReason",
    "Generation",
    "Policy",
    "PolicyError",
    "SamplingParams",
    "check_token_ids",
]

FinishReason = Literal["stop", "length"]
"""``stop``: the model ended its turn (EOS or a stop string); ``length``: max_new_tokens."""


class PolicyError(RuntimeError):
    """A policy could not be built or could not answer (missing model, bad server reply).

    Its message is one line meant for the user; the CLI prints it without a traceback.
    """


@dataclass(frozen=True)
class SamplingParams:
    """How to sample a continuation.

    Args:
        temperature: 0 means greedy decoding (argmax; ``top_p``/``top_k`` ignored).
        top_p: nucleus sampling mass in (0, 1]; 1 keeps every token.
        top_k: keep the ``top_k`` most likely tokens; 0 keeps every token.
        max_new_tokens: the most tokens generated for one prompt.
        stop: strings that end a generation; the text is cut before the stop string and
            the tokens after the one that completed it are dropped.
        seed: the same seed, prompts and params give the same tokens; None: unseeded.

    """

    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    max_new_tokens: int = 64
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.temperature, (int, float)) and self.temperature >= 0):
            raise ValueError(f"temperature must be a number >= 0, got {self.temperature!r}")
        if not (isinstance(self.top_p, (int, float)) and 0 < self.top_p <= 1):
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p!r}")
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or self.top_k < 0:
            raise ValueError(f"top_k must be an int >= 0 (0: off), got {self.top_k!r}")
        if (
            isinstance(self.max_new_tokens, bool)
            or not isinstance(self.max_new_tokens, int)
            or self.max_new_tokens < 1
        ):
            raise ValueError(f"max_new_tokens must be an int >= 1, got {self.max_new_tokens!r}")
        if isinstance(self.stop, str):  # a lone string is one stop string, not its letters
            object.__setattr__(self, "stop", (self.stop,))
        else:
            object.__setattr__(self, "stop", tuple(self.stop))
        if not all(isinstance(s, str) and s for s in self.stop):
            raise ValueError(f"stop must be non-empty strings, got {self.stop!r}")
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int)
        ):
            raise ValueError(f"seed must be an int or None, got {self.seed!r}")

    @property
    def greedy(self) -> bool:
        """Whether decoding is greedy (temperature 0)."""
        return self.temperature == 0


@dataclass
class Generation:
    """One sampled continuation.

    Attributes:
        token_ids: the generated tokens (EOS included when the model emitted it; nothing
            after a stop string).
        logprobs: the behaviour policy's log-probability of each token in ``token_ids``
            under the distribution it was sampled from (logits / temperature, top-k and
            top-p applied and renormalised), so a learner that scores the same weights at
            the same temperature gets importance ratios of 1; greedy decoding reports the
            model's raw distribution. Empty when the backend cannot report them.
        text: the decoded text, special tokens and any stop string removed.
        finish_reason: ``"stop"`` or ``"length"``.

    """

    token_ids: list[int]
    logprobs: list[float]
    text: str
    finish_reason: FinishReason
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def logprob(self) -> float:
        """The sum of ``logprobs`` (NaN when the backend reported none)."""
        return math.fsum(self.logprobs) if self.logprobs or not self.token_ids else math.nan


Choices = Sequence[Sequence[Sequence[int]] | None]
"""Guided choice, per prompt: None (free text) or the token sequences it must produce one of."""


@runtime_checkable
class Policy(Protocol):
    """A language model behind a token-level interface (ARCHITECTURE.md section 6)."""

    tokenizer: Any
    """A Hugging Face tokenizer: encodes prompts, decodes generations, chat template."""

    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        params: SamplingParams,
        choices: Choices | None = None,
    ) -> list[Generation]:
        """One continuation per prompt, batched.

        ``choices`` (guided choice, ``LLMAgent(constrained=True)``): per prompt, None or
        the token sequences (a candidate's tokens plus EOS) the generation must be one
        of. A backend that cannot guide raises ``PolicyError`` in one line when a prompt
        has choices; one that could not guide a given prompt says so with
        ``extra["guided"] = False`` on its generation.
        """
        ...

    def score(self, prompt_ids: Sequence[int], candidates: Sequence[Sequence[int]]) -> list[float]:
        """The sum of log-probs of each candidate continuation after ``prompt_ids``."""
        ...


def check_token_ids(
    ids: Sequence[int], what: str, *, empty_ok: bool = False, vocab_size: int | None = None
) -> list[int]:
    """``ids`` as a list of ints, or a ``ValueError`` naming ``what`` is wrong with it.

    Backends call it on every prompt and candidate, so a string passed where token ids
    belong, an empty prompt or an id outside the vocab is a clear error, not a crash.
    """
    if isinstance(ids, (str, bytes)):
        raise ValueError(f"{what} must be a list of token ids, got a string: tokenize it first")
    try:
        row = [int(t) for t in ids]
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a list of int token ids") from None
    if not row and not empty_ok:
        raise ValueError(f"{what} is empty: a prompt needs at least one token")
    if vocab_size is not None and row and not (min(row) >= 0 and max(row) < vocab_size):
        raise ValueError(f"{what} holds a token id outside the vocab [0, {vocab_size})")
    return row

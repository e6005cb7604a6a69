"""``VLLMPolicy``: the ``Policy`` protocol over a ``vllm.LLM`` engine (CUDA machines).

Same interface as ``HFPolicy``: token-id prompts in, ``Generation`` records out, with the
log-prob of each sampled token (vLLM's ``logprobs=0``: the sampled token only, under
the distribution it was drawn from: the engine is started with
``logprobs_mode="processed_logprobs"``, which vLLM has had since 0.10.2; an older vLLM
reports the raw distribution's and says so in a warning), candidate scoring through
``prompt_logprobs``, and a ``load_weights`` hook so trainers can push updated weights
into the engine. vllm is imported when a ``VLLMPolicy`` is built, never by
``import turngym``.

Determinism: each prompt gets its own vLLM seed derived from ``(params.seed, index)``,
as ``HFPolicy`` does, so a prompt's sample does not depend on the rest of the batch.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import secrets
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from turngym.sdk.backends.hf import _END_TOKENS, _model_dir
from turngym.sdk.policy import (
    Choices,
    Generation,
    PolicyError,
    SamplingParams,
    check_token_ids,
)

__all__ = ["VLLM_MISSING", "VLLMPolicy"]

VLLM_MISSING = "vllm is not installed; pip install 'turngym[vllm]' on a CUDA machine"


class VLLMPolicy:
    """A ``vllm.LLM`` engine as a ``Policy``.

    Args:
        model_dir: a directory saved with ``save_pretrained`` (a local checkpoint or
            ``build_tiny_model``'s output).
        **llm_kwargs: passed to ``vllm.LLM`` (``dtype``, ``gpu_memory_utilization``,
            ``max_model_len``, ``enforce_eager``...).

    Raises:
        PolicyError: vllm is missing, or the model cannot be loaded (one line).

    """

    def __init__(self, model_dir: str | os.PathLike[str], **llm_kwargs: Any) -> None:
        try:
            import vllm
        except ImportError:
            raise PolicyError(VLLM_MISSING) from None
        self._vllm = vllm
        directory = _model_dir(model_dir)
        if _knows_logprobs_mode(vllm):
            # as HFPolicy: log-probs after temperature/top-p/top-k, what was sampled from
            llm_kwargs.setdefault("logprobs_mode", "processed_logprobs")
        else:
            warnings.warn(
                f"vllm {getattr(vllm, '__version__', '?')} reports log-probs of the raw "
                "distribution: at temperature != 1 or with top-p/top-k the importance "
                "weights of its rollouts are biased; vllm >= 0.10.2 reports the sampled ones",
                RuntimeWarning,
                stacklevel=2,
            )
        try:
            self.llm = vllm.LLM(model=str(directory), **llm_kwargs)
        except Exception as error:  # engine start-up fails in many ways; the user needs one
            text = " ".join(str(error).split())[:300]
            raise PolicyError(
                f"vllm could not load {str(directory)!r}: {type(error).__name__}: {text}"
            ) from None
        self.tokenizer = self.llm.get_tokenizer()
        ids = {self.tokenizer.eos_token_id} - {None}
        vocab = self.tokenizer.get_vocab()
        ids.update(vocab[t] for t in _END_TOKENS if t in vocab)
        self.eos_token_ids: tuple[int, ...] = tuple(sorted(int(i) for i in ids))
        """the token ids that end a generation (EOS and the chat end-of-turn tokens)"""

    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        params: SamplingParams,
        choices: Choices | None = None,
    ) -> list[Generation]:
        """One continuation per prompt, batched by the engine.

        Raises:
            PolicyError: a prompt has ``choices``: this backend does no guided choice.

        """
        if choices is not None and any(c is not None for c in choices):
            raise PolicyError(
                "VLLMPolicy does no guided choice (choices=): pass constrained=False, or "
                "serve the model (vllm serve) and use OpenAIPolicy, which guides through it"
            )
        if not isinstance(params, SamplingParams):
            raise ValueError(f"params must be a SamplingParams, got {type(params).__name__}")
        rows = [check_token_ids(p, f"prompts[{i}]") for i, p in enumerate(prompts)]
        if not rows:
            return []
        seed = params.seed if params.seed is not None else secrets.randbits(63)
        per_row = [self._sampling(params, _row_seed(seed, i)) for i in range(len(rows))]
        outputs = self.llm.generate(
            [{"prompt_token_ids": r} for r in rows], per_row, use_tqdm=False
        )
        results = []
        for out in outputs:
            sample = out.outputs[0]
            tokens = list(sample.token_ids)
            steps = sample.logprobs or []
            logprobs = [float(s[t].logprob) for t, s in zip(tokens, steps, strict=False)]
            results.append(
                Generation(
                    token_ids=tokens,
                    logprobs=logprobs if len(logprobs) == len(tokens) else [],
                    text=sample.text,
                    finish_reason="length" if sample.finish_reason == "length" else "stop",
                )
            )
        return results

    def _sampling(self, params: SamplingParams, seed: int) -> Any:
        return self._vllm.SamplingParams(
            n=1,
            temperature=params.temperature,
            top_p=params.top_p if not params.greedy else 1.0,
            top_k=params.top_k if params.top_k > 0 and not params.greedy else -1,
            max_tokens=params.max_new_tokens,
            stop=list(params.stop) or None,
            stop_token_ids=list(self.eos_token_ids),
            seed=seed,
            logprobs=0,
            skip_special_tokens=True,
        )

    def score(self, prompt_ids: Sequence[int], candidates: Sequence[Sequence[int]]) -> list[float]:
        """The sum of log-probs of each candidate's tokens after ``prompt_ids``."""
        prompt = check_token_ids(prompt_ids, "prompt_ids")
        cands = [
            check_token_ids(c, f"candidates[{i}]", empty_ok=True) for i, c in enumerate(candidates)
        ]
        todo = [i for i, c in enumerate(cands) if c]
        scores = [0.0] * len(cands)
        if not todo:
            return scores
        probe = self._vllm.SamplingParams(max_tokens=1, prompt_logprobs=0, temperature=0.0)
        outputs = self.llm.generate(
            [{"prompt_token_ids": prompt + cands[i]} for i in todo], probe, use_tqdm=False
        )
        for i, out in zip(todo, outputs, strict=True):
            steps = out.prompt_logprobs[len(prompt) :]
            scores[i] = sum(float(step[t].logprob) for t, step in zip(cands[i], steps, strict=True))
        return scores

    def load_weights(self, weights: Mapping[str, Any] | Any) -> None:
        """Load a state dict (or a model's) into the engine's model, in place.

        Uses ``LLM.apply_model`` where vllm has it, else the single-process driver
        worker's model; the prefix cache is reset so no stale KV entries survive.
        """
        state = weights.state_dict() if hasattr(weights, "state_dict") else weights
        if not isinstance(state, Mapping):
            raise ValueError(
                f"load_weights takes a state dict or a model, got {type(weights).__name__}"
            )
        items = list(state.items())
        if hasattr(self.llm, "apply_model"):
            self.llm.apply_model(lambda model: model.load_weights(weights=items))
        else:
            executor = self.llm.llm_engine.model_executor
            executor.driver_worker.model_runner.model.load_weights(weights=items)
        if hasattr(self.llm, "reset_prefix_cache"):
            self.llm.reset_prefix_cache()


def _row_seed(seed: int, row: int) -> int:
    digest = hashlib.blake2b(f"{seed}:{row}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 33  # vllm seeds are 31-bit ints


def _knows_logprobs_mode(vllm: Any) -> bool:
    """Whether this vllm's engine takes ``logprobs_mode`` (0.10.2 and later)."""
    args = getattr(vllm, "EngineArgs", None)
    if args is None or not dataclasses.is_dataclass(args):
        return False
    return any(f.name == "logprobs_mode" for f in dataclasses.fields(args))

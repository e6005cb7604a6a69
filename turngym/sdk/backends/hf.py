"""``HFPolicy``: the ``Policy`` protocol over a Hugging Face transformers causal LM.

Generation is batched and left-padded, with its own decoding loop over the KV cache
(rows that finish leave the batch, so they stop costing compute), greedy or sampled
with temperature / top-p / top-k, EOS and stop strings, and the log-probability of each
sampled token under the distribution it was drawn from (tempered, truncated and
renormalised; greedy decoding reports the raw distribution's). Prompts of very
different lengths are prefilled in buckets of similar length whose caches are then
joined, so little of the prefill is spent on padding. ``score`` sums the log-probs of candidate
continuations after one shared prompt (one forward over the prompt + candidate rows).
Qwen2 and Llama models decode their new tokens with ``LeanDecoder`` (backends/decode.py:
the model's own layers without the framework's per-call overhead, same results);
``lean_decoding = False`` or any other architecture uses the model's forward. On CUDA
they decode with ``StaticDecoder`` instead (backends/static_decode.py: a fixed-shape KV
cache kept between calls, each step replayed as a CUDA graph, tokens read back every 16
steps; same results), except for guided rows; ``static_decoding`` turns it on or off.

Determinism: with ``SamplingParams(seed=s)``, the prompt at index ``i`` of a
``generate`` call draws its randomness from its own generator seeded by ``(s, i)``, so
its tokens depend on ``s``, ``i``, its own prompt and the model only: not on the other
prompts in the call, nor on ``max_batch_size``. Greedy decoding of a prompt gives the
same tokens alone or in any batch. (Both hold exactly on CPU in float32; batched GPU
kernels may round differently in the last bits.)
"""

from __future__ import annotations

import hashlib
import os
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from turngym.extras import require_installed
from turngym.hf_compat import cache_kwargs, output_cache, quiet
from turngym.sdk.backends.decode import LeanDecoder
from turngym.sdk.backends.static_decode import MIN_CAPACITY, StaticDecoder, bucket, decode
from turngym.sdk.choices import ChoiceTree
from turngym.sdk.policy import Generation, PolicyError, SamplingParams, check_token_ids

if TYPE_CHECKING:
    import torch

__all__ = ["HFPolicy"]

# Chat "end of turn" tokens of common families; each one in the vocab also ends a generation.
_END_TOKENS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end|>", "<end_of_turn>")
_DTYPES = ("float32", "bfloat16", "float16")


class HFPolicy:
    """A transformers causal LM as a ``Policy``: batched generation and candidate scoring.

    Args:
        model: a directory saved with ``save_pretrained`` (a local Qwen2.5 checkpoint,
            or ``build_tiny_model``'s output), loaded with
            ``AutoModelForCausalLM.from_pretrained``; or a model object, used as is.
        tokenizer: a tokenizer or a directory; None: the model's directory.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; None: CUDA when available for a
            directory, where the model already lives for a model object.
        dtype: ``"float32"``, ``"bfloat16"``, ``"float16"`` or a ``torch.dtype``; None:
            bfloat16 on a GPU that supports it, else float32 (a model object keeps its own).
        max_batch_size: the most rows one forward pass holds; bigger calls are split.

    Raises:
        PolicyError: the model or tokenizer cannot be loaded (one line saying why).
        ValueError: a bad argument.

    Example:
        >>> from turngym.sdk.models import build_tiny_model
        >>> policy = HFPolicy(build_tiny_model(tmp_path))  # doctest: +SKIP
        >>> prompt = policy.tokenizer.apply_chat_template(
        ...     [{"role": "user", "content": "Go left."}], add_generation_prompt=True
        ... )  # doctest: +SKIP
        >>> policy.generate([prompt], SamplingParams(temperature=0))[0].text  # doctest: +SKIP

    """

    def __init__(
        self,
        model: str | os.PathLike[str] | Any,
        tokenizer: Any = None,
        device: str | torch.device | None = None,
        dtype: str | torch.dtype | None = None,
        max_batch_size: int = 64,
    ) -> None:
        if isinstance(max_batch_size, bool) or not isinstance(max_batch_size, int):
            raise ValueError(f"max_batch_size must be an int >= 1, got {max_batch_size!r}")
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be an int >= 1, got {max_batch_size!r}")
        require_installed("llm", "HFPolicy", ("torch", "transformers"))
        import torch

        self.max_batch_size = max_batch_size
        torch_dtype = _resolve_dtype(dtype)
        if isinstance(model, (str, os.PathLike)):
            directory = _model_dir(model)
            target = _device(device) if device is not None else _default_device()
            if torch_dtype is None:
                torch_dtype = _default_dtype(target)
            self.model = _load_model(directory, torch_dtype).to(target)
            if tokenizer is None:
                tokenizer = directory
        elif isinstance(model, torch.nn.Module):
            self.model = model
            if device is not None or torch_dtype is not None:
                self.model.to(
                    device=_device(device) if device is not None else None, dtype=torch_dtype
                )
            if tokenizer is None:
                source = getattr(model, "name_or_path", "") or ""
                if not source or not Path(source).is_dir():
                    raise PolicyError(
                        "HFPolicy(model) got a model object without a saved directory: "
                        "pass tokenizer= (a tokenizer or its directory)"
                    )
                tokenizer = source
        else:
            raise ValueError(
                f"model must be a directory or a transformers model, got {type(model).__name__}"
            )
        self.tokenizer = _load_tokenizer(tokenizer) if _is_path(tokenizer) else tokenizer
        self.model.eval()
        self.device: torch.device = next(self.model.parameters()).device
        self.eos_token_ids: tuple[int, ...] = _eos_ids(self.model, self.tokenizer)
        """the token ids that end a generation (EOS and the chat end-of-turn tokens)"""
        pad = self.tokenizer.pad_token_id
        self._pad_id = int(pad if pad is not None else (self.eos_token_ids or (0,))[0])
        self._vocab_size = int(self.model.get_output_embeddings().weight.shape[0])
        self._join_caches = True  # bucketed prefill (False once a model's cache cannot join)
        self.lean_decoding = True
        """decode with ``LeanDecoder`` when the model supports it (False: the model's forward)"""
        self.static_decoding: bool | None = None
        """decode over a fixed-shape KV cache (``StaticDecoder``, CUDA graphs on a GPU):
        None: on CUDA only; needs ``lean_decoding`` and a model it supports, and is
        not used for guided rows (``choices``)"""
        self.cuda_graphs = True
        """replay the static decoder's steps as CUDA graphs (a CUDA model in eval mode)"""
        self._static: StaticDecoder | None = None
        self.stats: dict[str, float] = {"forward_s": 0.0, "forwards": 0, "new_tokens": 0}
        """running totals for profiling: seconds in model forwards, forward calls, tokens"""

    def __repr__(self) -> str:
        name = getattr(self.model, "name_or_path", "") or type(self.model).__name__
        return f"HFPolicy({name!r}, device={str(self.device)!r}, dtype={self.model.dtype})"

    # -- generate ------------------------------------------------------------------

    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        params: SamplingParams,
        choices: Sequence[Sequence[Sequence[int]] | None] | None = None,
        should_stop: Callable[[int], bool] | None = None,
    ) -> list[Generation]:
        """One continuation per prompt, batched (see the module docstring on determinism).

        Args:
            prompts: token ids, one list per prompt.
            params: how to sample.
            choices: guided choice (``turngym.sdk.choices``): for each prompt, None (free
                decoding) or the token sequences it must produce one of; decoding then
                samples from the model's distribution renormalised over the tokens that
                continue some candidate, its log-probs are those of that distribution,
                and it runs until a candidate is complete (past ``max_new_tokens`` if
                a candidate is longer). Stop strings do not apply to such rows.
            should_stop: asked with a prompt's index before its prefill and after each
                of its tokens; True ends that prompt's generation there, with the tokens
                so far (``turngym serve`` stops the prompts of a client that left).
                The other rows go on unchanged. The static decoder asks at each read
                of the tokens (every 16 steps), once per token since the last read.

        """
        if not isinstance(params, SamplingParams):
            raise ValueError(f"params must be a SamplingParams, got {type(params).__name__}")
        rows = [self._check_ids(p, f"prompts[{i}]") for i, p in enumerate(prompts)]
        trees = self._trees(choices, len(rows))
        seed = params.seed if params.seed is not None else secrets.randbits(63)
        order = list(range(len(rows)))
        if len(rows) > self.max_batch_size:  # similar lengths together: less padding
            order.sort(key=lambda i: len(rows[i]))
        out: list[Generation | None] = [None] * len(rows)
        for start in range(0, len(order), self.max_batch_size):
            chunk = order[start : start + self.max_batch_size]
            for i, gen in zip(
                chunk,
                self._generate_batch(
                    [rows[i] for i in chunk],
                    chunk,
                    params,
                    seed,
                    [trees[i] for i in chunk],
                    should_stop,
                ),
                strict=True,
            ):
                out[i] = gen
        return [g for g in out if g is not None]

    def _trees(
        self, choices: Sequence[Sequence[Sequence[int]] | None] | None, n: int
    ) -> list[ChoiceTree | None]:
        if choices is None:
            return [None] * n
        if isinstance(choices, (str, bytes)) or len(choices) != n:
            raise ValueError(f"choices must hold one entry (None or token lists) per prompt ({n})")
        trees: list[ChoiceTree | None] = []
        for i, cands in enumerate(choices):
            if cands is None:
                trees.append(None)
                continue
            if isinstance(cands, (str, bytes)) or not cands:
                raise ValueError(f"choices[{i}] must be None or a non-empty list of token lists")
            rows = [self._check_ids(c, f"choices[{i}][{j}]") for j, c in enumerate(cands)]
            trees.append(ChoiceTree(rows))
        return trees

    def _generate_batch(
        self,
        prompts: list[list[int]],
        row_ids: list[int],
        params: SamplingParams,
        seed: int,
        trees: list[ChoiceTree | None],
        should_stop: Callable[[int], bool] | None = None,
    ) -> list[Generation]:
        import torch

        n, steps, device = len(prompts), params.max_new_tokens, self.device
        if should_stop is not None and all([should_stop(r) for r in row_ids]):  # ask each
            return [self._finish([], [], "stop", params) for _ in prompts]  # skip the prefill
        if any(t is not None for t in trees):  # a guided row runs until its choice is whole
            steps = max(steps, *(_depth(t.root) for t in trees if t is not None))
        width = max(len(p) for p in prompts)
        ids = torch.full((n, width), self._pad_id, dtype=torch.long)
        mask = torch.zeros((n, width), dtype=torch.long)
        for r, p in enumerate(prompts):
            ids[r, width - len(p) :] = torch.tensor(p, dtype=torch.long)
            mask[r, width - len(p) :] = 1
        ids, mask = ids.to(device), mask.to(device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        uniforms = None
        if not params.greedy:  # one private stream per row: (seed, row index) -> its draws
            uniforms = torch.stack(
                [
                    torch.rand(steps, generator=_row_generator(seed, r), dtype=torch.float64)
                    for r in row_ids
                ]
            ).to(device)
        padded = bool((mask == 0).any())
        eos = set(self.eos_token_ids)
        tokens: list[list[int]] = [[] for _ in range(n)]
        logps: list[list[float]] = [[] for _ in range(n)]
        finish: list[str] = ["length"] * n
        active = list(range(n))

        with torch.inference_mode():
            buckets = _buckets([len(p) for p in prompts])
            cache: Any = None
            if len(buckets) > 1 and self._join_caches:
                try:
                    logits, cache = self._prefill_buckets(ids, mask, positions, buckets)
                except _CannotJoin:  # e.g. sliding-window layers: prefill all at once
                    self._join_caches = False
            if cache is None:
                logits, cache = self._forward(ids, mask if padded else None, positions, None)
            next_pos = positions[:, -1] + 1

            def goes_on(r: int) -> bool:
                """After free row ``r``'s newest token: whether its generation continues."""
                if (
                    tokens[r][-1] in eos
                    or (params.stop and self._stopped(tokens[r], params.stop))
                    or (should_stop is not None and should_stop(row_ids[r]))  # client left
                ):
                    finish[r] = "stop"
                    return False
                return len(tokens[r]) < params.max_new_tokens  # guided rows may run longer

            static = (
                None if any(t is not None for t in trees) else self._static_for(n, width, steps)
            )
            if static is not None:
                size = static.load(cache, mask, next_pos)
                del cache

                def accept(r: int, token: int, logp: float) -> bool:
                    tokens[r].append(token)
                    logps[r].append(logp)
                    return goes_on(r)

                self._decode_static(static, logits, size, n, steps, uniforms, params, accept)
                self.stats["new_tokens"] += sum(len(t) for t in tokens)
                return [self._finish(tokens[r], logps[r], finish[r], params) for r in range(n)]
            lean = self._lean
            if lean is not None:
                lean.start(cache, width + steps)  # the lean decoder owns the cache from here
            for step in range(steps):
                guided = [
                    (j, tree.allowed(tokens[r]))
                    for j, r in enumerate(active)
                    if (tree := trees[r]) is not None
                ]
                if guided:
                    logits = _restrict(logits, guided)
                if uniforms is None:
                    picked = logits.argmax(dim=-1)
                    logp = torch.log_softmax(logits.float(), dim=-1)
                    picked_logp = logp.gather(1, picked[:, None])[:, 0]
                else:
                    picked, picked_logp = _sample(logits.float(), params, uniforms[active, step])
                keep: list[int] = []
                for j, (tok, lp) in enumerate(
                    zip(picked.tolist(), picked_logp.tolist(), strict=True)
                ):
                    r = active[j]
                    tokens[r].append(tok)
                    logps[r].append(lp)
                    tree = trees[r]
                    if tree is not None:
                        if not tree.allowed(tokens[r]) or (
                            should_stop is not None and should_stop(row_ids[r])  # client left
                        ):
                            finish[r] = "stop"
                        else:
                            keep.append(j)
                    elif goes_on(r):
                        keep.append(j)
                if not keep or step == steps - 1:
                    break
                if len(keep) < len(active):  # finished rows leave the batch and the cache
                    index = torch.tensor(keep, device=device)
                    if lean is not None:
                        lean.select(index)
                    else:
                        cache.batch_select_indices(index)
                    picked, mask, next_pos = picked[index], mask[index], next_pos[index]
                    active = [active[j] for j in keep]
                    padded = padded and bool((mask == 0).any())
                mask = torch.cat([mask, mask.new_ones((len(active), 1))], dim=1)
                if lean is not None:
                    start = time.perf_counter()
                    logits = lean.step(picked, next_pos, mask.bool() if padded else None)
                    self.stats["forward_s"] += time.perf_counter() - start
                    self.stats["forwards"] += 1
                else:
                    logits, cache = self._forward(
                        picked[:, None],
                        self._step_mask(mask) if padded else None,
                        next_pos[:, None],
                        cache,
                    )
                next_pos = next_pos + 1
        self.stats["new_tokens"] += sum(len(t) for t in tokens)
        return [self._finish(tokens[r], logps[r], finish[r], params) for r in range(n)]

    def release_decoder(self) -> None:
        """Free the static decoder's KV buffers and CUDA graphs (the next call rebuilds).

        They stay allocated between calls, sized for the largest call so far, so that
        the graphs are captured once; a long-lived process that is done generating, or
        that made one unusually long call, can give the memory back.
        """
        self._static = None

    def _static_for(self, rows: int, width: int, steps: int) -> StaticDecoder | None:
        """The static decoder for ``rows`` prompts of ``width`` + ``steps`` tokens, or None."""
        use = self.static_decoding
        if use is None:
            use = self.device.type == "cuda"
        if not use or not self.lean_decoding or not LeanDecoder.supports(self.model):
            return None
        graphs = self.cuda_graphs and not self.model.training
        size, capacity = bucket(rows), bucket(width + steps, MIN_CAPACITY)
        old = self._static
        if old is not None and old.fits(self.model, size, capacity, graphs):
            return old
        if old is not None and old.fits(self.model, 1, 1, graphs):  # grow, never shrink
            size, capacity = max(size, old.rows), max(capacity, old.capacity)
        self._static = None  # its buffers and graphs go before the new ones are made
        self._static = StaticDecoder(self.model, size, capacity, graphs)
        return self._static

    def _decode_static(
        self,
        static: StaticDecoder,
        logits: torch.Tensor,
        size: int,
        n: int,
        steps: int,
        uniforms: torch.Tensor | None,
        params: SamplingParams,
        accept: Callable[[int, int, float], bool],
    ) -> None:
        """Run ``decode`` with this policy's sampling (``accept`` takes each new token)."""
        import torch

        def sample(
            logits: torch.Tensor, rows: torch.Tensor, step: int
        ) -> tuple[torch.Tensor, torch.Tensor]:
            if uniforms is None:
                picked = logits.argmax(dim=-1)
                logp = torch.log_softmax(logits.float(), dim=-1)
                return picked, logp.gather(1, picked[:, None])[:, 0]
            return _sample(logits.float(), params, uniforms[rows, step])

        start, before = time.perf_counter(), static.steps_run
        decode(static, logits, size, n, steps, sample, accept)
        self.stats["forward_s"] += time.perf_counter() - start
        self.stats["forwards"] += static.steps_run - before

    @property
    def _lean(self) -> LeanDecoder | None:
        """A decoder for this generation's steps, or None to use the model's forward."""
        if not self.lean_decoding or not LeanDecoder.supports(self.model):
            return None
        return LeanDecoder(self.model)

    def _prefill_buckets(
        self,
        ids: torch.Tensor,
        mask: torch.Tensor,
        positions: torch.Tensor,
        buckets: list[list[int]],
    ) -> tuple[torch.Tensor, Any]:
        """Prefill rows of similar length together, then join their caches, left-padded.

        One forward over prompts of very different lengths spends most of its work on
        padding; a bucket's rows are only padded to the bucket's longest. The joined
        cache holds zeros where a row had no token, and the attention mask hides them,
        exactly as if the whole batch had been prefilled at once.
        """
        import torch
        from transformers import DynamicCache

        width = ids.shape[1]
        last_logits: list[torch.Tensor] = []
        parts: list[list[tuple[torch.Tensor, torch.Tensor]]] = []
        order: list[int] = []
        for rows in buckets:
            index = torch.tensor(rows, device=ids.device)
            w = int(mask[index].sum(-1).max())  # the bucket's longest prompt
            sub_mask = mask[index, width - w :]
            padded = bool((sub_mask == 0).any())
            logits, cache = self._forward(
                ids[index, width - w :],
                sub_mask if padded else None,
                positions[index, width - w :],
                None,
            )
            if any(type(layer).__name__ != "DynamicLayer" for layer in cache.layers):
                raise _CannotJoin
            last_logits.append(logits)
            parts.append([(layer.keys, layer.values) for layer in cache.layers])
            order += rows
        layers = []
        for k in range(len(parts[0])):
            keys = [_left_pad(part[k][0], width) for part in parts]
            values = [_left_pad(part[k][1], width) for part in parts]
            layers.append((torch.cat(keys), torch.cat(values)))
        back = torch.empty(len(order), dtype=torch.long, device=ids.device)
        back[torch.tensor(order, device=ids.device)] = torch.arange(len(order), device=ids.device)
        joined = [(k_[back], v_[back]) for k_, v_ in layers]
        return torch.cat(last_logits)[back], DynamicCache(joined)

    def _forward(
        self, ids: torch.Tensor, mask: torch.Tensor | None, positions: torch.Tensor, cache: Any
    ) -> tuple[torch.Tensor, Any]:
        """Next-token logits at the last position, and the updated KV cache."""
        start = time.perf_counter()
        out = self.model(
            input_ids=ids,
            attention_mask=mask,
            position_ids=positions,
            use_cache=True,
            logits_to_keep=1,
            **cache_kwargs(cache),
        )
        self.stats["forward_s"] += time.perf_counter() - start
        self.stats["forwards"] += 1
        return out.logits[:, -1, :], output_cache(out)

    def _step_mask(self, mask: torch.Tensor) -> torch.Tensor:
        """The attention mask of a one-token decoding step.

        With SDPA attention the 4D boolean mask is built here directly (one query sees
        every real key: causality adds nothing), which transformers passes through
        as is instead of rebuilding it from the 2D mask at every step.
        """
        if getattr(self.model.config, "_attn_implementation", None) == "sdpa":
            return mask[:, None, None, :].bool()
        return mask

    def _stopped(self, tokens: list[int], stop: tuple[str, ...]) -> bool:
        """Whether the newest token completed a stop string.

        Only a tail of the tokens is decoded (a byte-level token can be a quarter of a
        character, so 4 tokens a character, plus slack), which keeps long generations
        linear; earlier completions were caught on earlier steps.
        """
        window = 4 * max(len(s) for s in stop) + 8
        text = self.tokenizer.decode(tokens[-window:], skip_special_tokens=True)
        return any(s in text for s in stop)

    def _finish(
        self, tokens: list[int], logps: list[float], reason: str, params: SamplingParams
    ) -> Generation:
        body = tokens[:-1] if tokens and tokens[-1] in self.eos_token_ids else tokens
        text = self.tokenizer.decode(body, skip_special_tokens=True)
        cuts = [text.find(s) for s in params.stop if s in text]
        if cuts:
            text = text[: min(cuts)]
        return Generation(
            token_ids=tokens,
            logprobs=logps,
            text=text,
            finish_reason="stop" if reason == "stop" else "length",
        )

    # -- score ---------------------------------------------------------------------

    def score(self, prompt_ids: Sequence[int], candidates: Sequence[Sequence[int]]) -> list[float]:
        """The sum of log-probs of each candidate's tokens after ``prompt_ids``.

        One forward over ``prompt + candidate`` rows, right-padded (split by
        ``max_batch_size``): each row is computed as a lone forward would compute it, so
        the sums match an independent ``log_softmax`` of the logits to float32 precision.
        An empty candidate scores 0.0.
        """
        import torch

        prompt = self._check_ids(prompt_ids, "prompt_ids")
        if isinstance(candidates, (str, bytes)):
            raise ValueError("candidates must be a list of token-id lists")
        cands = [
            self._check_ids(c, f"candidates[{i}]", empty_ok=True) for i, c in enumerate(candidates)
        ]
        scores = [0.0] * len(cands)
        todo = [i for i, c in enumerate(cands) if c]
        size = len(prompt)
        with torch.inference_mode():
            for start in range(0, len(todo), self.max_batch_size):
                chunk = todo[start : start + self.max_batch_size]
                width = max(len(cands[i]) for i in chunk)
                ids = torch.full((len(chunk), size + width), self._pad_id, dtype=torch.long)
                valid = torch.zeros((len(chunk), width), dtype=torch.bool)
                ids[:, :size] = torch.tensor(prompt, dtype=torch.long)
                for j, i in enumerate(chunk):
                    ids[j, size : size + len(cands[i])] = torch.tensor(cands[i], dtype=torch.long)
                    valid[j, : len(cands[i])] = True
                ids, valid = ids.to(self.device), valid.to(self.device)
                begin = time.perf_counter()
                # Pads sit after every real token, so the causal mask alone keeps them out;
                # logits only for the positions that predict candidate tokens.
                logits = self.model(input_ids=ids, use_cache=False, logits_to_keep=width + 1).logits
                self.stats["forward_s"] += time.perf_counter() - begin
                self.stats["forwards"] += 1
                logp = torch.log_softmax(logits[:, :width].float(), dim=-1)
                picked = logp.gather(2, ids[:, size:, None])[..., 0].double()
                for i, value in zip(chunk, (picked * valid).sum(dim=1).tolist(), strict=True):
                    scores[i] = value
        return scores

    # -- weights -------------------------------------------------------------------

    def load_weights(self, weights: Mapping[str, Any] | Any) -> None:
        """Copy new weights into the model in place (trainers call this after an update).

        Args:
            weights: a state dict (name -> tensor; a subset updates just those) or a
                model with the same parameter names (e.g. a peft model after
                ``merge_and_unload()``).

        Raises:
            ValueError: an unknown name or a shape mismatch.

        """
        import torch

        if isinstance(weights, torch.nn.Module):
            weights = weights.state_dict()
        if not isinstance(weights, Mapping):
            raise ValueError(
                f"load_weights takes a state dict or a model, got {type(weights).__name__}"
            )
        own = self.model.state_dict()
        unknown = [k for k in weights if k not in own]
        if unknown:
            raise ValueError(f"load_weights: the model has no weight named {unknown[0]!r}")
        with torch.no_grad():
            for name, value in weights.items():
                target = own[name]
                if tuple(value.shape) != tuple(target.shape):
                    raise ValueError(
                        f"load_weights: {name!r} has shape {tuple(value.shape)}, "
                        f"the model's is {tuple(target.shape)}"
                    )
                target.copy_(value.to(device=target.device, dtype=target.dtype))

    # -- helpers -------------------------------------------------------------------

    def _check_ids(self, ids: Sequence[int], what: str, empty_ok: bool = False) -> list[int]:
        return check_token_ids(ids, what, empty_ok=empty_ok, vocab_size=self._vocab_size)


def _sample(
    logits: torch.Tensor, params: SamplingParams, uniforms: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """One token per row from the tempered, top-k / top-p truncated distribution.

    Inverse-CDF sampling with one given uniform per row, so each row's draw comes from
    its own random stream. Returns the tokens and their log-probs under that same
    distribution (what a learner's importance ratio divides by), not the raw logits'.
    """
    import torch

    scaled = logits / params.temperature
    vocab = scaled.shape[-1]
    if 0 < params.top_k < vocab:
        kth = torch.topk(scaled, params.top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth, float("-inf"))
    probs = torch.softmax(scaled.double(), dim=-1)
    if params.top_p < 1:
        sorted_p, order = torch.sort(probs, dim=-1, descending=True, stable=True)
        # Keep the smallest head whose mass reaches top_p: drop tokens whose preceding mass does.
        drop = sorted_p.cumsum(-1) - sorted_p >= params.top_p
        probs = torch.zeros_like(probs).scatter(1, order, sorted_p.masked_fill(drop, 0.0))
        scaled = scaled.masked_fill(torch.zeros_like(drop).scatter(1, order, drop), float("-inf"))
    cdf = probs.cumsum(dim=-1)
    picked = torch.searchsorted(cdf, uniforms[:, None] * cdf[:, -1:], right=True)[:, 0]
    picked = picked.clamp(max=vocab - 1)
    # The log-prob in the learner's arithmetic (float log_softmax of logits / T, over the
    # tokens kept): with the same weights the importance ratio is 1 to the last bit.
    logp = torch.log_softmax(scaled, dim=-1).gather(1, picked[:, None])[:, 0]
    return picked, logp


def _restrict(logits: torch.Tensor, rows: list[tuple[int, list[int]]]) -> torch.Tensor:
    """``logits`` with every token but the allowed ones set to -inf in the given rows."""
    import torch

    keep = torch.ones_like(logits, dtype=torch.bool)
    for j, allowed in rows:
        keep[j] = False
        keep[j, torch.tensor(allowed, dtype=torch.long, device=logits.device)] = True
    return logits.masked_fill(~keep, float("-inf"))


def _depth(node: dict[int, Any]) -> int:
    """The length of the longest sequence in a choice tree."""
    return 1 + max(_depth(child) for child in node.values()) if node else 0


class _CannotJoin(Exception):
    """The model's KV cache is not plain per-layer tensors, so buckets cannot be joined."""


def _buckets(lengths: list[int]) -> list[list[int]]:
    """Rows grouped by prompt length so that prefilling each group wastes little padding.

    Rows sorted by length are cut where the next row is over 1.5x the group's shortest
    (and a group would hold at least 4 rows, so small batches stay one forward).
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    groups: list[list[int]] = [[]]
    for i in order:
        group = groups[-1]
        if len(group) >= 4 and lengths[i] > 1.5 * lengths[group[0]]:
            groups.append([i])
        else:
            group.append(i)
    return groups


def _left_pad(x: torch.Tensor, width: int) -> torch.Tensor:
    """``x`` ([batch, heads, length, dim]) with zeros put before its positions up to ``width``."""
    import torch

    short = width - x.shape[2]
    if short == 0:
        return x
    return torch.cat([x.new_zeros((*x.shape[:2], short, x.shape[3])), x], dim=2)


def _row_generator(seed: int, row: int) -> torch.Generator:
    import torch

    digest = hashlib.blake2b(f"{seed}:{row}".encode(), digest_size=8).digest()
    return torch.Generator().manual_seed(int.from_bytes(digest, "little") >> 1)


def _is_path(value: object) -> bool:
    return isinstance(value, (str, os.PathLike))


def _model_dir(path: str | os.PathLike[str]) -> Path:
    directory = Path(path).expanduser()
    if not directory.exists():
        raise PolicyError(f"model directory {str(directory)!r} does not exist")
    if not directory.is_dir():
        raise PolicyError(f"model path {str(directory)!r} is not a directory")
    if not (directory / "config.json").is_file():
        raise PolicyError(
            f"{str(directory)!r} has no config.json: not a saved transformers model "
            "(save one with save_pretrained, or build one with turngym.sdk.models.build_tiny_model)"
        )
    return directory


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:300]}" if text else type(error).__name__


def _load_model(directory: Path, dtype: Any) -> Any:
    from transformers import AutoModelForCausalLM

    try:
        with quiet():
            return AutoModelForCausalLM.from_pretrained(directory, dtype=dtype)
    except Exception as error:  # transformers raises many kinds; the user needs one line
        raise PolicyError(
            f"cannot load a model from {str(directory)!r}: {_one_line(error)}"
        ) from None


def _load_tokenizer(source: str | os.PathLike[str]) -> Any:
    from transformers import AutoTokenizer

    directory = Path(source).expanduser()
    if not directory.is_dir():
        raise PolicyError(f"tokenizer directory {str(directory)!r} does not exist")
    try:
        return AutoTokenizer.from_pretrained(directory)
    except Exception as error:
        raise PolicyError(
            f"cannot load a tokenizer from {str(directory)!r}: {_one_line(error)}"
        ) from None


def _resolve_dtype(dtype: object) -> Any:
    import torch

    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype
    if isinstance(dtype, str) and dtype.removeprefix("torch.") in _DTYPES:
        return getattr(torch, dtype.removeprefix("torch."))
    raise ValueError(f"dtype must be one of {', '.join(_DTYPES)} or a torch.dtype, got {dtype!r}")


def _device(device: str | torch.device) -> torch.device:
    """``device`` as a ``torch.device`` that exists here, or a one-line error."""
    import torch

    try:
        target = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise ValueError(f"device must be like 'cpu', 'cuda' or 'cuda:1', got {device!r}") from (
            error
        )
    if target.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise PolicyError(f"device {str(target)!r} asked for, but CUDA is not available here")
        if target.index is not None and target.index >= count:
            raise PolicyError(f"device {str(target)!r} asked for, but there are {count} GPU(s)")
    elif target.type not in ("cpu", "mps"):
        raise ValueError(f"device must be 'cpu', 'cuda[:N]' or 'mps', got {device!r}")
    return target


def _default_device() -> torch.device:
    import torch

    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _default_dtype(device: torch.device) -> torch.dtype:
    import torch

    if device.type == "cuda" and torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float32


def _eos_ids(model: Any, tokenizer: Any) -> tuple[int, ...]:
    """EOS from the tokenizer and the generation config, plus chat end-of-turn tokens."""
    ids: set[int] = set()
    if tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    config = getattr(model, "generation_config", None)
    eos = getattr(config, "eos_token_id", None)
    for value in eos if isinstance(eos, (list, tuple)) else [eos]:
        if value is not None:
            ids.add(int(value))
    vocab = tokenizer.get_vocab()
    ids.update(vocab[t] for t in _END_TOKENS if t in vocab)
    return tuple(sorted(ids))

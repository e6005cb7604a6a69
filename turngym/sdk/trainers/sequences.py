"""Training sequences as tensors: per-token log-probs under a model, padded value rows.

``token_logprobs`` is the one forward pass every policy-gradient trainer needs: the
log-prob (and optionally the entropy) of each loss token of right-padded sequences,
at a sampling temperature, renormalised at guided-choice positions over the tokens
that were allowed. The LM head runs only where an action token is predicted, so the
prompt positions of a long conversation never hold length x vocab logits, and the
tokens every sequence of a batch starts with (the chat template and a system prompt,
repeated in every turn's prompt) run once: their KV cache is copied to each row and
only the rest runs per row, with gradients through the shared part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from turngym.hf_compat import cache_kwargs, output_cache
from turngym.sdk.batches import TrainSequence

if TYPE_CHECKING:
    import torch

__all__ = ["decoder_and_head", "pad_values", "shared_prefix", "stack_rows", "token_logprobs"]

MIN_SHARED_PREFIX = 16
"""Shorter common prefixes run per row: a shared run would save less than it costs."""


def decoder_and_head(model: Any) -> tuple[Any, Any] | None:
    """The causal LM's decoder stack and output head, or None when it has no such split."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model  # peft
    try:
        decoder, head = base.get_decoder(), base.get_output_embeddings()
    except (AttributeError, NotImplementedError):
        return None
    if decoder is None or decoder is base or head is None:
        return None
    return decoder, head


def token_logprobs(
    model: Any,
    batch: Sequence[TrainSequence],
    *,
    pad_id: int,
    temperature: float,
    device: Any,
    want_entropy: bool = False,
    share_prefix: bool = True,
    split: bool = True,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Log-probs (and entropies) of each sequence's loss tokens, ``[batch, length]``.

    Returns ``(logprobs, mask, entropy)``; both value tensors are 0 off the mask, and
    the mask is the sequences' loss masks (the first position never counts: nothing
    predicts it). With ``share_prefix`` the tokens all sequences start with run once
    (see ``shared_prefix``); the result matches the row-by-row forward to float
    precision. ``split=False`` always runs the whole model (an FSDP-sharded model must be
    called at its root, whose hooks gather the embedding and head weights).
    """
    import torch

    width = max(len(s.input_ids) for s in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    attn = torch.zeros((len(batch), width), dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.bool)
    for r, s in enumerate(batch):
        ids[r, : len(s.input_ids)] = torch.tensor(s.input_ids)
        attn[r, : len(s.input_ids)] = 1
        mask[r, : len(s.loss_mask)] = torch.tensor(s.loss_mask, dtype=torch.bool)
    ids, attn, mask = ids.to(device), attn.to(device), mask.to(device)
    mask[:, 0] = False
    rows, cols = mask.nonzero(as_tuple=True)
    parts = decoder_and_head(model) if split else None
    shared = shared_prefix(batch, int(cols.min()) - 1) if share_prefix and len(cols) else 0
    if parts is not None and shared >= MIN_SHARED_PREFIX:
        decoder, head = parts
        cache = output_cache(decoder(input_ids=ids[:1, :shared], use_cache=True))
        cache.batch_select_indices(torch.zeros(len(batch), dtype=torch.long, device=device))
        hidden = decoder(
            input_ids=ids[:, shared:],
            attention_mask=attn,
            position_ids=torch.arange(shared, width, device=device).expand(len(batch), -1),
            use_cache=False,
            **cache_kwargs(cache),
        )[0]
        picked = head(hidden[rows, cols - 1 - shared]).float() / temperature
    elif parts is not None:
        decoder, head = parts
        hidden = decoder(input_ids=ids, attention_mask=attn, use_cache=False)[0]
        picked = head(hidden[rows, cols - 1]).float() / temperature
    else:
        logits = model(input_ids=ids, attention_mask=attn, use_cache=False).logits
        picked = logits[rows, cols - 1].float() / temperature
    guided = [(r, p, a) for r, s in enumerate(batch) for p, a in s.allowed]
    if guided:
        where = {(int(r), int(p)): k for k, (r, p) in enumerate(zip(rows, cols, strict=True))}
        keep = torch.ones_like(picked, dtype=torch.bool)
        for r, p, allowed in guided:
            k = where[r, p]
            keep[k] = False
            keep[k, torch.tensor(allowed, device=picked.device)] = True
        picked = picked.masked_fill(~keep, float("-inf"))
    logp_all = torch.log_softmax(picked, dim=-1)
    chosen = logp_all.gather(1, ids[rows, cols][:, None])[:, 0]
    out = torch.zeros(mask.shape, dtype=chosen.dtype, device=device)
    out[rows, cols] = chosen
    entropy = None
    if want_entropy:
        # exp(-inf) * -inf is NaN: a disallowed token contributes 0, not NaN
        ent = -(logp_all.exp() * logp_all.nan_to_num(neginf=0.0)).sum(-1)
        entropy = torch.zeros_like(out)
        entropy[rows, cols] = ent
    return out, mask, entropy


def shared_prefix(batch: Sequence[TrainSequence], limit: int) -> int:
    """How many leading tokens every sequence of ``batch`` has in common (at most ``limit``).

    ``limit`` keeps the prefix before the first position whose hidden state a loss
    token needs. A single sequence shares nothing (there is no one to share with).

    >>> a = TrainSequence([1, 2, 3, 4], [0, 0, 1, 1], [], [0.0] * 4, episode=0, packed=False)
    >>> b = TrainSequence([1, 2, 5], [0, 0, 1], [], [0.0] * 3, episode=1, packed=False)
    >>> shared_prefix([a, b], limit=10), shared_prefix([a, b], limit=1), shared_prefix([a], 10)
    (2, 1, 0)
    """
    if len(batch) < 2:
        return 0
    first = batch[0].input_ids
    n = min(limit, *(len(s.input_ids) for s in batch))
    for k in range(max(n, 0)):
        if any(s.input_ids[k] != first[k] for s in batch[1:]):
            return k
    return max(n, 0)


def pad_values(rows: Sequence[Sequence[float]], device: Any) -> torch.Tensor:
    """Float rows right-padded with 0 into one ``[len(rows), longest]`` tensor."""
    import torch

    out = torch.zeros((len(rows), max(len(r) for r in rows)), dtype=torch.float32)
    for r, values in enumerate(rows):
        if values:
            out[r, : len(values)] = torch.tensor(values, dtype=torch.float32)
    return out.to(device)


def stack_rows(rows: Sequence[torch.Tensor], width: int) -> torch.Tensor:
    """1-D tensors right-padded with 0 to ``width`` and stacked."""
    import torch

    out = torch.zeros((len(rows), width), dtype=rows[0].dtype, device=rows[0].device)
    for r, row in enumerate(rows):
        out[r, : row.shape[0]] = row
    return out

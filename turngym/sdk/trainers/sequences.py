"""Training sequences as tensors: per-token log-probs under a model, padded value rows.

``token_logprobs`` is the one forward pass every policy-gradient trainer needs: the
log-prob (and optionally the entropy) of each loss token of right-padded sequences,
at a sampling temperature, renormalised at guided-choice positions over the tokens
that were allowed. The LM head runs only where an action token is predicted, so the
prompt positions of a long conversation never hold length x vocab logits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from turngym.sdk.batches import TrainSequence

if TYPE_CHECKING:
    import torch

__all__ = ["decoder_and_head", "pad_values", "stack_rows", "token_logprobs"]


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
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Log-probs (and entropies) of each sequence's loss tokens, ``[batch, length]``.

    Returns ``(logprobs, mask, entropy)``; both value tensors are 0 off the mask, and
    the mask is the sequences' loss masks (the first position never counts: nothing
    predicts it).
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
    parts = decoder_and_head(model)
    if parts is not None:
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

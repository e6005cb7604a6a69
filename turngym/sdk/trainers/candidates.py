"""GLAM's batched candidate scoring: each prompt runs once, its candidates continue its cache.

A candidate-scoring policy (GLAM) needs, for every state, the LM's hidden states over
``prompt + candidate`` for each legal action. Running each such row in full repeats the
prompt once per candidate; ``shared_prompt_forward`` runs each prompt once, copies its
KV cache once per candidate and runs only the candidate tokens on top, in buckets of
prompts of similar length. The result is differentiable (trainers backpropagate an
actor or critic loss through it) and matches the row-by-row forward to float precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from turngym.hf_compat import cache_kwargs, output_cache

if TYPE_CHECKING:
    import torch

__all__ = ["SCORES", "candidate_scores", "shared_prompt_forward"]

SCORES = ("sum", "mean")
"""How ``candidate_scores`` turns token log-probs into a candidate's score."""


def shared_prompt_forward(
    decoder: Any, prompts: Sequence[list[int]], cands: Sequence[list[int]], owner: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """GLAM's batched scoring: each prompt runs once, its candidates continue its KV cache.

    ``owner[r]`` is the prompt of candidate row ``r``. Returns ``pred`` [R, C, H], the
    hidden states that predict each candidate token (the prompt's last one, then the
    candidate's own), and ``last`` [R, H], the hidden state at each candidate's last
    token (what the critic reads: it has seen the prompt and the whole candidate).
    Both stay differentiable through the cache. Prompts of similar length share a
    forward (little padding); rows are right-padded, so a padding query always has a
    real token to attend to (a left-padded one would not).
    """
    import torch

    device = owner.device
    width = max(len(c) for c in cands)
    owners = owner.tolist()
    preds, lasts, order = [], [], []
    for bucket in _length_buckets([len(p) for p in prompts]):
        local = {s: k for k, s in enumerate(bucket)}
        rows = [r for r, s in enumerate(owners) if s in local]
        pred, last = _prompt_bucket(
            decoder,
            [prompts[s] for s in bucket],
            [cands[r] for r in rows],
            torch.tensor([local[owners[r]] for r in rows], device=device),
            width,
        )
        preds.append(pred)
        lasts.append(last)
        order += rows
    back = torch.empty(len(order), dtype=torch.long, device=device)
    back[torch.tensor(order, device=device)] = torch.arange(len(order), device=device)
    return torch.cat(preds)[back], torch.cat(lasts)[back]


def candidate_scores(
    head: Any, pred: torch.Tensor, cands: Sequence[list[int]], score: str = "sum"
) -> torch.Tensor:
    """Each candidate's token log-probs [R] from ``shared_prompt_forward``'s ``pred``.

    ``score="sum"`` (GLAM's) sums them: log p(candidate | prompt). ``"mean"`` divides by
    the candidate's length, so that an untrained LM (about -log |V| per token) does not
    put nearly all the mass on the shortest candidate. The output head runs only on the
    positions that predict a candidate token (never length x vocab logits for padding).
    """
    import torch

    valid = torch.zeros(pred.shape[:2], dtype=torch.bool, device=pred.device)
    for r, cand in enumerate(cands):
        valid[r, : len(cand)] = True
    logits = head(pred[valid]).float()
    tokens = torch.tensor([t for cand in cands for t in cand], device=pred.device)
    picked = torch.log_softmax(logits, -1)[torch.arange(len(tokens)), tokens]
    rows = valid.nonzero()[:, 0]
    summed = torch.zeros(len(cands), device=pred.device).index_add(0, rows, picked)
    if score == "mean":
        return summed / valid.sum(-1)
    return summed


def _length_buckets(lengths: Sequence[int], slack: float = 1.25) -> list[list[int]]:
    """Indices grouped by length, shortest first, each group within ``slack`` x its shortest.

    >>> _length_buckets([50, 300, 60, 55, 290])
    [[0, 3, 2], [4, 1]]
    """
    buckets: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        if buckets and lengths[i] <= slack * lengths[buckets[-1][0]]:
            buckets[-1].append(i)
        else:
            buckets.append([i])
    return buckets


def _prompt_bucket(
    decoder: Any,
    prompts: Sequence[list[int]],
    cands: Sequence[list[int]],
    owner: torch.Tensor,
    width: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``shared_prompt_forward`` for one bucket of prompts (``pred`` padded to ``width``)."""
    import torch

    device = owner.device
    plen = torch.tensor([len(p) for p in prompts], device=device)
    ids = torch.zeros((len(prompts), int(plen.max())), dtype=torch.long)
    attn = torch.zeros_like(ids)
    for s, p in enumerate(prompts):
        ids[s, : len(p)] = torch.tensor(p)
        attn[s, : len(p)] = 1
    ids, attn = ids.to(device), attn.to(device)
    out = decoder(input_ids=ids, attention_mask=attn, use_cache=True)
    cache = output_cache(out)
    cache.batch_select_indices(owner)  # one copy of its prompt's cache per candidate
    clen = torch.tensor([len(c) for c in cands], device=device)
    cids = torch.zeros((len(cands), width), dtype=torch.long)
    cattn = torch.zeros_like(cids)
    for r, c in enumerate(cands):
        cids[r, : len(c)] = torch.tensor(c)
        cattn[r, : len(c)] = 1
    cids, cattn = cids.to(device), cattn.to(device)
    hidden = decoder(
        input_ids=cids,
        attention_mask=torch.cat([attn[owner], cattn], dim=1),
        position_ids=plen[owner][:, None] + torch.arange(width, device=device),
        use_cache=True,
        **cache_kwargs(cache),
    ).last_hidden_state
    first = out.last_hidden_state[owner, plen[owner] - 1]  # predicts each candidate's first token
    pred = torch.cat([first[:, None], hidden[:, :-1]], dim=1)
    last = hidden[torch.arange(len(cands), device=device), clen - 1]
    return pred, last

"""The policy-gradient loss of turngym's GRPO trainers, as one pure torch function.

``policy_loss`` is the token-level clipped-ratio objective (PPO/GRPO) with DAPO's
clip-higher (``clip_low`` / ``clip_high``), three loss aggregations, an optional KL
penalty to a reference policy (the k3 estimator), an optional entropy bonus and an
optional truncated importance-sampling weight per token (for rollouts sampled by another
engine than the learner: vLLM, a server). Masked tokens (prompts, observations, padding)
contribute nothing and get exactly zero gradient.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import torch

__all__ = ["Aggregation", "policy_loss", "truncated_is_weights"]

Aggregation = Literal["token_mean", "seq_mean", "dr_grpo"]


def policy_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    clip_low: float = 0.2,
    clip_high: float = 0.28,
    aggregation: Aggregation = "token_mean",
    ref_logprobs: torch.Tensor | None = None,
    beta: float = 0.0,
    entropy: torch.Tensor | None = None,
    entropy_coef: float = 0.0,
    max_tokens: int | None = None,
    is_weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The clipped policy loss over ``[batch, tokens]`` tensors, and a few metrics.

    Args:
        logprobs: the current policy's log-probs of the taken tokens (with gradients).
        old_logprobs: the behaviour policy's log-probs of the same tokens.
        advantages: one per sequence (``[batch]``) or one per token (``[batch, tokens]``).
        mask: 1 on the tokens the loss is taken over (the agent's action tokens), else 0.
        clip_low: the ratio's lower clip is ``1 - clip_low``.
        clip_high: its upper clip is ``1 + clip_high`` (DAPO's clip-higher: above clip_low).
        aggregation: ``"token_mean"`` (mean over all unmasked tokens of the batch),
            ``"seq_mean"`` (mean over sequences of each one's token mean) or
            ``"dr_grpo"`` (sum over tokens divided by ``batch x max_tokens``, a constant,
            so long and short answers are not weighted differently; Dr. GRPO takes the
            generation budget, as ``GRPOTrainer`` does with ``max_new_tokens``).
        ref_logprobs: the reference policy's log-probs (for the KL penalty).
        beta: the KL weight: adds ``beta`` x the k3 estimate of KL(policy || reference).
        entropy: the policy's per-token entropy.
        entropy_coef: subtracts ``entropy_coef`` x the entropy (a bonus for exploring).
        max_tokens: the constant of ``dr_grpo``; None: the tensors' token dimension.
        is_weights: per-token weights of the clipped term (no gradient flows through
            them): truncated importance sampling, ``min(pi_old / pi_behaviour, cap)``,
            when the tokens were sampled by an engine whose log-probs differ from the
            learner's (``truncated_is_weights``).

    Returns:
        ``(loss, metrics)`` with ``clip_fraction``, ``ratio_mean`` and ``kl``.

    """
    import torch

    if aggregation not in ("token_mean", "seq_mean", "dr_grpo"):
        raise ValueError(
            f"aggregation must be 'token_mean', 'seq_mean' or 'dr_grpo', got {aggregation!r}"
        )
    if clip_low < 0 or clip_high < 0 or clip_low >= 1:
        raise ValueError(f"need 0 <= clip_low < 1 and clip_high >= 0, got {clip_low}, {clip_high}")
    mask = mask.to(logprobs.dtype)
    adv = advantages[:, None] if advantages.dim() == 1 else advantages
    # Masked positions must not reach exp(): a huge difference there would give inf * 0.
    delta = torch.where(mask > 0, logprobs - old_logprobs, torch.zeros_like(logprobs))
    ratio = torch.exp(delta)
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1 - clip_low, 1 + clip_high) * adv
    per_token = -torch.minimum(unclipped, clipped)
    if is_weights is not None:
        per_token = per_token * is_weights.detach().to(per_token.dtype)
    kl = torch.zeros_like(per_token)
    if ref_logprobs is not None and beta:
        log_ratio = torch.where(mask > 0, ref_logprobs - logprobs, torch.zeros_like(logprobs))
        kl = torch.exp(log_ratio) - log_ratio - 1  # k3: unbiased, always >= 0
        per_token = per_token + beta * kl
    if entropy is not None and entropy_coef:
        per_token = per_token - entropy_coef * entropy
    per_token = per_token * mask
    tokens = mask.sum()
    if aggregation == "token_mean":
        loss = per_token.sum() / tokens.clamp(min=1)
    elif aggregation == "seq_mean":
        per_seq = per_token.sum(-1) / mask.sum(-1).clamp(min=1)
        loss = per_seq[mask.sum(-1) > 0].mean() if bool((mask.sum(-1) > 0).any()) else per_seq.sum()
    else:
        width = max_tokens if max_tokens is not None else per_token.shape[-1]
        loss = per_token.sum() / (per_token.shape[0] * width)
    with torch.no_grad():
        n = float(tokens.clamp(min=1))
        was_clipped = ((ratio < 1 - clip_low) | (ratio > 1 + clip_high)).to(mask.dtype) * mask
        metrics = {
            "clip_fraction": float(was_clipped.sum()) / n,
            "ratio_mean": float((ratio * mask).sum()) / n,
            "kl": float((kl * mask).sum()) / n,
        }
    return loss, metrics


def truncated_is_weights(
    old_logprobs: torch.Tensor, behaviour_logprobs: torch.Tensor, mask: torch.Tensor, cap: float
) -> torch.Tensor:
    """``min(exp(old - behaviour), cap)`` on the mask, 1 elsewhere (truncated IS).

    ``old_logprobs`` are the learner's log-probs of the sampled tokens before the update,
    ``behaviour_logprobs`` those the sampling engine reported. Where the engines agree
    the weight is 1; a token the engine made likelier than the learner would is
    weighted down, one it made less likely up, at most to ``cap``.
    """
    import torch

    if cap <= 0:
        raise ValueError(f"cap must be > 0, got {cap!r}")
    gap = torch.where(mask > 0, old_logprobs - behaviour_logprobs, torch.zeros_like(old_logprobs))
    return torch.exp(gap).clamp(max=cap).detach()

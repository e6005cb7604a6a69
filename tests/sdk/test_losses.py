"""policy_loss against hand-computed values; masked tokens get exactly zero gradient."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="the loss needs torch (the llm extra)")

from turngym.sdk.losses import policy_loss, truncated_is_weights  # noqa: E402


def t(rows):
    return torch.tensor(rows, dtype=torch.float64)


def test_on_policy_loss_is_minus_the_mean_advantage():
    logp = t([[-1.0, -2.0], [-0.5, -0.5]])
    loss, m = policy_loss(logp, logp.clone(), t([2.0, -1.0]), t([[1, 1], [1, 0]]))
    # ratio 1 everywhere: per-token -A; tokens: 2, 2, -1 -> token mean = -(2 + 2 - 1) / 3
    assert loss.item() == pytest.approx(-1.0)
    assert m["clip_fraction"] == 0 and m["ratio_mean"] == pytest.approx(1.0)


def test_clip_higher_and_clip_low_by_hand():
    old = t([[0.0, 0.0]])
    new = t([[math.log(1.5), math.log(0.5)]])  # ratios 1.5 and 0.5
    # Token 1: A = +1, ratio 1.5 > 1.28 -> min(1.5, 1.28) = 1.28 -> -1.28.
    # Token 2: A = -1 (per-token), ratio 0.5 < 0.8 -> min(-0.5, -0.8) = -0.8 -> +0.8.
    loss, m = policy_loss(new, old, t([[1.0, -1.0]]), t([[1, 1]]), clip_low=0.2, clip_high=0.28)
    assert loss.item() == pytest.approx((-1.28 + 0.8) / 2)
    assert m["clip_fraction"] == 1.0


@pytest.mark.parametrize(
    ("aggregation", "want"),
    [
        ("token_mean", -(1 + 1 + 1 + 3) / 4),  # four unmasked tokens
        ("seq_mean", -((1 + 1 + 1) / 3 + 3 / 1) / 2),  # mean of per-sequence means
        ("dr_grpo", -(1 + 1 + 1 + 3) / (2 * 8)),  # batch x max_tokens
    ],
)
def test_aggregations(aggregation, want):
    logp = torch.zeros(2, 3, dtype=torch.float64)
    mask = t([[1, 1, 1], [1, 0, 0]])
    loss, _ = policy_loss(logp, logp, t([1.0, 3.0]), mask, aggregation=aggregation, max_tokens=8)
    assert loss.item() == pytest.approx(want)


def test_k3_kl_and_entropy_terms():
    logp = t([[math.log(0.5)]])
    ref = t([[math.log(0.25)]])
    # k3 = exp(ref - logp) - (ref - logp) - 1 = 0.5 - log(0.5) - 1
    k3 = 0.5 - math.log(0.5) - 1
    loss, m = policy_loss(logp, logp, t([0.0]), t([[1]]), ref_logprobs=ref, beta=0.1)
    assert loss.item() == pytest.approx(0.1 * k3) and m["kl"] == pytest.approx(k3)
    loss, _ = policy_loss(logp, logp, t([0.0]), t([[1]]), entropy=t([[2.0]]), entropy_coef=0.5)
    assert loss.item() == pytest.approx(-1.0)


def test_masked_tokens_get_exactly_zero_gradient():
    # Observation/prompt tokens are masked: even with wild log-probs there, no gradient.
    logp = t([[-1.0, -50.0, -0.3], [-2.0, -0.1, 40.0]]).requires_grad_()
    old = t([[-1.2, 0.0, -0.2], [-2.5, -0.3, -40.0]])
    mask = t([[1, 0, 1], [0, 1, 0]])
    loss, _ = policy_loss(logp, old, t([1.0, -2.0]), mask, ref_logprobs=old, beta=0.2)
    loss.backward()
    grad = logp.grad
    assert torch.all(grad[mask == 0] == 0)
    assert torch.all(grad[mask == 1] != 0)
    assert torch.isfinite(loss)


def test_truncated_importance_weights_by_hand():
    old = t([[math.log(0.5), math.log(0.5), -1.0]])
    behaviour = t([[math.log(0.25), math.log(0.5), -7.0]])  # ratios 2, 1 and e^6
    mask = t([[1, 1, 0]])
    weights = truncated_is_weights(old, behaviour, mask, cap=1.5)
    assert weights[0].tolist() == pytest.approx([1.5, 1.0, 1.0])  # capped; off the mask: 1
    # On-policy (ratio 1): the per-token loss is -w * A, so the token mean is -(1.5 + 1) / 2.
    loss, _ = policy_loss(old, old.clone(), t([1.0]), mask, is_weights=weights)
    assert loss.item() == pytest.approx(-(1.5 + 1.0) / 2)
    plain, _ = policy_loss(old, old.clone(), t([1.0]), mask, is_weights=torch.ones_like(old))
    assert plain.item() == pytest.approx(policy_loss(old, old.clone(), t([1.0]), mask)[0].item())
    with pytest.raises(ValueError, match="cap must be > 0"):
        truncated_is_weights(old, behaviour, mask, cap=0)


def test_bad_arguments():
    x = torch.zeros(1, 1)
    with pytest.raises(ValueError, match="aggregation must be"):
        policy_loss(x, x, torch.zeros(1), x, aggregation="sum")
    with pytest.raises(ValueError, match="clip_low"):
        policy_loss(x, x, torch.zeros(1), x, clip_low=1.0)

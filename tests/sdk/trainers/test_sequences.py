"""token_logprobs: the shared-prefix forward against the row-by-row one."""

from __future__ import annotations

import pytest

from turngym.sdk.batches import TrainSequence
from turngym.sdk.trainers import sequences

RULES = "Rules: answer with one word; the word must name a colour of the rainbow. " * 3


def batch(tokenizer, n: int = 5) -> list[TrainSequence]:
    """Rows with a long common prompt, different questions, answers of different lengths."""
    rows = []
    for k in range(n):
        prompt = tokenizer(f"{RULES}Question {k}: the sky at {k} o'clock?")["input_ids"]
        answer = tokenizer(" blue" * (k % 3 + 1))["input_ids"]
        ids = prompt + answer
        mask = [0] * len(prompt) + [1] * len(answer)
        rows.append(TrainSequence(ids, mask, [], [1.0] * len(ids), episode=k, packed=False))
    return rows


@pytest.mark.parametrize("lora", [0, 4])
def test_shared_prefix_matches_the_row_by_row_forward_and_gradients(rl_model_dir, lora):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(rl_model_dir)
    model = AutoModelForCausalLM.from_pretrained(rl_model_dir, dtype=torch.float32)
    if lora:
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=lora, target_modules="all-linear"))
    rows = batch(tokenizer)
    first_loss = min(s.loss_mask.index(1) for s in rows)
    assert sequences.shared_prefix(rows, first_loss - 1) >= sequences.MIN_SHARED_PREFIX
    results = []
    for share in (True, False):
        model.zero_grad(set_to_none=True)
        logp, mask, entropy = sequences.token_logprobs(
            model, rows, pad_id=0, temperature=0.7, device="cpu", want_entropy=True,
            share_prefix=share,
        )  # fmt: skip
        assert entropy is not None
        (logp.sum() + entropy.sum()).backward()
        grads = [p.grad.clone() for p in model.parameters() if p.grad is not None]
        results.append((logp.detach(), mask, entropy.detach(), grads))
    (fast, mask, fast_ent, fast_grads), (slow, slow_mask, slow_ent, slow_grads) = results
    assert torch.equal(mask, slow_mask) and int(mask.sum()) == sum(sum(s.loss_mask) for s in rows)
    torch.testing.assert_close(fast, slow, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(fast_ent, slow_ent, rtol=1e-5, atol=1e-5)
    assert len(fast_grads) == len(slow_grads) > 0
    for a, b in zip(fast_grads, slow_grads, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


def test_shared_prefix_stops_before_the_first_needed_hidden_state():
    a = TrainSequence([1, 2, 3, 4, 5], [0, 0, 0, 1, 1], [], [0.0] * 5, episode=0, packed=False)
    b = TrainSequence([1, 2, 3, 4, 6], [0, 0, 0, 0, 1], [], [0.0] * 5, episode=1, packed=False)
    assert sequences.shared_prefix([a, b], limit=10) == 4
    # the loss token at position 3 needs the hidden state at 2: the prefix stops there
    assert sequences.shared_prefix([a, b], limit=2) == 2
    assert sequences.shared_prefix([a], limit=10) == 0
    assert sequences.shared_prefix([a, b], limit=-1) == 0

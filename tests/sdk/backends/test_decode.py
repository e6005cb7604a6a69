"""LeanDecoder: which models take the lean path, and that it decodes exactly as the model."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForCausalLM

from turngym.sdk.backends.decode import LeanDecoder
from turngym.sdk.backends.hf import HFPolicy
from turngym.sdk.models import build_tiny_model
from turngym.sdk.policy import SamplingParams

TEXTS = (
    "You are on a frozen lake. Reach the goal.",
    "Hi",
    "Move left, right, up or down on the lake and reach the goal G without falling in.",
)
SAMPLED = SamplingParams(temperature=1.0, max_new_tokens=12, seed=3)


def _prompts(policy):
    tok = policy.tokenizer
    return [
        tok.apply_chat_template(
            [{"role": "user", "content": t}], add_generation_prompt=True, return_dict=False
        )
        for t in TEXTS
    ]


def _both_ways(policy, params=SAMPLED):
    """The generations with the lean decoder and with the model's own forward."""
    prompts = _prompts(policy)
    policy.lean_decoding = True
    lean = policy.generate(prompts, params)
    policy.lean_decoding = False
    try:
        plain = policy.generate(prompts, params)
    finally:
        policy.lean_decoding = True
    return lean, plain


def _assert_same(lean, plain):
    assert [g.token_ids for g in lean] == [g.token_ids for g in plain]
    for a, b in zip(lean, plain, strict=True):
        assert a.logprobs == pytest.approx(b.logprobs, abs=1e-5)
        assert a.finish_reason == b.finish_reason


@pytest.mark.parametrize(
    ("arch", "kv_heads"), [("qwen2", None), ("qwen2", 2), ("llama", None), ("llama", 1)]
)
def test_same_tokens_and_logprobs_as_the_model_forward(tmp_path, monkeypatch, arch, kv_heads):
    # Prompts of different lengths: left padding and masked keys in every step.
    path = build_tiny_model(tmp_path / arch, arch=arch, kv_heads=kv_heads, logit_std=1.0)
    policy = HFPolicy(path, device="cpu")
    assert LeanDecoder.supports(policy.model)
    fused = LeanDecoder(policy.model)  # plain projections: one matmul for q/k/v, gate/up
    assert all(w is not None for w in fused.qkv + fused.gate_up)
    steps = []
    real_step = LeanDecoder.step
    monkeypatch.setattr(
        LeanDecoder, "step", lambda self, *a: steps.append(1) or real_step(self, *a)
    )
    lean, plain = _both_ways(policy)
    assert len(steps) == SAMPLED.max_new_tokens - 1  # every step after the prefill was lean
    _assert_same(lean, plain)


def test_rows_that_stop_leave_the_lean_batch(tiny_model_dir):
    # A stop string ends rows at different steps: the lean cache drops them like the model's.
    policy = HFPolicy(tiny_model_dir, device="cpu")
    params = SamplingParams(temperature=1.0, max_new_tokens=16, seed=1, stop=("e",))
    lean, plain = _both_ways(policy, params)
    assert {g.finish_reason for g in lean} == {"stop", "length"} or len(
        {len(g.token_ids) for g in lean}
    ) > 1
    _assert_same(lean, plain)


def test_lora_model_decodes_with_its_adapters(tiny_model_dir):
    peft = pytest.importorskip("peft")
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    model = peft.get_peft_model(
        model,
        peft.LoraConfig(r=4, lora_alpha=8, target_modules="all-linear", init_lora_weights=False),
    )
    policy = HFPolicy(model, tokenizer=tiny_model_dir)
    assert LeanDecoder.supports(policy.model)
    assert LeanDecoder(policy.model).qkv[0] is None  # adapter layers are called as modules
    lean, plain = _both_ways(policy)
    _assert_same(lean, plain)
    with model.disable_adapter():  # the adapters change the tokens: they were applied
        without = policy.generate(_prompts(policy), SAMPLED)
    assert [g.logprobs for g in without] != [g.logprobs for g in lean]


def test_unsupported_models_keep_the_model_forward(tmp_path):
    gpt2 = HFPolicy(build_tiny_model(tmp_path / "gpt2", arch="gpt2"), device="cpu")
    assert not LeanDecoder.supports(gpt2.model)
    assert gpt2._lean is None
    qwen = AutoModelForCausalLM.from_pretrained(build_tiny_model(tmp_path / "q", seed=1))
    assert LeanDecoder.supports(qwen)
    qwen.config.rope_parameters = {**qwen.config.rope_parameters, "rope_type": "linear"}
    assert not LeanDecoder.supports(qwen)
    qwen.config.rope_parameters = {**qwen.config.rope_parameters, "rope_type": "default"}
    qwen.config.layer_types = ["sliding_attention"] * qwen.config.num_hidden_layers
    assert not LeanDecoder.supports(qwen)
    assert not LeanDecoder.supports(torch.nn.Linear(2, 2))


def test_a_full_cache_is_an_error_not_a_silent_overwrite(tiny_model_dir):
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    ids = torch.tensor([[1, 2, 3]])
    with torch.inference_mode():
        out = model(input_ids=ids, use_cache=True)
        decoder = LeanDecoder(model)
        decoder.start(out.past_key_values, capacity=4)
        decoder.step(torch.tensor([4]), torch.tensor([3]), None)
        with pytest.raises(ValueError, match="cache is full"):
            decoder.step(torch.tensor([5]), torch.tensor([4]), None)

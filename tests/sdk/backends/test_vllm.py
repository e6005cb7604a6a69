"""VLLMPolicy: a clear error without vllm; on a CUDA machine with vllm, parity with HFPolicy."""

from __future__ import annotations

import importlib.util

import pytest

from turngym.sdk.backends.vllm import VLLM_MISSING, VLLMPolicy
from turngym.sdk.policy import Policy, PolicyError, SamplingParams

HAS_VLLM = importlib.util.find_spec("vllm") is not None
needs_vllm = pytest.mark.skipif(
    not HAS_VLLM, reason="vllm is not installed (it needs CUDA: pip install 'turngym[vllm]')"
)


@pytest.mark.skipif(HAS_VLLM, reason="vllm is installed: the missing-vllm error cannot happen")
def test_without_vllm_construction_is_a_one_line_policy_error(tiny_model_dir):
    with pytest.raises(PolicyError) as info:
        VLLMPolicy(tiny_model_dir)
    assert str(info.value) == VLLM_MISSING


@pytest.fixture(scope="module")
def vllm_policy(tiny_model_dir):
    return VLLMPolicy(tiny_model_dir, dtype="float32", enforce_eager=True, seed=0)


@needs_vllm
@pytest.mark.gpu
def test_vllm_matches_hf_greedy_and_scores(vllm_policy, tiny_model_dir):
    from turngym.sdk.backends.hf import HFPolicy

    hf = HFPolicy(tiny_model_dir, dtype="float32")
    assert isinstance(vllm_policy, Policy)
    tok = hf.tokenizer
    prompts = [
        tok.apply_chat_template(
            [{"role": "user", "content": t}], add_generation_prompt=True, return_dict=False
        )
        for t in ("Move left.", "You are on a frozen lake. Reach the goal.")
    ]
    greedy = SamplingParams(temperature=0, max_new_tokens=8)
    ours = vllm_policy.generate(prompts, greedy)
    assert [g.token_ids for g in ours] == [g.token_ids for g in hf.generate(prompts, greedy)]
    for prompt, gen in zip(prompts, ours, strict=True):
        assert gen.logprob == pytest.approx(hf.score(prompt, [gen.token_ids])[0], abs=1e-3)
    candidates = [[5, 6], [42]]
    assert vllm_policy.score(prompts[0], candidates) == pytest.approx(
        hf.score(prompts[0], candidates), abs=1e-3
    )
    sampled = SamplingParams(max_new_tokens=8, seed=3)
    assert [g.token_ids for g in vllm_policy.generate(prompts, sampled)] == [
        g.token_ids for g in vllm_policy.generate(prompts, sampled)
    ]


@needs_vllm
@pytest.mark.gpu
def test_vllm_load_weights_swaps_in_another_model(vllm_policy, tiny_model_dir, tmp_path):
    from transformers import AutoModelForCausalLM

    from turngym.sdk.backends.hf import HFPolicy
    from turngym.sdk.models import build_tiny_model

    other_dir = build_tiny_model(tmp_path, vocab=tiny_model_dir, seed=1)
    prompt = [1, 2, 3, 4]
    greedy = SamplingParams(temperature=0, max_new_tokens=8)
    expected = HFPolicy(other_dir, dtype="float32").generate([prompt], greedy)[0].token_ids
    vllm_policy.load_weights(AutoModelForCausalLM.from_pretrained(other_dir).state_dict())
    assert vllm_policy.generate([prompt], greedy)[0].token_ids == expected

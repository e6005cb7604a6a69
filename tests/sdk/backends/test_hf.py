"""HFPolicy on a real tiny Qwen2 model (float32, CPU): generation, scoring, errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
import torch
from transformers import AutoModelForCausalLM

from turngym.sdk.backends.hf import HFPolicy
from turngym.sdk.models import build_tiny_model
from turngym.sdk.policy import Policy, PolicyError, SamplingParams

GREEDY = SamplingParams(temperature=0, max_new_tokens=24)
TEXTS = (
    "You are on a frozen lake. Reach the goal.",
    "Hi",
    "Move left, right, up or down on the lake and reach the goal G without falling in.",
    "a",
)


@pytest.fixture(scope="module")
def policy(tiny_model_dir):
    return HFPolicy(tiny_model_dir, device="cpu")


@pytest.fixture(scope="module")
def prompts(policy):
    tok = policy.tokenizer
    return [
        tok.apply_chat_template(
            [{"role": "user", "content": t}], add_generation_prompt=True, return_dict=False
        )
        for t in TEXTS
    ]


def reference_logprobs(model, prompt, continuation):
    """Per-token log-probs of ``continuation`` from one plain forward, no cache, no padding."""
    ids = torch.tensor([list(prompt) + list(continuation)])
    with torch.no_grad():
        logp = torch.log_softmax(model(ids).logits[0].float(), dim=-1)
    return [logp[len(prompt) - 1 + j, t].item() for j, t in enumerate(continuation)]


def test_is_a_policy(policy):
    assert isinstance(policy, Policy)
    assert policy.device == torch.device("cpu")
    assert policy.model.dtype == torch.float32
    assert policy.tokenizer.convert_tokens_to_ids("<|im_end|>") in policy.eos_token_ids


def test_round_trip_two_loads_agree(tiny_model_dir, policy, prompts):
    other = HFPolicy(tiny_model_dir, device="cpu")
    assert [g.token_ids for g in other.generate(prompts, GREEDY)] == [
        g.token_ids for g in policy.generate(prompts, GREEDY)
    ]
    sampled = SamplingParams(temperature=1.0, max_new_tokens=16, seed=3)
    a = [g.token_ids for g in policy.generate(prompts, sampled)]
    assert a == [g.token_ids for g in other.generate(prompts, sampled)]
    b = [g.token_ids for g in policy.generate(prompts, SamplingParams(max_new_tokens=16, seed=4))]
    assert a != b


def test_greedy_batched_equals_alone(policy, prompts):
    batched = policy.generate(prompts, GREEDY)
    for prompt, gen in zip(prompts, batched, strict=True):
        alone = policy.generate([prompt], GREEDY)[0]
        assert alone.token_ids == gen.token_ids
        assert alone.text == gen.text
        assert alone.logprobs == pytest.approx(gen.logprobs, abs=1e-5)


def test_bucketed_prefill_matches_one_padded_prefill(tiny_model_dir, policy):
    # 12 prompts from 6 to ~100 tokens: prefilled in several length buckets whose caches
    # are joined; the result must be what one left-padded prefill of all of them gives.
    from turngym.sdk.backends.hf import _buckets

    tok = policy.tokenizer
    texts = [" ".join(["go left on the lake"] * k) for k in range(1, 25, 2)]
    prompts = [tok.encode(t) for t in texts]
    assert len(_buckets([len(p) for p in prompts])) > 1
    one_prefill = HFPolicy(tiny_model_dir, device="cpu")
    one_prefill._join_caches = False
    for params in (GREEDY, SamplingParams(temperature=1.0, max_new_tokens=12, seed=5)):
        got = policy.generate(prompts, params)
        want = one_prefill.generate(prompts, params)
        assert [g.token_ids for g in got] == [g.token_ids for g in want]
        for g, w in zip(got, want, strict=True):
            assert g.logprobs == pytest.approx(w.logprobs, abs=1e-4)
    alone = [policy.generate([p], GREEDY)[0].token_ids for p in prompts]
    assert alone == [g.token_ids for g in policy.generate(prompts, GREEDY)]


def test_left_padded_greedy_matches_a_plain_argmax_loop(policy, prompts):
    """No cache, no padding: argmax of a full forward, one token at a time."""
    gens = policy.generate(prompts, SamplingParams(temperature=0, max_new_tokens=8))
    for prompt, gen in zip(prompts, gens, strict=True):
        ids = list(prompt)
        for token, logprob in zip(gen.token_ids, gen.logprobs, strict=True):
            with torch.no_grad():
                logits = policy.model(torch.tensor([ids])).logits[0, -1]
            assert int(logits.argmax()) == token
            assert torch.log_softmax(logits, -1)[token].item() == pytest.approx(logprob, abs=1e-5)
            ids.append(token)


def test_greedy_matches_transformers_generate(policy, prompts):
    tok = policy.tokenizer
    tok.padding_side = "left"
    enc = tok.pad({"input_ids": prompts}, padding=True, return_tensors="pt")
    with torch.no_grad():
        out = policy.model.generate(
            **enc, do_sample=False, max_new_tokens=12, pad_token_id=tok.pad_token_id
        )
    ours = policy.generate(prompts, SamplingParams(temperature=0, max_new_tokens=12))
    for row, gen in zip(out[:, enc["input_ids"].shape[1] :].tolist(), ours, strict=True):
        assert row[: len(gen.token_ids)] == gen.token_ids


def test_seeded_sampling_ignores_batch_composition(policy, prompts):
    params = SamplingParams(temperature=0.9, top_p=0.95, top_k=50, max_new_tokens=16, seed=11)
    first = policy.generate(prompts, params)
    swapped = policy.generate([prompts[0], prompts[3], prompts[1]], params)
    assert swapped[0].token_ids == first[0].token_ids  # row 0 keeps (seed, 0)
    chunked = HFPolicy(policy.model, tokenizer=policy.tokenizer, max_batch_size=1)
    assert [g.token_ids for g in chunked.generate(prompts, params)] == [g.token_ids for g in first]
    unseeded = policy.generate(prompts, SamplingParams(max_new_tokens=4))
    assert all(len(g.token_ids) == 4 or g.finish_reason == "stop" for g in unseeded)


def test_truncation_to_one_token_is_greedy(policy, prompts):
    greedy = [g.token_ids for g in policy.generate(prompts, GREEDY)]
    for params in (
        SamplingParams(temperature=1.0, top_k=1, max_new_tokens=24, seed=0),
        SamplingParams(temperature=1.0, top_p=1e-6, max_new_tokens=24, seed=0),
    ):
        assert [g.token_ids for g in policy.generate(prompts, params)] == greedy


def test_max_new_tokens_and_length_finish(policy, prompts):
    for gen in policy.generate(prompts, SamplingParams(temperature=0, max_new_tokens=5)):
        assert len(gen.token_ids) == len(gen.logprobs) == 5
        assert gen.finish_reason == "length"
        assert gen.text == policy.tokenizer.decode(gen.token_ids, skip_special_tokens=True)


def test_should_stop_ends_only_the_rows_it_names(policy, prompts):
    params = SamplingParams(temperature=1.0, max_new_tokens=12, seed=3)
    full = policy.generate(prompts, params)
    asked: list[int] = []

    def stop_row_1_after_3(i: int) -> bool:
        asked.append(i)
        return i == 1 and asked.count(1) > 3  # before the prefill, then after each token

    cut = policy.generate(prompts, params, should_stop=stop_row_1_after_3)
    assert cut[1].token_ids == full[1].token_ids[:3] and cut[1].finish_reason == "stop"
    for i in (0, 2, 3):  # the other rows: the same tokens as without the hook
        assert cut[i].token_ids == full[i].token_ids
    # Every row stopped before it starts: no prefill, no tokens.
    assert [g.token_ids for g in policy.generate(prompts, params, should_stop=lambda i: True)] == [
        []
    ] * len(prompts)


@pytest.mark.parametrize("where", [0.2, 0.9])
def test_stop_strings_cut_text_and_tokens(policy, prompts, where):
    params = SamplingParams(max_new_tokens=60, seed=2)
    full = policy.generate(prompts[:1], params)[0]
    text = full.text
    start = int(len(text) * where)
    stop = next(text[i : i + 3] for i in range(start, len(text) - 3) if text[i : i + 3].strip())
    cut = policy.generate(prompts[:1], SamplingParams(max_new_tokens=60, seed=2, stop=("\0", stop)))
    gen = cut[0]
    assert gen.finish_reason == "stop"
    assert gen.text == text[: text.find(stop)]
    # The tokens end with the one that completed the stop string; nothing after it.
    decode = policy.tokenizer.decode
    assert gen.token_ids == full.token_ids[: len(gen.token_ids)]
    assert stop in decode(gen.token_ids) and stop not in decode(gen.token_ids[:-1])
    assert gen.logprobs == pytest.approx(full.logprobs[: len(gen.token_ids)], abs=1e-6)


def test_eos_ends_a_generation(tiny_model_dir, prompts):
    policy = HFPolicy(tiny_model_dir, device="cpu")
    full = policy.generate(prompts, GREEDY)
    # Make the model's own third greedy token of row 0 an end token: rows that emit it stop.
    policy.eos_token_ids = (full[0].token_ids[2],)
    gens = policy.generate(prompts, GREEDY)
    first = gens[0]
    assert first.finish_reason == "stop"
    assert first.token_ids == full[0].token_ids[: full[0].token_ids.index(first.token_ids[-1]) + 1]
    assert first.text == policy.tokenizer.decode(first.token_ids[:-1], skip_special_tokens=True)
    for before, after in zip(full, gens, strict=True):
        assert after.token_ids == before.token_ids[: len(after.token_ids)]


def test_score_equals_independent_forward(policy, prompts):
    candidates = [[5, 6, 7], [42], [], list(range(100, 120)), prompts[1][:9]]
    scores = policy.score(prompts[0], candidates)
    assert scores[2] == 0.0
    for candidate, score in zip(candidates, scores, strict=True):
        expected = math.fsum(reference_logprobs(policy.model, prompts[0], candidate))
        assert score == pytest.approx(expected, abs=1e-5)
    small = HFPolicy(policy.model, tokenizer=policy.tokenizer, max_batch_size=2)
    assert small.score(prompts[0], candidates) == pytest.approx(scores, abs=1e-5)


def test_greedy_logprobs_agree_with_score(policy, prompts):
    for prompt, gen in zip(prompts, policy.generate(prompts, GREEDY), strict=True):
        assert policy.score(prompt, [gen.token_ids])[0] == pytest.approx(gen.logprob, abs=1e-4)
        reference = reference_logprobs(policy.model, prompt, gen.token_ids)
        assert gen.logprobs == pytest.approx(reference, abs=1e-4)


def sampled_logprobs(model, prompt, continuation, params):
    """Log-probs under the distribution sampled from, by transformers' own warpers."""
    from transformers.generation.logits_process import (
        LogitsProcessorList,
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    warp = LogitsProcessorList([TemperatureLogitsWarper(params.temperature)])
    if params.top_k:
        warp.append(TopKLogitsWarper(params.top_k))
    if params.top_p < 1:
        warp.append(TopPLogitsWarper(params.top_p))
    ids = torch.tensor([list(prompt) + list(continuation)])
    with torch.no_grad():
        logits = model(ids).logits[0].float()
    out = []
    for j, token in enumerate(continuation):
        row = warp(ids[:, : len(prompt) + j], logits[len(prompt) - 1 + j][None].clone())
        out.append(torch.log_softmax(row[0].double(), -1)[token].item())
    return out


@pytest.mark.parametrize(
    "params",
    [
        SamplingParams(temperature=0.5, max_new_tokens=16, seed=3),
        SamplingParams(temperature=0.7, top_k=20, top_p=0.9, max_new_tokens=24, seed=5),
        SamplingParams(temperature=1.3, top_p=0.5, max_new_tokens=16, seed=7),
    ],
)
def test_sampled_logprobs_are_those_of_the_distribution_sampled_from(policy, prompts, params):
    """Temperature, top-k and top-p change what is sampled, so they change its log-prob."""
    for prompt, gen in zip(prompts, policy.generate(prompts, params), strict=True):
        reference = sampled_logprobs(policy.model, prompt, gen.token_ids, params)
        assert gen.logprobs == pytest.approx(reference, abs=1e-4)
        raw = reference_logprobs(policy.model, prompt, gen.token_ids)
        assert gen.logprobs != pytest.approx(raw, abs=1e-3)  # the old, biased numbers


def test_missing_model_dir_is_a_one_line_policy_error(tmp_path):
    with pytest.raises(PolicyError, match="does not exist") as info:
        HFPolicy(tmp_path / "nope")
    assert "\n" not in str(info.value)


def test_dir_without_config_is_a_one_line_policy_error(tmp_path):
    with pytest.raises(PolicyError, match=r"no config\.json") as info:
        HFPolicy(tmp_path)
    assert "\n" not in str(info.value)


def test_broken_checkpoint_is_a_one_line_policy_error(tmp_path, tiny_model_dir):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "qwen2"}))
    with pytest.raises(PolicyError, match="cannot load a model") as info:
        HFPolicy(tmp_path)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"temperature": -1.0},
        {"top_p": 0.0},
        {"top_p": 1.5},
        {"top_k": -1},
        {"max_new_tokens": 0},
        {"stop": [""]},
        {"seed": "7"},
    ],
)
def test_bad_sampling_params_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        SamplingParams(**kwargs)


def test_bad_inputs_raise_value_error(policy, prompts):
    with pytest.raises(ValueError, match="SamplingParams"):
        policy.generate(prompts, {"temperature": 0})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        policy.generate([[]], GREEDY)
    with pytest.raises(ValueError, match="string"):
        policy.generate(["hello"], GREEDY)
    with pytest.raises(ValueError, match="outside the vocab"):
        policy.score([1, 2], [[10**6]])
    with pytest.raises(ValueError, match="max_batch_size"):
        HFPolicy(policy.model, tokenizer=policy.tokenizer, max_batch_size=0)
    with pytest.raises(ValueError, match="dtype"):
        HFPolicy(policy.model, tokenizer=policy.tokenizer, dtype="float8")
    assert policy.generate([], GREEDY) == []


def test_load_weights_swaps_in_another_model(tmp_path, tiny_model_dir, prompts):
    other_dir = build_tiny_model(tmp_path, vocab=tiny_model_dir, seed=1)
    target = HFPolicy(tiny_model_dir, device="cpu")
    other = HFPolicy(other_dir, device="cpu")
    expected = [g.token_ids for g in other.generate(prompts, GREEDY)]
    assert [g.token_ids for g in target.generate(prompts, GREEDY)] != expected
    target.load_weights(AutoModelForCausalLM.from_pretrained(other_dir))
    assert [g.token_ids for g in target.generate(prompts, GREEDY)] == expected
    with pytest.raises(ValueError, match="no weight named"):
        target.load_weights({"not.a.weight": torch.zeros(1)})
    name, weight = next(iter(target.model.state_dict().items()))
    with pytest.raises(ValueError, match="shape"):
        target.load_weights({name: torch.zeros(weight.shape[0] + 1)})


def test_bfloat16_option(tiny_model_dir, prompts):
    policy = HFPolicy(tiny_model_dir, device="cpu", dtype="bfloat16")
    assert policy.model.dtype == torch.bfloat16
    gens = policy.generate(prompts, SamplingParams(temperature=0, max_new_tokens=4))
    assert all(len(g.token_ids) == len(g.logprobs) for g in gens)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_gpu_matches_cpu_greedy(tiny_model_dir, policy, prompts):
    gpu = HFPolicy(tiny_model_dir, dtype="float32")
    assert gpu.device.type == "cuda"
    cpu = policy.generate(prompts, SamplingParams(temperature=0, max_new_tokens=8))
    assert [
        g.token_ids for g in gpu.generate(prompts, SamplingParams(temperature=0, max_new_tokens=8))
    ] == [g.token_ids for g in cpu]


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_other_archs_batch_and_score_consistently(tmp_path, arch):
    policy = HFPolicy(build_tiny_model(tmp_path, arch=arch, hidden=32, layers=1, heads=2))
    prompts = [[1, 40, 41, 42, 2], [7], [1, 100, 101, 102, 103, 104, 105, 2]]
    params = SamplingParams(temperature=0, max_new_tokens=8)
    for prompt, gen in zip(prompts, policy.generate(prompts, params), strict=True):
        assert policy.generate([prompt], params)[0].token_ids == gen.token_ids
        assert policy.score(prompt, [gen.token_ids])[0] == pytest.approx(gen.logprob, abs=1e-4)


def test_importing_the_backends_imports_no_torch():
    code = (
        "import sys, turngym.sdk.backends.hf, turngym.sdk.backends.vllm, turngym.sdk.models;"
        "print('torch' in sys.modules or 'transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_a_gpu_is_a_one_line_policy_error(tiny_model_dir):
    # It used to fail deep inside torch with a bare AssertionError.
    with pytest.raises(PolicyError, match="CUDA is not available here"):
        HFPolicy(tiny_model_dir, device="cuda")


@pytest.mark.parametrize("device", ["tpu", "bogus!", 3.5])
def test_unknown_device_is_a_value_error(tiny_model_dir, device):
    with pytest.raises(ValueError, match="device must be"):
        HFPolicy(tiny_model_dir, device=device)

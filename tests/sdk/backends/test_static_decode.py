"""StaticDecoder: fixed-shape decoding gives the dynamic path's tokens and log-probs.

On a CPU the static steps run eagerly; the CUDA-graph tests at the end need a GPU and
skip without one.
"""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForCausalLM

from tests.sdk.backends.test_decode import _assert_same
from turngym.sdk.backends import static_decode
from turngym.sdk.backends.hf import HFPolicy
from turngym.sdk.backends.static_decode import StaticDecoder, bucket
from turngym.sdk.models import build_tiny_model
from turngym.sdk.policy import SamplingParams

TEXTS = (
    "You are on a frozen lake. Reach the goal.",
    "Hi",
    "Move left, right, up or down on the lake and reach the goal G without falling in.",
    "Go.",
    "Pick a letter.",
)
SAMPLED = SamplingParams(temperature=1.0, max_new_tokens=24, seed=3)
GREEDY = SamplingParams(temperature=0.0, max_new_tokens=24)
TRUNCATED = SamplingParams(temperature=0.8, top_p=0.9, top_k=20, max_new_tokens=24, seed=5)


def _prompts(policy, texts=TEXTS):
    tok = policy.tokenizer
    return [
        tok.apply_chat_template(
            [{"role": "user", "content": t}], add_generation_prompt=True, return_dict=False
        )
        for t in texts
    ]


def _both_ways(policy, params, prompts=None, **kwargs):
    """The generations with the static decoder and with the dynamic (lean) path."""
    prompts = prompts if prompts is not None else _prompts(policy)
    policy.static_decoding = True
    static = policy.generate(prompts, params, **kwargs)
    policy.static_decoding = False
    dynamic = policy.generate(prompts, params, **kwargs)
    policy.static_decoding = None
    return static, dynamic


@pytest.mark.parametrize(
    ("arch", "kv_heads"), [("qwen2", None), ("qwen2", 2), ("llama", 1)], ids=str
)
@pytest.mark.parametrize("params", [SAMPLED, GREEDY, TRUNCATED], ids=["sampled", "greedy", "top"])
def test_same_tokens_and_logprobs_as_the_dynamic_path(
    tmp_path, monkeypatch, arch, kv_heads, params
):
    path = build_tiny_model(tmp_path / arch, arch=arch, kv_heads=kv_heads, logit_std=1.0)
    policy = HFPolicy(path, device="cpu")
    steps = []
    real = StaticDecoder.advance
    monkeypatch.setattr(StaticDecoder, "advance", lambda self, n: steps.append(n) or real(self, n))
    static, dynamic = _both_ways(policy, params)
    # 5 prompts: a bucket of 8 rows, one step per new token after the prefill's.
    assert steps and set(steps) <= {8, 4, 2, 1} and steps[0] == 8
    _assert_same(static, dynamic)


def test_the_dynamic_path_is_the_default_on_a_cpu(tiny_model_dir, monkeypatch):
    policy = HFPolicy(tiny_model_dir, device="cpu")
    built = []
    monkeypatch.setattr(StaticDecoder, "__init__", lambda *a: built.append(a))
    policy.generate(_prompts(policy)[:2], GREEDY)
    assert policy.static_decoding is None and not built


def test_rows_that_stop_move_to_smaller_buckets(tiny_model_dir, monkeypatch):
    # A stop string ends rows at different steps; at each read of the tokens the live
    # rows move down to the smallest bucket that holds them.
    policy = HFPolicy(tiny_model_dir, device="cpu")
    moves = []
    real = StaticDecoder.compact
    monkeypatch.setattr(
        StaticDecoder,
        "compact",
        lambda self, keep, size: moves.append(size) or real(self, keep, size),
    )
    monkeypatch.setattr(static_decode.decode, "__defaults__", (2,))  # read every 2 steps
    params = SamplingParams(temperature=1.0, max_new_tokens=40, seed=1, stop=("e",))
    static, dynamic = _both_ways(policy, params)
    assert len({len(g.token_ids) for g in static}) > 1  # rows did end at different steps
    assert moves and moves == sorted(moves, reverse=True) and moves[0] < 8
    _assert_same(static, dynamic)


def test_a_client_that_leaves_ends_its_row(tiny_model_dir):
    policy = HFPolicy(tiny_model_dir, device="cpu")
    policy.static_decoding = True
    asked = []

    def should_stop(row: int) -> bool:
        asked.append(row)
        return row == 1 and asked.count(1) > 3

    out = policy.generate(_prompts(policy)[:3], GREEDY, should_stop=should_stop)
    assert out[1].finish_reason == "stop" and len(out[1].token_ids) == 3
    assert len(out[0].token_ids) > 3 and len(out[2].token_ids) > 3


def test_the_decoder_is_reused_and_sees_new_weights(tiny_model_dir):
    # A trainer updates the weights in place between generations: the reused decoder
    # (its fused projections, its CUDA graphs on a GPU) must decode with the new ones.
    policy = HFPolicy(tiny_model_dir, device="cpu")
    prompts = _prompts(policy)
    policy.static_decoding = True
    before = policy.generate(prompts, SAMPLED)
    decoder = policy._static
    assert decoder is not None
    again = policy.generate(prompts[:3], SAMPLED)
    assert policy._static is decoder  # fewer rows: the same buffers
    assert [g.token_ids for g in again] == [g.token_ids for g in before[:3]]
    with torch.no_grad():
        for p in policy.model.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(1)) * 0.05)
    static, dynamic = _both_ways(policy, SAMPLED, prompts)
    assert policy._static is decoder
    assert [g.token_ids for g in static] != [g.token_ids for g in before]
    _assert_same(static, dynamic)


def test_longer_generations_grow_the_decoder(tiny_model_dir):
    policy = HFPolicy(tiny_model_dir, device="cpu")
    policy.static_decoding = True
    policy.generate(_prompts(policy)[:1], GREEDY)
    first = policy._static
    assert first is not None and first.capacity == 256 and first.rows == 1
    params = SamplingParams(temperature=1.0, max_new_tokens=300, seed=0)
    static, dynamic = _both_ways(policy, params, _prompts(policy)[:2])
    assert policy._static is not first
    assert policy._static.capacity == 512 and policy._static.rows == 2
    _assert_same(static, dynamic)


def test_release_frees_the_buffers_and_the_next_call_rebuilds(tiny_model_dir):
    import weakref

    policy = HFPolicy(tiny_model_dir, device="cpu")
    policy.static_decoding = True
    first = policy.generate(_prompts(policy), SAMPLED)
    keys = weakref.ref(policy._static.keys[0])
    policy.release_decoder()
    assert policy._static is None and keys() is None  # nothing else holds the buffers
    again = policy.generate(_prompts(policy), SAMPLED)
    assert policy._static is not None
    assert [g.token_ids for g in again] == [g.token_ids for g in first]


def test_lora_model_decodes_with_its_adapters(tiny_model_dir):
    peft = pytest.importorskip("peft")
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    model = peft.get_peft_model(
        model,
        peft.LoraConfig(r=4, lora_alpha=8, target_modules="all-linear", init_lora_weights=False),
    )
    policy = HFPolicy(model, tokenizer=tiny_model_dir)
    static, dynamic = _both_ways(policy, SAMPLED)
    _assert_same(static, dynamic)
    policy.static_decoding = True
    with model.disable_adapter():  # the adapters change the tokens: they were applied
        without = policy.generate(_prompts(policy), SAMPLED)
    assert [g.logprobs for g in without] != [g.logprobs for g in static]


def test_guided_rows_keep_the_dynamic_path(tiny_model_dir, monkeypatch):
    policy = HFPolicy(tiny_model_dir, device="cpu")
    policy.static_decoding = True
    monkeypatch.setattr(static_decode, "decode", lambda *a, **k: pytest.fail("static path"))
    words = [policy.tokenizer.encode(w) for w in (" left", " right")]
    out = policy.generate(_prompts(policy)[:2], GREEDY, choices=[words, None])
    assert out[0].token_ids in words


def test_bucket_sizes():
    assert [bucket(n) for n in (1, 2, 3, 5, 64, 65)] == [1, 2, 4, 8, 64, 128]
    assert bucket(100, 256) == 256 and bucket(300, 256) == 512


def test_a_full_cache_is_an_error_not_a_silent_overwrite(tiny_model_dir):
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    with torch.inference_mode():
        out = model(input_ids=torch.tensor([[1, 2, 3]]), use_cache=True)
        decoder = StaticDecoder(model, rows=1, capacity=4, graphs=False)
        size = decoder.load(out.past_key_values, torch.ones(1, 3), torch.tensor([3]))
        decoder.advance(size)
        with pytest.raises(ValueError, match="cache is full"):
            decoder.advance(size)
        with pytest.raises(ValueError, match="do not fit"):
            decoder.load(out.past_key_values, torch.ones(2, 3), torch.tensor([3, 3]))


cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


@cuda
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_cuda_graphs_decode_as_the_eager_steps(tiny_model_dir, dtype):
    policy = HFPolicy(tiny_model_dir, device="cuda", dtype=dtype)
    prompts = _prompts(policy)
    assert policy.static_decoding is None  # on by default on CUDA
    for params in (GREEDY, SAMPLED):
        graphed = policy.generate(prompts, params)
        assert policy._static is not None and policy._static.graphs
        assert policy._static._graphs  # steps were replayed from captured graphs
        policy.cuda_graphs = False
        eager = policy.generate(prompts, params)
        policy.static_decoding = False
        dynamic = policy.generate(prompts, params)
        policy.static_decoding, policy.cuda_graphs = None, True
        assert [g.token_ids for g in graphed] == [g.token_ids for g in eager]
        for a, b in zip(graphed, eager, strict=True):
            assert a.logprobs == pytest.approx(b.logprobs, abs=1e-6)
        if dtype == "float32":  # bf16 kernels of other shapes may round differently
            _assert_same(graphed, dynamic)


@cuda
def test_cuda_graphs_see_weight_updates(tiny_model_dir):
    policy = HFPolicy(tiny_model_dir, device="cuda", dtype="float32")
    prompts = _prompts(policy)
    before = policy.generate(prompts, GREEDY)
    with torch.no_grad():
        for p in policy.model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    after = policy.generate(prompts, GREEDY)
    policy.static_decoding = False
    dynamic = policy.generate(prompts, GREEDY)
    assert [g.token_ids for g in after] != [g.token_ids for g in before]
    _assert_same(after, dynamic)

"""build_tiny_model: determinism, the chat tokenizer, each architecture, argument checks."""

from __future__ import annotations

import json

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from turngym.sdk.models import CHAT_TEMPLATE, SPECIAL_TOKENS, build_tiny_model, env_texts

SMALL = {"hidden": 32, "layers": 1, "heads": 2, "vocab_size": 320}


def test_same_args_build_byte_identical_weights(tmp_path, tiny_model_dir):
    again = build_tiny_model(tmp_path / "again", seed=0)
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        assert (again / name).read_bytes() == (tiny_model_dir / name).read_bytes(), name
    other = build_tiny_model(tmp_path / "other", seed=1, texts=["a b c"] * 3, **SMALL)
    other2 = build_tiny_model(tmp_path / "other2", seed=2, texts=["a b c"] * 3, **SMALL)
    assert (other / "model.safetensors").read_bytes() != (other2 / "model.safetensors").read_bytes()


def test_global_rngs_are_untouched(tmp_path):
    before = torch.random.get_rng_state()
    build_tiny_model(tmp_path, seed=5, texts=["hello world"] * 4, **SMALL)
    assert torch.equal(before, torch.random.get_rng_state())


def test_chat_template_and_special_tokens(tiny_model_dir):
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Move left."},
    ]
    text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text == (
        "<|im_start|>system\nBe brief.<|im_end|>\n"
        "<|im_start|>user\nMove left.<|im_end|>\n"
        "<|im_start|>assistant\n"
    )
    no_prompt = tok.apply_chat_template(messages, tokenize=False)
    assert not no_prompt.endswith("assistant\n")
    assert tok.chat_template == CHAT_TEMPLATE
    assert tok.eos_token == "<|im_end|>" and tok.pad_token == "<|endoftext|>"
    for special in SPECIAL_TOKENS:  # each is one token, and decodes back
        ids = tok.encode(special, add_special_tokens=False)
        assert len(ids) == 1 and tok.decode(ids) == special
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, return_dict=False)
    assert tok.decode(ids) == text  # the template's ids round-trip to its text


def test_default_tokenizer_learns_env_text(tiny_model_dir):
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    text = "\n".join(env_texts(seeds=(7,)))  # seeds it was not trained on
    ids = tok.encode(text, add_special_tokens=False)
    assert tok.decode(ids) == text
    assert len(text) / len(ids) > 2.0  # merged pieces, not one token per byte
    for word in (" left", " right", "user", "assistant"):
        assert len(tok.encode(word, add_special_tokens=False)) == 1, word


@pytest.mark.parametrize("arch", ["qwen2", "llama", "gpt2"])
def test_each_arch_loads_and_runs(tmp_path, arch):
    path = build_tiny_model(tmp_path, arch=arch, texts=["the cat sat on the mat"] * 4, **SMALL)
    model = AutoModelForCausalLM.from_pretrained(path)
    tok = AutoTokenizer.from_pretrained(path)
    assert json.loads((path / "config.json").read_text())["model_type"] == arch
    ids = torch.tensor([tok.encode("the cat")])
    with torch.no_grad():
        logits = model(ids).logits
    assert logits.shape == (1, ids.shape[1], len(tok))
    assert model.get_output_embeddings().weight.data_ptr() == (
        model.get_input_embeddings().weight.data_ptr()
    )


def test_given_vocab_list_makes_each_string_one_token(tmp_path):
    words = ["left", "right", "up", "down", "Frozen lake"]
    path = build_tiny_model(tmp_path, vocab=words, **{**SMALL, "vocab_size": 999})
    tok = AutoTokenizer.from_pretrained(path)
    assert len(tok) == 256 + len(SPECIAL_TOKENS) + len(words)
    for word in words:
        assert len(tok.encode(word, add_special_tokens=False)) == 1
    text = "go left, then up: é!"
    assert tok.decode(tok.encode(text, add_special_tokens=False)) == text  # bytes cover the rest


def test_given_vocab_dir_reuses_that_tokenizer(tmp_path, tiny_model_dir):
    path = build_tiny_model(tmp_path, vocab=tiny_model_dir, **SMALL)
    ours, theirs = (
        AutoTokenizer.from_pretrained(path),
        AutoTokenizer.from_pretrained(tiny_model_dir),
    )
    assert ours.get_vocab() == theirs.get_vocab()
    assert AutoModelForCausalLM.from_pretrained(path).config.vocab_size == len(theirs)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"arch": "mamba"}, "arch must be one of"),
        ({"vocab_size": 100}, "vocab_size must be"),
        ({"hidden": 30, "heads": 4}, "multiple of heads"),
        ({"hidden": 36, "heads": 12}, "even for rotary"),
        ({"kv_heads": 3}, "must divide heads"),
        ({"arch": "gpt2", "kv_heads": 2}, "grouped-query"),
        ({"layers": 0}, "layers must be"),
        ({"seed": -1}, "seed must be"),
        ({"vocab": ["ok", ""]}, "non-empty strings"),
        ({"vocab": "/no/such/tokenizer"}, "does not exist"),
        ({"texts": [1, 2]}, "texts must be"),
    ],
)
def test_bad_arguments_raise_value_error(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        build_tiny_model(tmp_path, **kwargs)


def test_path_that_is_a_file_is_rejected(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        build_tiny_model(target, texts=["a"], **SMALL)

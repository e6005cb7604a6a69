"""Tiny config-built language models and their tokenizers, for tests, demos and benchmarks.

Nothing can be downloaded here, so ``build_tiny_model`` makes a small causal LM from a
config (Qwen2 by default, like the Qwen2.5 checkpoints users train), trains a byte-level
BPE tokenizer on turngym env text (or takes a given vocab), gives it a ChatML chat
template, and saves both with ``save_pretrained``. The saved directory loads through the
same ``from_pretrained`` path as a real local checkpoint:

>>> import tempfile
>>> from turngym.sdk.models import build_tiny_model
>>> path = build_tiny_model(tempfile.mkdtemp(), hidden=32, layers=1)  # doctest: +SKIP
>>> HFPolicy(path).generate([[1, 2, 3]], SamplingParams(temperature=0))  # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from turngym.extras import require_installed
from turngym.hf_compat import quiet

__all__ = ["ARCHS", "CHAT_TEMPLATE", "SPECIAL_TOKENS", "build_tiny_model", "env_texts"]

ARCHS = ("qwen2", "llama", "gpt2")
"""Architectures ``build_tiny_model`` can build."""

ENDOFTEXT, IM_START, IM_END = "<|endoftext|>", "<|im_start|>", "<|im_end|>"
SPECIAL_TOKENS = (ENDOFTEXT, IM_START, IM_END)
"""Qwen's special tokens: ``<|endoftext|>`` doubles as the pad token, ``<|im_end|>`` is EOS."""

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
"""ChatML, as Qwen2.5 renders it (without Qwen's default system message)."""

# Envs whose first observations and actions make the default tokenizer corpus: a spread
# of the registered families that need no system package.
_CORPUS_ENVS = (
    "FrozenLake-v0",
    "Sokoban-v0",
    "Bandit-v0",
    "Wordle-v0",
    "ToolUse-v0",
    "Countdown-v0",
    "TryAgainQA-v0",
    "SearchQA-v0",
    "Maze-v0",
    "TextNav-v0",
    "BabyAIText-v0",
    "TextCraft-v0",
    "TwentyQuestions-v0",
    "Taxi-v0",
    "Blackjack-v0",
    "TicTacToe-v0",
    "KuhnPoker-v0",
    "ConnectFour-v0",
)
_SYSTEM = "You are a helpful assistant. Answer with one action."


def env_texts(seeds: Sequence[int] = (0, 1, 2), actions_per_env: int = 16) -> list[str]:
    """Text from turngym envs: first observations, legal actions and one step each.

    The default corpus of ``build_tiny_model``'s tokenizer, so env text tokenizes into
    sensible pieces. Deterministic; needs no model and no system package.
    """
    import gymnasium as gym

    import turngym  # noqa: F401  (registers the ids)

    texts: list[str] = []
    for name in _CORPUS_ENVS:
        env = gym.make(f"turngym/{name}")
        try:
            for seed in seeds:
                obs, info = env.reset(seed=seed)
                legal = list(info.get("legal_actions") or [])[:actions_per_env]
                action = legal[seed % len(legal)] if legal else "look"
                # Rendered as ChatML, so the role names and newlines get merged tokens too.
                texts.append(
                    f"{IM_START}system\n{_SYSTEM}{IM_END}\n{IM_START}user\n{obs}{IM_END}\n"
                    f"{IM_START}assistant\n{action}{IM_END}\n"
                )
                texts.extend(legal)
                if legal:
                    obs, *_ = env.step(action)
                    texts.append(str(obs))
        finally:
            env.close()
    return texts


def build_tiny_model(
    path: str | os.PathLike[str],
    arch: str = "qwen2",
    vocab: Sequence[str] | str | os.PathLike[str] | None = None,
    vocab_size: int = 512,
    hidden: int = 64,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int | None = None,
    texts: Sequence[str] | None = None,
    seed: int = 0,
    max_positions: int = 2048,
    logit_std: float = 3.0,
) -> Path:
    """Build a tiny causal LM and its chat tokenizer, save both to ``path`` and return it.

    Args:
        path: the directory to write (created; existing model files are overwritten).
        arch: ``"qwen2"`` (default), ``"llama"`` or ``"gpt2"``.
        vocab: None trains a byte-level BPE tokenizer of ``vocab_size`` tokens on
            ``texts``; a list of strings gives a byte-level tokenizer where each listed
            string is one token; a directory path reuses that tokenizer.
        vocab_size: target size of the trained tokenizer (>= 300); ignored with ``vocab``.
        hidden: model width; a multiple of ``heads``.
        layers: number of transformer blocks.
        heads: attention heads; ``hidden // heads`` must be even for rotary archs.
        kv_heads: key/value heads (grouped-query attention; divides ``heads``); None:
            ``heads``. Must be None or ``heads`` for gpt2.
        texts: the tokenizer's training text; None: ``env_texts()``.
        seed: initialises the weights through a private ``torch.Generator`` (the global
            RNGs are untouched); the same arguments give byte-identical weights.
        max_positions: the model's context length.
        logit_std: the spread of the untrained model's logits. The default 3 gives
            peaked next-token distributions like a trained model's (greedy decoding
            has no near ties); a small value such as 0.3 gives a near-uniform policy,
            which reinforcement learning from scratch needs in order to explore.

    Returns:
        ``Path(path)``, loadable with ``AutoModelForCausalLM.from_pretrained`` and
        ``AutoTokenizer.from_pretrained``.

    Raises:
        ValueError: a bad argument, with what to change.

    """
    _check_args(arch, vocab, vocab_size, hidden, layers, heads, kv_heads, seed, max_positions)
    if isinstance(logit_std, bool) or not isinstance(logit_std, (int, float)) or logit_std <= 0:
        raise ValueError(f"logit_std must be a number > 0, got {logit_std!r}")
    require_installed("llm", "build_tiny_model", ("torch", "transformers", "tokenizers"))
    import torch
    from transformers.initialization import no_init_weights

    out = Path(path)
    if out.exists() and not out.is_dir():
        raise ValueError(f"path {str(out)!r} exists and is not a directory")
    tokenizer = _tokenizer(vocab, vocab_size, texts)
    config = _config(arch, tokenizer, hidden, layers, heads, kv_heads or heads, max_positions)

    from transformers import AutoModelForCausalLM

    # no_init_weights skips transformers' and torch's initialisers, which draw from the
    # global RNG; _init_weights then fills every parameter from a private generator.
    with no_init_weights():
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.tie_weights()  # skipped with the initialisers: the lm_head shares the embedding
    _init_weights(model, hidden, torch.Generator().manual_seed(seed), float(logit_std))
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.bos_token_id = None
    out.mkdir(parents=True, exist_ok=True)
    with quiet():
        model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def _check_args(
    arch: str,
    vocab: object,
    vocab_size: int,
    hidden: int,
    layers: int,
    heads: int,
    kv_heads: int | None,
    seed: int,
    max_positions: int,
) -> None:
    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {', '.join(ARCHS)}, got {arch!r}")
    for name, value, low in (
        ("vocab_size", vocab_size, 300),
        ("hidden", hidden, 8),
        ("layers", layers, 1),
        ("heads", heads, 1),
        ("max_positions", max_positions, 16),
        ("seed", seed, 0),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if hidden % heads:
        raise ValueError(f"hidden ({hidden}) must be a multiple of heads ({heads})")
    if arch != "gpt2" and (hidden // heads) % 2:
        raise ValueError(
            f"hidden // heads must be even for rotary embeddings ({arch}), got {hidden // heads}"
        )
    if kv_heads is not None:
        if isinstance(kv_heads, bool) or not isinstance(kv_heads, int) or kv_heads < 1:
            raise ValueError(f"kv_heads must be an int >= 1 or None, got {kv_heads!r}")
        if heads % kv_heads:
            raise ValueError(f"kv_heads ({kv_heads}) must divide heads ({heads})")
        if arch == "gpt2" and kv_heads != heads:
            raise ValueError("gpt2 has no grouped-query attention: leave kv_heads=None")
    if (
        vocab is not None
        and not isinstance(vocab, (str, os.PathLike))
        and (isinstance(vocab, bytes) or not all(isinstance(t, str) and t for t in vocab))  # type: ignore[attr-defined]
    ):
        raise ValueError("vocab must be a tokenizer directory or a list of non-empty strings")


def _tokenizer(
    vocab: Sequence[str] | str | os.PathLike[str] | None,
    vocab_size: int,
    texts: Sequence[str] | None,
) -> Any:
    """A ``PreTrainedTokenizerFast`` with the ChatML specials, template, EOS and pad."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    if isinstance(vocab, (str, os.PathLike)):
        directory = Path(vocab)
        if not directory.is_dir():
            raise ValueError(f"vocab directory {str(directory)!r} does not exist")
        tokenizer = AutoTokenizer.from_pretrained(directory)
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError(f"vocab directory {str(directory)!r} holds no fast tokenizer")
        tokenizer.add_special_tokens({"additional_special_tokens": list(SPECIAL_TOKENS)})
    else:
        byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        if vocab is None:
            corpus = list(texts) if texts is not None else env_texts()
            if not all(isinstance(t, str) for t in corpus):
                raise ValueError("texts must be a list of strings")
            core = Tokenizer(models.BPE())
            core.pre_tokenizer = byte_level
            core.decoder = decoders.ByteLevel()
            trainer = trainers.BpeTrainer(
                vocab_size=vocab_size,
                min_frequency=2,
                special_tokens=list(SPECIAL_TOKENS),
                initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                show_progress=False,
            )
            core.train_from_iterator(corpus, trainer=trainer)
        else:
            # The 256 byte symbols (so any text encodes) plus each listed string as one
            # token, found wherever it occurs in the text.
            alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
            core = Tokenizer(models.BPE(vocab={s: i for i, s in enumerate(alphabet)}, merges=[]))
            core.pre_tokenizer = byte_level
            core.decoder = decoders.ByteLevel()
            core.add_special_tokens(list(SPECIAL_TOKENS))
            core.add_tokens(list(dict.fromkeys(vocab)))
        tokenizer = PreTrainedTokenizerFast(tokenizer_object=core)
    tokenizer.eos_token = IM_END
    tokenizer.pad_token = ENDOFTEXT
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.padding_side = "left"
    tokenizer.model_max_length = 1 << 30
    return tokenizer


def _config(
    arch: str,
    tokenizer: Any,
    hidden: int,
    layers: int,
    heads: int,
    kv_heads: int,
    max_positions: int,
) -> Any:
    from transformers import GPT2Config, LlamaConfig, Qwen2Config

    ids = {
        "vocab_size": len(tokenizer),
        "eos_token_id": tokenizer.eos_token_id,
        "pad_token_id": tokenizer.pad_token_id,
        "bos_token_id": None,
        "tie_word_embeddings": True,
    }
    if arch == "gpt2":
        return GPT2Config(
            n_embd=hidden, n_layer=layers, n_head=heads, n_positions=max_positions, **ids
        )
    config_class = Qwen2Config if arch == "qwen2" else LlamaConfig
    return config_class(
        hidden_size=hidden,
        intermediate_size=4 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=max_positions,
        **ids,
    )


def _init_weights(model: Any, hidden: int, generator: Any, logit_std: float = 3.0) -> None:
    """Fill every parameter from ``generator``, in the model's own parameter order.

    Matrices get std 1/sqrt(fan_in), so activations stay O(1) through the blocks, and
    the (tied) embeddings std logit_std/sqrt(hidden), so logits have std ~logit_std
    (the final norm leaves hidden states of norm ~sqrt(hidden)). Norm weights are ones
    and biases zeros.
    """
    import torch
    from transformers.pytorch_utils import Conv1D

    seen: set[int] = set()  # a tied lm_head shares the embedding's tensor: fill it once
    with torch.no_grad():
        for module in model.modules():
            for name, param in module.named_parameters(recurse=False):
                if id(param) in seen:
                    continue
                seen.add(id(param))
                if name == "bias" or param.dim() == 1:
                    param.fill_(0.0 if name == "bias" else 1.0)
                    continue
                if isinstance(module, torch.nn.Embedding):
                    std = logit_std / math.sqrt(hidden)
                elif isinstance(module, Conv1D):  # GPT-2 stores (in, out)
                    std = 1 / math.sqrt(param.shape[0])
                else:
                    std = 1 / math.sqrt(param.shape[-1])
                param.copy_(torch.randn(param.shape, generator=generator) * std)

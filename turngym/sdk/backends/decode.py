"""``LeanDecoder``: one-token decoding steps of Qwen2/Llama models without the framework.

A transformers forward of a tiny model spends most of its time outside the maths:
mask building, cache objects, output capturing and rotary tables recomputed at every
call, a few milliseconds per token on a CPU. ``HFPolicy`` prefills with the model's own
forward, then hands the KV cache to this decoder, which runs each decoding step with
the model's own modules (projections, norms, MLP: LoRA layers included) and does the
rest itself: rotary embedding from the model's frequencies, a preallocated KV buffer
written in place, and one scaled-dot-product attention per layer. Same arithmetic as
the model's forward (tested equal to it), several times fewer Python calls.

Only plain decoder stacks take this path (Qwen2 and Llama with default rotary
embeddings and full attention in every layer); anything else keeps the model's forward.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

__all__ = ["LeanDecoder"]

_MODEL_TYPES = ("qwen2", "llama")
_ATTENTION = ("sdpa", "eager")
_QKV = ("q_proj", "k_proj", "v_proj")
_GATE_UP = ("gate_proj", "up_proj")


def _causal_lm(model: Any) -> Any:
    """The transformers causal LM inside ``model`` (a PEFT wrapper's base model)."""
    get_base = getattr(model, "get_base_model", None)
    return get_base() if callable(get_base) else model


class LeanDecoder:
    """Runs decoding steps of a supported causal LM over a cache it owns.

    Use ``LeanDecoder.supports(model)`` first; then per generation ``start`` with the
    prefill's cache, ``step`` once per new token, and ``select`` to drop finished rows.

    Args:
        model: the model (or a PEFT model around it) that made the prefill cache.

    """

    def __init__(self, model: Any) -> None:
        lm = _causal_lm(model)
        self.embed = lm.model.embed_tokens
        self.layers = list(lm.model.layers)
        self.norm = lm.model.norm
        self.head = lm.lm_head
        rotary = lm.model.rotary_emb
        self.inv_freq = rotary.inv_freq
        self.rope_scale = float(getattr(rotary, "attention_scaling", 1.0))
        attn = self.layers[0].self_attn
        self.head_dim = int(attn.head_dim)
        self.scaling = float(attn.scaling)
        config = lm.config
        self.q_heads = int(config.num_attention_heads)
        self.kv_heads = int(config.num_key_value_heads)
        self.groups = self.q_heads // self.kv_heads
        # Plain linear projections run as one matmul each for q/k/v and for gate/up (the
        # weights as they are now: a decoder lives for one generation). Adapter-wrapped
        # ones (LoRA) are called as modules.
        self.qkv = [_fused(layer.self_attn, _QKV) for layer in self.layers]
        self.gate_up = [_fused(layer.mlp, _GATE_UP) for layer in self.layers]
        self.keys: list[torch.Tensor] = []
        self.values: list[torch.Tensor] = []
        self.length = 0

    @staticmethod
    def supports(model: Any) -> bool:
        """Whether ``model``'s decoding steps can run here with the same results."""
        lm = _causal_lm(model)
        config = getattr(lm, "config", None)
        if config is None or getattr(config, "model_type", None) not in _MODEL_TYPES:
            return False
        if getattr(config, "_attn_implementation", None) not in _ATTENTION:
            return False
        rope = getattr(config, "rope_parameters", None) or {}
        if rope.get("rope_type", "default") != "default":
            return False
        if any(t != "full_attention" for t in getattr(config, "layer_types", None) or ()):
            return False
        inner = getattr(lm, "model", None)
        return all(
            hasattr(inner, name) for name in ("embed_tokens", "layers", "norm", "rotary_emb")
        ) and hasattr(lm, "lm_head")

    def start(self, cache: Any, capacity: int) -> None:
        """Take over a prefill's ``DynamicCache``, with room for ``capacity`` positions."""
        self.keys, self.values = [], []
        for layer in cache.layers:
            k, v = layer.keys, layer.values
            self.length = k.shape[2]
            room = max(capacity, self.length)
            k_buf = k.new_empty((k.shape[0], k.shape[1], room, k.shape[3]))
            v_buf = v.new_empty((v.shape[0], v.shape[1], room, v.shape[3]))
            k_buf[:, :, : self.length] = k
            v_buf[:, :, : self.length] = v
            self.keys.append(k_buf)
            self.values.append(v_buf)

    def select(self, index: torch.Tensor) -> None:
        """Keep only the cache rows in ``index`` (finished rows leave the batch)."""
        self.keys = [k.index_select(0, index) for k in self.keys]
        self.values = [v.index_select(0, index) for v in self.values]

    def step(
        self, ids: torch.Tensor, positions: torch.Tensor, mask: torch.Tensor | None
    ) -> torch.Tensor:
        """Next-token logits (rows x vocab) after feeding one token per row.

        Args:
            ids: the new token of each row, shape (rows,).
            positions: each row's position id for it, shape (rows,).
            mask: which cached positions (the new one included) each row may attend to,
                shape (rows, length + 1), bool; None when every position counts.

        """
        if self.length >= self.keys[0].shape[2]:
            raise ValueError("LeanDecoder: the cache is full; start() with a larger capacity")
        attn_mask = None if mask is None else mask[:, None, None, :]
        logits = self._run(ids, positions, self.keys, self.values, self.length, attn_mask)
        self.length += 1
        return logits

    def _run(
        self,
        ids: torch.Tensor,
        positions: torch.Tensor,
        keys: list[torch.Tensor],
        values: list[torch.Tensor],
        at: int | torch.Tensor,
        attn_mask: torch.Tensor | None,
    ) -> torch.Tensor:
        """One decoding step: write each layer's new key/value at ``at``, attend, logits.

        ``at`` as an int attends to the buffers' first ``at + 1`` positions; as a
        one-element tensor (``StaticDecoder``: no host value, so a CUDA graph can replay
        it) the new entries go in with ``index_copy_`` and the whole buffer is attended
        to, ``attn_mask`` hiding what lies past ``at``.
        """
        import torch
        import torch.nn.functional as F

        x = self.embed(ids[:, None])  # (rows, 1, hidden)
        freqs = positions[:, None].float() * self.inv_freq.to(device=x.device, dtype=torch.float)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = (emb.cos() * self.rope_scale).to(x.dtype)[:, None, None, :]
        sin = (emb.sin() * self.rope_scale).to(x.dtype)[:, None, None, :]
        rows, d = ids.shape[0], self.head_dim
        heads, kv = self.q_heads, self.kv_heads
        for i, (layer, k_buf, v_buf) in enumerate(zip(self.layers, keys, values, strict=True)):
            attn = layer.self_attn
            h = layer.input_layernorm(x)
            if (qkv_weights := self.qkv[i]) is not None:
                qkv = F.linear(h, *qkv_weights).view(rows, 1, -1, d).transpose(1, 2)
                qk = qkv[:, : heads + kv]
                qk = qk * cos + _rotate_half(qk) * sin  # q and k rotated in one go
                q, k, v = qk[:, :heads], qk[:, heads:], qkv[:, heads + kv :]
            else:
                q = attn.q_proj(h).view(rows, 1, -1, d).transpose(1, 2)
                k = attn.k_proj(h).view(rows, 1, -1, d).transpose(1, 2)
                v = attn.v_proj(h).view(rows, 1, -1, d).transpose(1, 2)
                q = q * cos + _rotate_half(q) * sin
                k = k * cos + _rotate_half(k) * sin
            if isinstance(at, int):
                k_buf[:, :, at : at + 1] = k
                v_buf[:, :, at : at + 1] = v
                k_seen, v_seen = k_buf[:, :, : at + 1], v_buf[:, :, : at + 1]
            else:
                k_buf.index_copy_(2, at, k)
                v_buf.index_copy_(2, at, v)
                k_seen, v_seen = k_buf, v_buf
            out = F.scaled_dot_product_attention(
                q,
                k_seen,
                v_seen,
                attn_mask=attn_mask,
                scale=self.scaling,
                enable_gqa=self.groups > 1,
            )
            x = x + attn.o_proj(out.transpose(1, 2).reshape(rows, 1, -1))
            h = layer.post_attention_layernorm(x)
            mlp = layer.mlp
            if (gate_up_weights := self.gate_up[i]) is not None:
                gate, up = F.linear(h, *gate_up_weights).chunk(2, dim=-1)
                x = x + mlp.down_proj(mlp.act_fn(gate) * up)
            else:
                x = x + mlp(h)
        return self.head(self.norm(x))[:, -1, :]

    def refresh_weights(self) -> None:
        """Copy the projections' current weights into the fused ones (after an update).

        Concatenated straight into the fused buffers: a temporary copy of every weight
        per generation would double the memory traffic (and, at 0.5B, take 0.4 GB).
        """
        import torch

        modules: list[tuple[Any, tuple[str, ...]]] = [(lay.self_attn, _QKV) for lay in self.layers]
        modules += [(layer.mlp, _GATE_UP) for layer in self.layers]
        for (module, names), fused in zip(modules, self.qkv + self.gate_up, strict=True):
            if fused is None:
                continue
            parts = [getattr(module, name) for name in names]
            torch.cat([p.weight for p in parts], out=fused[0])
            if fused[1] is not None:
                biases = [
                    p.bias if p.bias is not None else p.weight.new_zeros(p.out_features)
                    for p in parts
                ]
                torch.cat(biases, out=fused[1])


def _fused(module: Any, names: tuple[str, ...]) -> tuple[torch.Tensor, torch.Tensor | None] | None:
    """The weights (and biases) of ``module``'s plain linear ``names`` stacked, or None."""
    import torch

    found = [getattr(module, name, None) for name in names]
    parts = [p for p in found if type(p) is torch.nn.Linear]
    if len(parts) < len(names):
        return None
    weight = torch.cat([p.weight for p in parts])
    biases = [p.bias for p in parts]
    if all(b is None for b in biases):
        return weight, None
    bias = torch.cat(
        [
            b if b is not None else weight.new_zeros(p.out_features)
            for p, b in zip(parts, biases, strict=True)
        ]
    )
    return weight, bias


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    import torch

    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)

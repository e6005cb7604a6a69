"""Rollout engines for the trainers: who samples the episodes, and how new weights reach it.

``GRPOConfig.rollout`` names one:

- ``"hf"``: the trained model itself through ``HFPolicy`` (nothing to sync).
- ``"vllm"``: a colocated ``vllm.LLM`` on the same GPU (``VLLMPolicy``); after each
  update the learner's weights are loaded into it in place (``load_weights``).
- ``"openai:URL"``: an OpenAI-compatible server (``turngym serve --accept-weight-updates``)
  over HTTP; after each update the learner writes its weights to a safetensors file in
  the server's weights folder (``GET /update_weights`` names it; the same machine or a
  shared disk) and asks it to load them (``POST /update_weights``). The server's key
  comes from ``TURNGYM_API_KEY`` (or ``api_key`` in the rollout options).

The learner's weights are sent as a plain state dict: with LoRA the adapters are merged
into the base weights for the copy and unmerged again, so the engine serves exactly the
policy being trained.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from turngym.sdk.policy import PolicyError
from turngym.sdk.trainers.parallel import world_size

__all__ = ["ROLLOUTS", "RolloutEngine", "check_rollout", "make_rollout_engine", "plain_state_dict"]

ROLLOUTS = ("hf", "vllm", "openai:URL")
"""What ``rollout=`` accepts (``openai:`` followed by the server's ``/v1`` URL)."""


def check_rollout(spec: object) -> bool:
    """Whether ``spec`` names a rollout engine."""
    return isinstance(spec, str) and (
        spec in ("hf", "vllm") or (spec.startswith("openai:") and len(spec) > len("openai:"))
    )


def plain_state_dict(model: Any) -> dict[str, Any]:
    """The model's weights under the base model's own names (LoRA merged in), where they are.

    A peft model's adapters are added to copies of the base weights (``W + B A x scale``
    from each LoRA layer's ``get_delta_weight``); the trained model is not touched, so
    no rounding from merging and unmerging builds up over many syncs. Tensors stay on
    the model's device: a colocated engine loads them from there without a round trip
    through the CPU.
    """
    import torch

    if not hasattr(model, "get_base_model"):
        return {k: v.detach() for k, v in model.state_dict().items()}
    base = model.get_base_model()
    state = {
        key.replace(".base_layer.", "."): value.detach().clone()
        for key, value in base.state_dict().items()
        if "lora_" not in key
    }
    with torch.no_grad():
        for name, module in base.named_modules():
            if not (hasattr(module, "get_delta_weight") and hasattr(module, "lora_A")):
                continue
            for adapter in module.active_adapters:
                if adapter in module.lora_A and not module.merged:
                    delta = module.get_delta_weight(adapter).detach()
                    state[f"{name}.weight"] += delta.to(state[f"{name}.weight"].dtype)
    return state


class RolloutEngine:
    """A policy that samples rollouts, and ``sync(model)`` to give it new weights.

    Build with ``make_rollout_engine``.
    """

    def __init__(self, spec: str, policy: Any, sync: Any) -> None:
        self.spec = spec
        self.policy = policy
        self._sync = sync

    def sync(self, model: Any, state: dict[str, Any] | None = None) -> float:
        """Send ``model``'s weights (or ``state``, gathered already) to the engine; seconds."""
        started = time.perf_counter()
        self._sync(state if state is not None else plain_state_dict(model))
        return time.perf_counter() - started

    def close(self) -> None:
        """Release the engine's client (a server keeps running)."""
        close = getattr(self.policy, "close", None)
        if callable(close):
            close()


def make_rollout_engine(
    spec: str, model_dir: Path, options: dict[str, Any] | None = None
) -> RolloutEngine | None:
    """The engine ``spec`` names (None for ``"hf"``: the learner samples its own).

    Args:
        spec: ``"hf"``, ``"vllm"`` or ``"openai:URL"``.
        model_dir: the learner's starting weights (vLLM loads them; a server must be
            serving the same model).
        options: ``vllm.LLM`` keyword arguments (``gpu_memory_utilization``...), or the
            ``OpenAIPolicy`` ones (``timeout``...).

    Raises:
        PolicyError: the engine cannot start or the server cannot be reached.

    """
    options = dict(options or {})
    if spec == "hf":
        return None
    if spec == "vllm":
        from turngym.sdk.backends.vllm import VLLMPolicy

        # The behaviour log-probs must be those of the distribution sampled from (after
        # temperature), which the learner recomputes: vLLM's "processed" log-probs.
        options.setdefault("logprobs_mode", "processed_logprobs")
        options.setdefault("gpu_memory_utilization", 0.3)
        if world_size() > 1:  # under torchrun: one engine per process, on its own GPU
            options.setdefault("distributed_executor_backend", "external_launcher")
        policy = VLLMPolicy(model_dir, **options)
        return RolloutEngine(spec, policy, policy.load_weights)
    if not check_rollout(spec):
        raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {spec!r}")
    from turngym.sdk.backends.openai import OpenAIPolicy

    url = spec[len("openai:") :]
    client = OpenAIPolicy(url, tokenizer=str(model_dir), **options)
    name = f"turngym-rollout-{os.getpid()}-{id(client):x}.safetensors"

    def sync(weights: dict[str, Any]) -> None:
        from safetensors.torch import save_file

        folder = client.weights_dir()
        if not folder.is_dir():
            raise PolicyError(
                f"the server at {url} loads weights from {folder}, which is not a folder "
                "on this machine: run the trainer where it can write there (the same "
                "machine, or a disk mounted at the same path), or start the server with "
                "--weights-dir naming such a folder"
            )
        state = {k: v.cpu().contiguous() for k, v in weights.items()}
        # Tied tensors (embeddings and LM head) are one storage: safetensors wants copies.
        seen: set[int] = set()
        for key, value in state.items():
            if value.data_ptr() in seen:
                state[key] = value.clone()
            seen.add(state[key].data_ptr())
        path = folder / name
        tmp = path.with_name(path.name + ".tmp")
        save_file(state, str(tmp))
        tmp.replace(path)  # the server never sees half a file
        try:
            client.update_weights(path)
        finally:
            path.unlink(missing_ok=True)  # loaded (or refused): the server holds no copy

    return RolloutEngine(spec, client, sync)

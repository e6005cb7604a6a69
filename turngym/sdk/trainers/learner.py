"""The model a trainer trains: built or loaded, LoRA on top, restored, saved for agents.

- ``resolve_model``: ``"tiny"`` builds a fresh tiny model (RL-ready near-uniform
  logits) into the run directory; anything else must be a saved transformers directory.
- ``load_policy`` / ``restore_weights`` / ``save_final_model``: the trained LM (LoRA
  optional), its weights back from a checkpoint, and ``final/`` for ``hf:DIR`` agents.
- ``default_lr`` / ``make_optimizer`` / ``scheduled_lr``: every trainer's optimisers are
  built here, with the learning rate a run gets when it sets none, and the rate of a
  step under warm-up and a schedule.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from turngym.hf_compat import quiet

__all__ = [
    "TINY",
    "default_lr",
    "load_policy",
    "make_optimizer",
    "resolve_model",
    "restore_weights",
    "save_final_model",
    "scheduled_lr",
]

TINY = "tiny"
"""The model name that builds a fresh tiny model instead of loading one."""


def resolve_model(model: str, run_dir: Path, seed: int = 0) -> Path:
    """The directory of the model to train.

    ``"tiny"`` builds a Qwen2-style model (hidden 64, 2 layers, tokenizer trained on
    env text) with near-uniform initial logits into ``run_dir/base-model`` (reused when
    it is already there, so a resumed run starts from the same weights).

    Raises:
        ValueError: ``model`` is neither ``"tiny"`` nor a saved transformers directory.

    """
    if model == TINY:
        target = run_dir / "base-model"
        if not (target / "config.json").is_file():
            from turngym.sdk.models import build_tiny_model

            build_tiny_model(target, seed=seed, logit_std=0.3)
        return target
    path = Path(model).expanduser()
    if not (path / "config.json").is_file():
        raise ValueError(
            f"--model must be 'tiny' or a directory saved with save_pretrained "
            f"(with config.json), got {model!r}"
        )
    return path


def default_lr(
    given: float | None, model: str, lora_rank: int, *, tiny: float, lora: float, full: float
) -> float:
    """``given``, or the trainer's default for its model: ``tiny``, LoRA, or a full model.

    >>> default_lr(None, "tiny", 0, tiny=1e-3, lora=1e-4, full=1e-6)
    0.001
    >>> default_lr(None, "runs/base", 8, tiny=1e-3, lora=1e-4, full=1e-6)
    0.0001
    """
    if given is not None:
        return given
    return tiny if model == TINY else lora if lora_rank else full


def make_optimizer(
    params: Any,
    lr: float,
    *,
    weight_decay: float | None = None,
    foreach: bool | None = None,
) -> Any:
    """The optimiser of ``params``: AdamW with ``weight_decay`` given, else Adam.

    ``foreach=False`` steps parameter by parameter, which gives the same bits on every
    run (the off-policy trainers' choice); ``None`` is torch's default.
    """
    import torch

    options: dict[str, Any] = {"lr": lr}
    if foreach is not None:
        options["foreach"] = foreach
    if weight_decay is None:
        return torch.optim.Adam(params, **options)
    return torch.optim.AdamW(params, weight_decay=weight_decay, **options)


def scheduled_lr(base: float, step: int, steps: int, schedule: str, warmup: int = 0) -> float:
    """The learning rate of 0-based ``step``: linear warm-up, then constant/linear/cosine.

    >>> [round(scheduled_lr(1.0, s, 4, "linear", warmup=1), 3) for s in range(4)]
    [0.5, 1.0, 0.667, 0.333]
    """
    if step < warmup:
        return base * (step + 1) / (warmup + 1)
    done = (step - warmup) / max(1, steps - warmup)
    if schedule == "linear":
        return base * (1 - done)
    if schedule == "cosine":
        return base * 0.5 * (1 + math.cos(math.pi * done))
    return base


def load_policy(
    model_dir: Path, device: str | None, dtype: str | None, lora_rank: int, lora_alpha: int
) -> tuple[Any, Any]:
    """The trained model (with LoRA adapters when ``lora_rank``) and an HFPolicy over it."""
    from turngym.sdk.backends.hf import HFPolicy

    base = HFPolicy(model_dir, device=device, dtype=dtype or "float32")
    if not lora_rank:
        return base.model, base
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=lora_rank, lora_alpha=lora_alpha, target_modules="all-linear")
    model = get_peft_model(base.model, config)
    return model, HFPolicy(model, tokenizer=base.tokenizer)


def restore_weights(model: Any, saved_dir: Path, lora: bool) -> None:
    """Load weights written by ``model.save_pretrained(saved_dir)`` into ``model``."""
    if lora:
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        set_peft_model_state_dict(model, load_file(saved_dir / "adapter_model.safetensors"))
        return
    from transformers import AutoModelForCausalLM

    dtype = next(model.parameters()).dtype
    with quiet():
        saved = AutoModelForCausalLM.from_pretrained(saved_dir, dtype=dtype)
    model.load_state_dict(saved.state_dict())


def save_final_model(
    model: Any, tokenizer: Any, target: Path, config: Any, constrained: bool | None = None
) -> Path:
    """The model (LoRA merged) + tokenizer + agent settings in ``target``, for ``hf:DIR``.

    The settings (``write_agent_settings``) come from the run's ``config``: its system
    prompt, its wrapper stack and its ``constrained`` (or ``constrained`` when given: a
    trainer without the field says how its agent chooses).
    """
    import copy

    from turngym.sdk.agents import write_agent_settings

    lora = bool(config.lora_rank)
    with quiet():
        (copy.deepcopy(model).merge_and_unload() if lora else model).save_pretrained(target)
    tokenizer.save_pretrained(target)
    write_agent_settings(
        target,
        constrained=config.constrained if constrained is None else constrained,
        system_prompt=config.system_prompt,
        wrappers=config.wrappers,
    )
    return target

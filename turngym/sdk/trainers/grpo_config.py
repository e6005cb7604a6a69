"""``GRPOConfig``: every setting of a ``GRPOTrainer`` run, checked when it is built.

Each field is also a ``turngym train grpo`` flag (``__field_docs__`` is its help text).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from turngym.sdk.trainers.common import COMMON_FIELD_DOCS, check_config, is_int, is_number
from turngym.sdk.trainers.engines import ROLLOUTS, check_rollout

__all__ = ["ADVANTAGES", "GRPOConfig"]

ADVANTAGES = ("grpo", "reinforce", "gigpo", "turn_level", "rae", "per_agent_norm")
"""Advantage estimators ``GRPOConfig.advantage`` accepts."""


@dataclass
class GRPOConfig:
    """Everything a GRPO run needs; every field is a ``turngym train grpo`` flag.

    Each evaluation (before training, every ``eval_every`` steps, after) saves
    ``eval_record_episodes`` of its episodes (games: per seat) to
    ``output_dir/episodes/eval-step-NNNNNNN.jsonl`` for ``turngym view``; the run writes
    this config to ``output_dir/config.json``.
    """

    env: str = "turngym/Bandit-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    wrappers: list[str] = field(default_factory=list)
    model: str = "tiny"
    output_dir: str = "runs/grpo"
    system_prompt: str | None = None
    steps: int = 50
    groups: int = 8
    group_size: int = 8
    max_turns: int | None = None
    max_new_tokens: int = 32
    temperature: float = 1.0
    top_p: float = 1.0
    constrained: bool = True
    rollout: str = "hf"
    rollout_options: dict[str, Any] = field(default_factory=dict)
    tis_cap: float | None = None
    data_parallel: str = "ddp"
    advantage: str = "grpo"
    scale: str = "group"
    gamma: float = 0.95
    gigpo_weight: float = 1.0
    rae_decay: float = 0.95
    keep_fraction: float = 1.0
    clip_low: float = 0.2
    clip_high: float = 0.28
    aggregation: str = "token_mean"
    beta: float = 0.0
    entropy_coef: float = 0.0
    lr: float | None = None
    lr_schedule: str = "constant"
    warmup_steps: int = 0
    weight_decay: float = 0.0
    epochs: int = 1
    minibatches: int = 1
    micro_batch_size: int = 32
    max_grad_norm: float = 1.0
    lora_rank: int = 0
    lora_alpha: int = 16
    pool_size: int = 0
    pool_every: int = 10
    pool_prob: float = 0.5
    pool_initial: bool = False
    device: str | None = None
    dtype: str | None = None
    mixed_precision: bool = True
    eval_every: int = 10
    eval_episodes: int = 64
    eval_seed: int = 1_000_000_000
    eval_greedy: bool = False
    eval_record_episodes: int = 4
    eval_opponent: str = "random"
    save_every: int = 10
    keep_checkpoints: int = 2
    seed: int = 0
    tensorboard: bool = True
    progress: bool = True
    log_every: int = 1
    resume: bool = False

    __field_docs__: ClassVar[dict[str, str]] = {
        **COMMON_FIELD_DOCS,
        "env": "registered env or game id (a game trains by self-play on every seat)",
        "steps": "training steps (one collection + update each)",
        "groups": "tasks (seeds) per step",
        "group_size": "episodes per task: the GRPO group",
        "max_new_tokens": "most tokens generated per action",
        "temperature": "sampling temperature; the trained policy is the tempered one",
        "top_p": "nucleus sampling mass while collecting",
        "constrained": "decode only the env's legal actions when it lists them",
        "rollout": "who samples: hf (the learner), vllm (colocated) or openai:URL "
        "(a turngym serve --accept-weight-updates server); weights sync after each update",
        "rollout_options": "vllm.LLM or OpenAIPolicy keyword arguments for the rollout engine",
        "tis_cap": "truncated importance-sampling cap for the behaviour/learner log-prob "
        "mismatch (None: 2 with vllm/openai rollouts, off with hf; 0: off)",
        "data_parallel": "under torchrun: ddp (every process holds the model) or fsdp "
        "(weights, gradients and optimiser state sharded; needs rollout vllm or openai:URL)",
        "advantage": f"advantage estimator: {', '.join(ADVANTAGES)}",
        "scale": "grpo/gigpo normalisation: group, batch or none (Dr. GRPO)",
        "gamma": "GiGPO step-level discount",
        "gigpo_weight": "weight of GiGPO's step-level advantage",
        "rae_decay": "EMA decay of RAE's per (game, seat) baselines",
        "keep_fraction": "StarPO-S: keep this share of groups, highest return spread first",
        "clip_low": "ratio clip below: 1 - clip_low",
        "clip_high": "ratio clip above: 1 + clip_high (DAPO clip-higher)",
        "aggregation": (
            "loss aggregation: token_mean, seq_mean or dr_grpo (token sum / (sequences x "
            "max_new_tokens): Dr. GRPO's constant divisor, the generation budget)"
        ),
        "beta": "KL(policy || initial policy) weight (k3 estimator); 0 keeps no reference",
        "entropy_coef": "entropy bonus weight",
        "lr": "AdamW learning rate (None: 1e-3 for tiny, 1e-4 with LoRA, else 1e-6)",
        "lr_schedule": "constant, linear (to 0 at the last step) or cosine",
        "warmup_steps": "steps of linear warm-up from 0 to lr",
        "weight_decay": "AdamW weight decay",
        "epochs": "passes over each step's batch",
        "minibatches": "optimiser steps per pass",
        "micro_batch_size": "sequences per forward (gradients accumulate over them)",
        "max_grad_norm": "gradient clipping norm (0: off)",
        "pool_size": "self-play: past checkpoints kept as opponents (0: pure self-play)",
        "pool_every": "self-play: add the current weights to the pool every N steps",
        "pool_prob": "self-play: share of games against a pool opponent",
        "pool_initial": "self-play: the pool starts with the starting weights (e.g. an SFT model)",
        "mixed_precision": "bfloat16 autocast for the update on a GPU",
        "eval_every": "evaluate every N steps (0: only before and after)",
        "eval_greedy": "evaluate the greedy policy instead of the sampled one",
        "eval_opponent": "games: the opponent agent in evaluation (random, expert)",
        "save_every": "checkpoint every N steps (0: only at the end)",
        "seed": "seeds rollouts, sampling and minibatch order",
        "log_every": "print a summary line every N steps (0: never)",
    }

    def __post_init__(self) -> None:
        checks: list[tuple[str, bool, str]] = [
            ("advantage", self.advantage in ADVANTAGES, f"one of {', '.join(ADVANTAGES)}"),
            ("scale", self.scale in ("group", "batch", "none"), "group, batch or none"),
            (
                "aggregation",
                self.aggregation in ("token_mean", "seq_mean", "dr_grpo"),
                "token_mean, seq_mean or dr_grpo",
            ),
            ("temperature", is_number(self.temperature) and self.temperature > 0, "a number > 0"),
            ("top_p", is_number(self.top_p) and 0 < self.top_p <= 1, "in (0, 1]"),
            (
                "keep_fraction",
                is_number(self.keep_fraction) and 0 < self.keep_fraction <= 1,
                "in (0, 1]",
            ),
            ("pool_prob", is_number(self.pool_prob) and 0 <= self.pool_prob <= 1, "in [0, 1]"),
            (
                "pool_initial",
                self.pool_initial is False or (self.pool_initial is True and self.pool_size > 0),
                "a bool, True only with pool_size >= 1",
            ),
            ("beta", is_number(self.beta) and self.beta >= 0, "a number >= 0"),
            ("rollout", check_rollout(self.rollout), f"one of {', '.join(ROLLOUTS)}"),
            ("data_parallel", self.data_parallel in ("ddp", "fsdp"), "ddp or fsdp"),
            (
                "tis_cap",
                self.tis_cap is None or (is_number(self.tis_cap) and self.tis_cap >= 0),
                "None or a number >= 0",
            ),
            ("lr", self.lr is None or (is_number(self.lr) and self.lr > 0), "None or a number > 0"),
            (
                "lr_schedule",
                self.lr_schedule in ("constant", "linear", "cosine"),
                "constant, linear or cosine",
            ),
        ]
        for name in ("steps", "groups", "group_size", "max_new_tokens", "epochs"):
            checks.append((name, is_int(getattr(self, name), 1), "an int >= 1"))
        for name in ("minibatches", "micro_batch_size", "eval_episodes", "pool_every"):
            checks.append((name, is_int(getattr(self, name), 1), "an int >= 1"))
        for name in (
            "eval_every",
            "save_every",
            "lora_rank",
            "pool_size",
            "seed",
            "log_every",
            "warmup_steps",
            "eval_record_episodes",
        ):
            checks.append((name, is_int(getattr(self, name), 0), "an int >= 0"))
        checks.append(("keep_checkpoints", is_int(self.keep_checkpoints, 1), "an int >= 1"))
        checks.append(
            (
                "max_turns",
                self.max_turns is None or is_int(self.max_turns, 1),
                "None or an int >= 1",
            )
        )
        check_config(self, checks)
        if self.keep_fraction != 1 and self.advantage in ("rae", "per_agent_norm"):
            raise ValueError(
                f"keep_fraction={self.keep_fraction} (StarPO-S) ranks groups of a group "
                f"baseline; advantage={self.advantage!r} has per-seat baselines and no groups "
                "to rank: leave keep_fraction at 1"
            )
        if self.scale != "group" and self.advantage not in ("grpo", "gigpo"):
            raise ValueError(
                f"scale={self.scale!r} applies to advantage='grpo' or 'gigpo' only, "
                f"not {self.advantage!r}: leave scale at 'group'"
            )
        if self.rollout != "hf" and self.constrained:
            raise ValueError(
                "constrained=True (guided choice) decodes in the learner only; "
                f"pass constrained=False with rollout={self.rollout!r}"
            )

    @property
    def tis(self) -> float:
        """The truncated-IS cap in force (0: no correction)."""
        if self.tis_cap is not None:
            return float(self.tis_cap)
        return 0.0 if self.rollout == "hf" else 2.0

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return dataclasses.asdict(self)

"""``GRPOConfig``: every setting of a ``GRPOTrainer`` run, checked when it is built.

Each field is also a ``turngym train grpo`` flag, its help the string under it; the
fields every trainer shares are ``RunConfig``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from turngym.sdk.trainers.config import RunConfig, check_config, is_int, is_number
from turngym.sdk.trainers.engines import ROLLOUTS, check_rollout

__all__ = ["ADVANTAGES", "GRPOConfig"]

ADVANTAGES = ("grpo", "reinforce", "gigpo", "turn_level", "rae", "per_agent_norm")
"""Advantage estimators ``GRPOConfig.advantage`` accepts."""


@dataclass
class GRPOConfig(RunConfig):
    """Everything a GRPO run needs; every field is a ``turngym train grpo`` flag.

    The fields of every trainer (env, model, evaluation, checkpoints...) are
    ``RunConfig``'s; these are GRPO's own, and the defaults it changes.
    """

    trainer: ClassVar[str] = "grpo"

    env: str = "turngym/Bandit-v0"
    """registered env or game id (a game trains by self-play on every seat)"""
    output_dir: str = "runs/grpo"
    steps: int = 50
    """training steps (one collection + update each)"""
    groups: int = 8
    """tasks (seeds) per step"""
    group_size: int = 8
    """episodes per task: the GRPO group"""
    max_new_tokens: int = 32
    """most tokens generated per action"""
    temperature: float = 1.0
    """sampling temperature; the trained policy is the tempered one"""
    top_p: float = 1.0
    """nucleus sampling mass while collecting"""
    constrained: bool = True
    """decode only the env's legal actions when it lists them"""
    rollout: str = "hf"
    """who samples: hf (the learner), vllm (colocated) or openai:URL (a turngym serve
    --accept-weight-updates server); weights sync after each update"""
    rollout_options: dict[str, Any] = field(default_factory=dict)
    """vllm.LLM or OpenAIPolicy keyword arguments for the rollout engine"""
    tis_cap: float | None = None
    """truncated importance-sampling cap for the behaviour/learner log-prob mismatch (None: 2
    with vllm/openai rollouts, off with hf; 0: off)"""
    data_parallel: str = "ddp"
    """under torchrun: ddp (every process holds the model) or fsdp (weights, gradients and
    optimiser state sharded; needs rollout vllm or openai:URL)"""
    advantage: str = field(
        default="grpo", metadata={"help": f"advantage estimator: {', '.join(ADVANTAGES)}"}
    )
    scale: str = "group"
    """grpo/gigpo normalisation: group, batch or none (Dr. GRPO)"""
    gamma: float = 0.95
    """GiGPO step-level discount"""
    gigpo_weight: float = 1.0
    """weight of GiGPO's step-level advantage"""
    rae_decay: float = 0.95
    """EMA decay of RAE's per (game, seat) baselines"""
    keep_fraction: float = 1.0
    """StarPO-S: keep this share of groups, highest return spread first"""
    clip_low: float = 0.2
    """ratio clip below: 1 - clip_low"""
    clip_high: float = 0.28
    """ratio clip above: 1 + clip_high (DAPO clip-higher)"""
    aggregation: str = "token_mean"
    """loss aggregation: token_mean, seq_mean or dr_grpo (token sum / (sequences x
    max_new_tokens): Dr. GRPO's constant divisor, the generation budget)"""
    beta: float = 0.0
    """KL(policy || initial policy) weight (k3 estimator); 0 keeps no reference"""
    entropy_coef: float = 0.0
    """entropy bonus weight"""
    lr: float | None = None
    """AdamW learning rate (None: 1e-3 for tiny, 1e-4 with LoRA, else 1e-6)"""
    lr_schedule: str = "constant"
    """constant, linear (to 0 at the last step) or cosine"""
    weight_decay: float = 0.0
    """AdamW weight decay"""
    epochs: int = 1
    """passes over each step's batch"""
    minibatches: int = 1
    """optimiser steps per pass"""
    micro_batch_size: int = 32
    """sequences per forward (gradients accumulate over them)"""
    pool_size: int = 0
    """self-play: past checkpoints kept as opponents (0: pure self-play)"""
    pool_every: int = 10
    """self-play: add the current weights to the pool every N steps"""
    pool_prob: float = 0.5
    """self-play: share of games against a pool opponent"""
    pool_initial: bool = False
    """self-play: the pool starts with the starting weights (e.g. an SFT model)"""
    eval_greedy: bool = False
    eval_opponent: str = "random"
    """games: the opponent agent in evaluation (random, expert)"""
    seed: int = 0
    """seeds rollouts, sampling and minibatch order"""

    def __post_init__(self) -> None:
        super().__post_init__()
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
        for name in ("minibatches", "micro_batch_size", "pool_every"):
            checks.append((name, is_int(getattr(self, name), 1), "an int >= 1"))
        checks.append(("pool_size", is_int(self.pool_size, 0), "an int >= 0"))
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

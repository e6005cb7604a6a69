"""Trainers, and ``TRAINERS``: the one table the CLI, ``turngym view`` and the docs read.

Each trainer is a config (a ``RunConfig`` subclass, ``config.py``) and a class that
follows the ``Trainer`` protocol, whose ``train()`` is ``run_training(self)``
(``loop.py``). The plumbing around them is split by concern: ``checkpoints``,
``metrics`` (``metrics.jsonl``, curves), ``learner`` (the model, LoRA, the learning
rate), ``envs`` (the env and its wrapper specs) and ``run_files`` (what ``turngym view``
reads). Adding a trainer is its module and a row here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["TRAINERS", "TrainerEntry", "trainer_entry"]


@dataclass(frozen=True)
class TrainerEntry:
    """One trainer: its name, its classes (as import strings) and its one-line help."""

    name: str
    """``turngym train NAME``, and the ``trainer`` key of a run's ``config.json``"""
    config: str
    """``module:Class`` of its config dataclass (a ``RunConfig``)"""
    trainer: str
    """``module:Class`` of the trainer (a ``Trainer``, built as ``Trainer(config)``)"""
    help: str
    """one line for ``turngym train --help``"""
    example: str
    """a ``turngym train`` command line that runs it"""

    def config_class(self) -> type[Any]:
        """The config dataclass (imports its module)."""
        return _load(self.config)

    def trainer_class(self) -> type[Any]:
        """The trainer class (imports its module)."""
        return _load(self.trainer)


def _load(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


_ROWS = (
    TrainerEntry(
        name="grpo",
        config="turngym.sdk.trainers.grpo_config:GRPOConfig",
        trainer="turngym.sdk.trainers.grpo:GRPOTrainer",
        help="multi-turn GRPO (self-play with RAE on games)",
        example="turngym train grpo --env FrozenLake-v0 --model tiny --steps 40",
    ),
    TrainerEntry(
        name="sac-glam",
        config="turngym.sdk.trainers.sac_glam:SACGLAMConfig",
        trainer="turngym.sdk.trainers.sac_glam:SACGLAMTrainer",
        help="SAC-GLAM: soft actor-critic over LLM-scored legal actions, hindsight goals",
        example="turngym train sac-glam --env BabyAIText-v0 "
        '--env-kwargs \'{"mission": "goto"}\' --model tiny',
    ),
    TrainerEntry(
        name="archer",
        config="turngym.sdk.trainers.archer:ArCHerConfig",
        trainer="turngym.sdk.trainers.archer:ArCHerTrainer",
        help="ArCHer: utterance-level off-policy critic, token-level policy-gradient actor",
        example="turngym train archer --env FrozenLake-v0 --model tiny --critic-steps 20",
    ),
    TrainerEntry(
        name="sft",
        config="turngym.sdk.trainers.sft:SFTConfig",
        trainer="turngym.sdk.trainers.sft:SFTTrainer",
        help="supervised fine-tuning on demonstrations (the expert's, a model's or a file's)",
        example="turngym train sft --env FrozenLake-v0 --demos expert --episodes 8 "
        "--epochs 20; then turngym train grpo --model RUN/final ...",
    ),
)

TRAINERS: Mapping[str, TrainerEntry] = MappingProxyType({row.name: row for row in _ROWS})
"""Every trainer by name, in the order the CLI and the docs list them."""


def trainer_entry(name: str) -> TrainerEntry:
    """The row of trainer ``name``.

    Raises:
        KeyError: an unknown name (the message lists the known ones).

    """
    try:
        return TRAINERS[name]
    except KeyError:
        raise KeyError(f"unknown trainer {name!r}; known: {', '.join(TRAINERS)}") from None

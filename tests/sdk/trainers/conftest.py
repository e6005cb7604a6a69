"""Trainer fixtures: a tiny model with near-uniform initial logits, as RL from scratch needs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def rl_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The model ``--model tiny`` builds (Qwen2, hidden 64, 2 layers, logit std 0.3)."""
    from turngym.sdk.models import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("rl-tiny"), seed=0, logit_std=0.3)

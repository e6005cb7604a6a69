"""Shared SDK fixtures: one tiny Qwen2-style model, built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the SDK tests need torch: pip install -e '.[llm]'")
pytest.importorskip("transformers", reason="the SDK tests need transformers")

import torch

# The suite runs one pytest worker per core (-n 2); a second intra-op thread per worker
# only fights the other worker, and tiny models gain nothing from it.
torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Qwen2 model + ChatML tokenizer trained on env text, saved to a temp dir."""
    from turngym.sdk.models import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny-qwen2"), seed=0)

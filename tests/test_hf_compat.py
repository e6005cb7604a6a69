"""transformers as turngym calls it: no deprecated cache argument, no bars unless asked."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

from turngym.hf_compat import cache_kwargs, output_cache, quiet  # noqa: E402
from turngym.sdk.backends.hf import HFPolicy  # noqa: E402
from turngym.sdk.models import build_tiny_model  # noqa: E402
from turngym.sdk.policy import SamplingParams  # noqa: E402

BARS = ("Loading weights", "Writing model shards")


def test_library_calls_show_no_hf_progress_bars(tmp_path, capfd, monkeypatch):
    monkeypatch.delenv("TURNGYM_HF_PROGRESS", raising=False)
    HFPolicy(build_tiny_model(tmp_path / "tiny", seed=0))
    err = capfd.readouterr().err
    assert not any(bar in err for bar in BARS), err


def test_the_bars_come_back_when_asked_for_and_after_quiet(tmp_path, capfd, monkeypatch):
    from transformers.utils import logging as hf_logging

    monkeypatch.setenv("TURNGYM_HF_PROGRESS", "1")
    HFPolicy(build_tiny_model(tmp_path / "tiny", seed=0))
    assert any(bar in capfd.readouterr().err for bar in BARS)
    monkeypatch.delenv("TURNGYM_HF_PROGRESS")
    with quiet(), quiet():
        assert not hf_logging.is_progress_bar_enabled()
    assert hf_logging.is_progress_bar_enabled()  # the user's setting, as it was


def test_generation_passes_the_cache_by_its_current_name(tmp_path):
    policy = HFPolicy(build_tiny_model(tmp_path / "tiny", seed=0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the old name warns (FutureWarning)
        gens = policy.generate([[5, 6, 7]], SamplingParams(temperature=0, max_new_tokens=4))
    assert len(gens[0].token_ids) == 4
    out = policy.model(torch.tensor([[5, 6, 7]]), use_cache=True)
    assert output_cache(out) is not None and len(cache_kwargs(None)) == 1

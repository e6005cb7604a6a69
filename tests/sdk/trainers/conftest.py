"""Trainer fixtures: a tiny model with near-uniform initial logits, as RL from scratch needs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def rl_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The model ``--model tiny`` builds (Qwen2, hidden 64, 2 layers, logit std 0.3)."""
    from turngym.sdk.models import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("rl-tiny"), seed=0, logit_std=0.3)


@pytest.fixture
def measured_training():
    """Train a trainer and return (success before, success after, CPU seconds), printed.

    Learning tests bound their budget in steps; the CPU time is printed for the record
    and never asserted (it depends on the machine and its load).
    """
    import time

    def run(trainer, task: str) -> tuple[float, float, float]:
        cpu = time.process_time()
        summary = trainer.train()
        cpu = time.process_time() - cpu
        before, after = summary["eval_before"]["success"], summary["eval_after"]["success"]
        print(
            f"{task} held-out success {before:.2f} -> {after:.2f} in {cpu:.0f} s of CPU "
            f"({summary['seconds']:.0f} s wall)"
        )
        return before, after, cpu

    return run


@pytest.fixture
def recorded_evaluations():
    """Read a run's ``episodes/eval-step-*.jsonl``: ``{step: [each episode's meta]}``.

    Each file must load with ``load_episodes`` and name its step in its file name and in
    every episode's ``meta``.
    """
    from turngym.sdk.episode_files import load_episodes

    def read(run_dir: Path) -> dict[int, list[dict]]:
        found = {}
        for path in sorted((run_dir / "episodes").glob("eval-step-*.jsonl")):
            step = int(path.stem.removeprefix("eval-step-"))
            metas = [ep.meta for ep in load_episodes(path)]
            assert all(m["step"] == step for m in metas), (path, metas)
            found[step] = metas
        return found

    return read

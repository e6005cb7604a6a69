"""The trainers on a CUDA GPU: updates run there (bf16 autocast and bf16 weights), stay
finite and change the weights; the shared-prefix forward matches row by row on the GPU.

Skipped where no CUDA GPU is found (CI has none).
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from turngym.sdk.trainers.archer import ArCHerConfig, ArCHerTrainer  # noqa: E402
from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer  # noqa: E402
from turngym.sdk.trainers.sac_glam import SACGLAMConfig, SACGLAMTrainer  # noqa: E402

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]

QUIET = dict(eval_every=0, save_every=0, progress=False, tensorboard=False, log_every=0)


def _weights(model) -> torch.Tensor:
    return torch.cat([p.detach().float().flatten().cpu() for p in model.parameters()])


@pytest.mark.parametrize("dtype", [None, "bfloat16"])
def test_grpo_updates_on_the_gpu(rl_model_dir, tmp_path, dtype):
    trainer = GRPOTrainer(
        GRPOConfig(
            env="turngym/Bandit-v0",  # rewards differ within a group from the first step
            model=str(rl_model_dir),
            output_dir=str(tmp_path / "run"),
            steps=2,
            groups=4,
            group_size=4,
            lr=1e-3,
            device="cuda",
            dtype=dtype,
            eval_episodes=8,
            **QUIET,
        )
    )
    assert trainer.device.type == "cuda"
    before = _weights(trainer.model)
    rows = [trainer.train_step(step) for step in range(2)]
    assert all(math.isfinite(row["loss"]) for row in rows)
    assert not torch.equal(before, _weights(trainer.model))
    trainer.close()


def test_sac_glam_updates_on_the_gpu(rl_model_dir, tmp_path):
    trainer = SACGLAMTrainer(
        SACGLAMConfig(
            env="turngym/FrozenLake-v0",
            env_kwargs={"goal": "random"},
            model=str(rl_model_dir),
            output_dir=str(tmp_path / "run"),
            steps=3,
            episodes_per_step=4,
            max_turns=6,
            warmup_steps=1,
            batch_size=16,
            device="cuda",
            eval_episodes=4,
            **QUIET,
        )
    )
    before = _weights(trainer.model)
    summary = trainer.train()
    assert not torch.equal(before, _weights(trainer.model))
    assert summary
    trainer.close()


def test_archer_updates_on_the_gpu(rl_model_dir, tmp_path):
    trainer = ArCHerTrainer(
        ArCHerConfig(
            env="turngym/FrozenLake-v0",
            model=str(rl_model_dir),
            output_dir=str(tmp_path / "run"),
            steps=3,
            episodes_per_step=4,
            max_turns=6,
            batch_size=16,
            warmup_steps=1,
            device="cuda",
            eval_episodes=4,
            **QUIET,
        )
    )
    before = _weights(trainer.model)
    summary = trainer.train()
    assert not torch.equal(before, _weights(trainer.model))
    assert summary
    trainer.close()

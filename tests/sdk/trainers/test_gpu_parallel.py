"""GRPO under ``torchrun --nproc_per_node 1`` on a CUDA GPU: DDP and FSDP over NCCL.

One process under torchrun joins a process group (``DataParallel.start``), so one GPU
runs the data-parallel code paths with NCCL: DDP with LoRA, bf16 autocast, checkpoints
and resume; FSDP with a ``turngym serve`` rollout server on the same GPU. The CPU tests
(tests/sdk/trainers/test_ddp.py) check the same paths with gloo and two processes.

Skipped where no CUDA GPU is found (CI has none).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tests.sdk.trainers.launch import torchrun  # noqa: E402

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]

SCRIPT = """
import json, sys

from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer

config = GRPOConfig(**eval(sys.argv[1]))
env_fn = None
if config.env == "Vowels":
    from tests.sdk.trainers.test_engines import Vowels as env_fn
trainer = GRPOTrainer(config, env_fn=env_fn)
dp = trainer.dp
sharded = all(type(p).__name__ == "DTensor" for p in trainer.model.parameters())
summary = trainer.train()
print("RESULT " + json.dumps({
    "world": dp.world, "backend": dp.backend, "device": str(trainer.device),
    "sharded": sharded, "final": summary["final"], "steps": summary["steps"],
}))
"""


def _torchrun(tmp_path: Path, config: dict) -> dict:
    """Train ``config`` in one process under torchrun; what it printed."""
    out = torchrun(SCRIPT, [repr(config)], nproc=1, cwd=tmp_path, timeout=600)
    line = [ln for ln in out.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT ") :])


def _config(model_dir: Path, out: Path, **overrides: object) -> dict:
    base = dict(
        env="turngym/Bandit-v0",
        model=str(model_dir),
        output_dir=str(out),
        steps=2,
        groups=4,
        group_size=4,
        lr=1e-3,
        device="cuda",
        eval_every=0,
        eval_episodes=8,
        save_every=0,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    return {**base, **overrides}


def _losses(run: Path) -> list[tuple[int, float]]:
    rows = [json.loads(line) for line in (run / "metrics.jsonl").open()]
    return [(r["step"], r["loss"]) for r in rows if "loss" in r]


def test_ddp_over_nccl_with_lora_autocast_checkpoints_and_resume(rl_model_dir, tmp_path):
    run = tmp_path / "run"
    config = _config(rl_model_dir, run, lora_rank=4, mixed_precision=True, save_every=2)
    first = _torchrun(tmp_path, config)
    assert (first["world"], first["backend"], first["device"]) == (1, "nccl", "cuda:0")
    assert (run / "checkpoints/step-0000002").is_dir()
    again = _torchrun(tmp_path, {**config, "steps": 4, "resume": True})
    assert again["steps"] == 4
    losses = _losses(run)
    assert [step for step, _ in losses] == [1, 2, 3, 4]
    assert all(loss == loss for _, loss in losses)  # finite, not NaN
    from transformers import AutoModelForCausalLM

    final = AutoModelForCausalLM.from_pretrained(again["final"])
    assert all(torch.isfinite(p).all() for p in final.parameters())


def test_fsdp_over_nccl_syncs_a_server_on_the_same_gpu(rl_model_dir, tmp_path, monkeypatch):
    from tests.serving import start_server
    from turngym.sdk.backends.hf import HFPolicy
    from turngym.sdk.backends.openai import OpenAIPolicy

    served = start_server(rl_model_dir, "--accept-weight-updates", api_key="gpu-fsdp-key")
    monkeypatch.setenv("TURNGYM_API_KEY", "gpu-fsdp-key")
    try:
        config = _config(
            rl_model_dir,
            tmp_path / "run",
            env="Vowels",
            constrained=False,
            max_new_tokens=6,
            tis_cap=2.0,
            rollout=f"openai:{served.url}",
            data_parallel="fsdp",
        )
        result = _torchrun(tmp_path, config)
        assert (result["world"], result["backend"], result["sharded"]) == (1, "nccl", True)
        prompt, candidates = [5, 6, 7, 8], [[9, 10], [11]]
        server = OpenAIPolicy(served.url, tokenizer=str(rl_model_dir))
        trained = HFPolicy(result["final"], device="cuda", dtype="float32")
        assert server.score(prompt, candidates) == pytest.approx(
            trained.score(prompt, candidates), abs=1e-3
        )
        server.close()
    finally:
        served.stop()

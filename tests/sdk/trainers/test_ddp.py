"""GRPO under `torchrun` with 2 CPU processes (gloo): the processes split the groups, share
the episodes, train one model with DDP, and the update equals a single process's update
on the same episodes."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tests.sdk.trainers.launch import free_port, torchrun  # noqa: E402
from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer  # noqa: E402

SCRIPT = """
import pickle, sys
from pathlib import Path

from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer

out, config = Path(sys.argv[1]), GRPOConfig(**eval(sys.argv[2]))
env_fn = None
if config.env == "Vowels":  # free text with rewards that vary (tests/sdk/trainers)
    from tests.sdk.trainers.test_engines import Vowels as env_fn
trainer = GRPOTrainer(config, env_fn=env_fn)
dp = trainer.dp
assert dp is not None and dp.world == 2 and dp.backend == "gloo"
mine, shared = [], []
gather = dp.gather


def spy(items):
    mine.append(items)
    shared.append(gather(items))
    return shared[-1]


dp.gather = spy
rank = dp.rank
sharded = all(type(p).__name__ == "DTensor" for p in trainer.model.parameters())
summary = trainer.train()
weights = {}
if not trainer.fsdp:  # FSDP's shards are compared through the saved model instead
    weights = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
record = {"mine": mine, "shared": shared, "weights": weights, "summary": summary}
with open(out / f"rank{rank}.pkl", "wb") as f:
    pickle.dump({**record, "sharded": sharded}, f)
"""


def _torchrun(tmp_path: Path, config: dict) -> list[dict]:
    """Train ``config`` in 2 processes under torchrun; what each process recorded."""
    torchrun(SCRIPT, [str(tmp_path), repr(config)], nproc=2, cwd=tmp_path, timeout=300)
    return [pickle.loads((tmp_path / f"rank{r}.pkl").read_bytes()) for r in (0, 1)]


def _config(model_dir: Path, out: Path) -> dict:
    return dict(
        env="turngym/Bandit-v0",
        model=str(model_dir),
        output_dir=str(out),
        steps=2,
        groups=4,
        group_size=4,
        minibatches=2,
        micro_batch_size=3,  # several micro-batches per process: no_sync, then the sum
        lr=1e-3,
        eval_every=0,
        eval_episodes=8,
        save_every=0,
        progress=False,
        tensorboard=False,
        log_every=0,
    )


@pytest.mark.slow
def test_two_cpu_processes_train_like_one(rl_model_dir, tmp_path):
    config = _config(rl_model_dir, tmp_path / "run")
    ranks = _torchrun(tmp_path, config)
    assert not ranks[0]["sharded"]

    # Each process played half the groups (two of four, four episodes each) with the
    # seeds a single process gives those groups; both then held all of them.
    for step in range(2):
        first = step * config["groups"]
        for rank, got in enumerate(ranks):
            assert sorted({ep.group for ep in got["mine"][step]}) == [2 * rank, 2 * rank + 1]
        shared = ranks[0]["shared"][step]
        assert [ep.group for ep in shared] == [g for g in range(4) for _ in range(4)]
        assert [ep.seed for ep in shared] == [first + ep.group for ep in shared]
        assert [ep.turns[0].action_ids for ep in ranks[1]["shared"][step]] == [
            ep.turns[0].action_ids for ep in shared
        ]
    # One model: the processes' weights are identical.
    for name, value in ranks[0]["weights"].items():
        assert torch.equal(value, ranks[1]["weights"][name]), name
    # Only process 0 wrote the run's files.
    assert ranks[0]["summary"]["final"] and ranks[1]["summary"]["final"] is None
    logged = [json.loads(line) for line in (tmp_path / "run/metrics.jsonl").open()]
    losses = [row["loss"] for row in logged if "loss" in row]
    norms = [row["grad_norm"] for row in logged if "loss" in row]

    # A single process updating on the same episodes: the same losses and weights.
    single = GRPOTrainer(GRPOConfig(**_config(rl_model_dir, tmp_path / "single")))
    single.collect = lambda step: ranks[0]["shared"][step]  # type: ignore[method-assign]
    rows = [single.train_step(step) for step in range(2)]
    single.close()
    assert all(row["sequences"] > 0 for row in rows)
    assert [row["loss"] for row in rows] == pytest.approx(losses, abs=1e-5)
    # The gradient, not just its direction (Adam would hide a wrong scale in the weights).
    assert [row["grad_norm"] for row in rows] == pytest.approx(norms, rel=1e-4)
    from transformers import AutoModelForCausalLM

    start = AutoModelForCausalLM.from_pretrained(rl_model_dir).state_dict()
    moved = 0.0
    for name, value in single.model.state_dict().items():
        assert torch.allclose(value, ranks[0]["weights"][name], atol=1e-5), name
        moved = max(moved, float((value - start[name]).abs().max()))
    assert moved > 1e-4  # the weights did move: the check above is not vacuous


def test_one_process_under_torchrun_joins_a_group_and_one_outside_does_not(monkeypatch):
    # `torchrun --nproc_per_node 1` runs the data-parallel code (NCCL on one GPU);
    # a plain single process keeps the plain path.
    import torch.distributed as dist

    from turngym.sdk.trainers.parallel import DataParallel

    for key in ("WORLD_SIZE", "TORCHELASTIC_RUN_ID"):
        monkeypatch.delenv(key, raising=False)
    assert DataParallel.start() is None
    env = {"WORLD_SIZE": "1", "RANK": "0", "LOCAL_RANK": "0", "TORCHELASTIC_RUN_ID": "t"}
    env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    dp = DataParallel.start()
    try:
        assert dp is not None and (dp.world, dp.rank, dp.backend) == (1, 0, "gloo")
        assert dp.gather([1, 2]) == [1, 2] and dp.sum({"x": 2.0}) == {"x": 2.0}
    finally:
        dist.destroy_process_group()


def test_outside_torchrun_a_world_size_alone_is_a_clear_error(monkeypatch, rl_model_dir, tmp_path):
    monkeypatch.setenv("WORLD_SIZE", "2")
    for key in ("RANK", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(key, raising=False)
    with pytest.raises(
        ValueError, match="RANK, MASTER_ADDR, MASTER_PORT unset: start with torchrun"
    ):
        GRPOTrainer(GRPOConfig(**_config(rl_model_dir, tmp_path)))


def test_the_other_trainers_refuse_to_run_under_torchrun(monkeypatch):
    from turngym.sdk.trainers.archer import ArCHerConfig, ArCHerTrainer
    from turngym.sdk.trainers.sac_glam import SACGLAMConfig, SACGLAMTrainer

    monkeypatch.setenv("WORLD_SIZE", "2")
    for trainer, config in [(SACGLAMTrainer, SACGLAMConfig()), (ArCHerTrainer, ArCHerConfig())]:
        with pytest.raises(ValueError, match="only GRPO trains data-parallel"):
            trainer(config)


@pytest.mark.slow
def test_fsdp_shards_train_like_one_process_and_sync_the_server(
    rl_model_dir, tmp_path, monkeypatch
):
    from transformers import AutoModelForCausalLM

    from tests.sdk.trainers.test_engines import Vowels
    from tests.serving import start_server
    from turngym.sdk.backends.hf import HFPolicy
    from turngym.sdk.backends.openai import OpenAIPolicy

    served = start_server(rl_model_dir, "--accept-weight-updates", api_key="ddp-test-key")
    monkeypatch.setenv("TURNGYM_API_KEY", "ddp-test-key")  # torchrun's ranks inherit it
    try:
        config = {
            **_config(rl_model_dir, tmp_path / "run"),
            "env": "Vowels",
            "constrained": False,
            "max_new_tokens": 6,
            "lr": 3e-3,
            "tis_cap": 2.0,
            "rollout": f"openai:{served.url}",
            "data_parallel": "fsdp",
        }
        ranks = _torchrun(tmp_path, config)
        assert ranks[0]["sharded"] and ranks[1]["sharded"]  # every weight was a shard
        final = tmp_path / "run/final"
        assert ranks[0]["summary"]["final"] == str(final)
        assert ranks[1]["summary"]["final"] is None
        logged = [json.loads(line) for line in (tmp_path / "run/metrics.jsonl").open()]
        rows = [row for row in logged if "loss" in row]
        assert all(row["sequences"] > 0 for row in rows)
        # The server got the gathered weights after the last update.
        prompt, candidates = [5, 6, 7, 8], [[9, 10], [11]]
        server = OpenAIPolicy(served.url, tokenizer=str(rl_model_dir))
        assert server.score(prompt, candidates) == pytest.approx(
            HFPolicy(final).score(prompt, candidates), abs=1e-4
        )
        server.close()
    finally:
        served.stop()

    # A single process updating on the same episodes: the same losses, gradients, weights.
    single_config = {**config, "rollout": "hf", "output_dir": str(tmp_path / "single")}
    single = GRPOTrainer(GRPOConfig(**single_config), env_fn=Vowels)
    single.collect = lambda step: ranks[0]["shared"][step]  # type: ignore[method-assign]
    replayed = [single.train_step(step) for step in range(2)]
    single.close()
    assert [r["loss"] for r in replayed] == pytest.approx([r["loss"] for r in rows], abs=1e-5)
    assert [r["grad_norm"] for r in replayed] == pytest.approx(
        [r["grad_norm"] for r in rows], rel=1e-4
    )
    saved = AutoModelForCausalLM.from_pretrained(final).state_dict()
    for name, value in single.model.state_dict().items():
        # A key's bias shifts every score of a query by the same amount, which softmax
        # ignores: its gradient is rounding noise, of the size of Adam's eps, so Adam's
        # step on it depends on the order of the sums (seen: 1.4e-5 apart on AVX-512).
        # It is only held to Adam's bound of lr per step.
        noise = name.endswith("k_proj.bias")
        bound = config["lr"] * 2 if noise else 1e-5
        assert torch.allclose(value, saved[name], atol=bound), name


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"rollout": "hf"}, "does not support rollout='hf'"),
        ({"lora_rank": 4}, "does not support LoRA"),
        ({"beta": 0.1}, "does not support a KL reference"),
        ({"pool_size": 2}, "does not support an opponent pool"),
        ({"resume": True}, "does not support resume"),
    ],
)
def test_what_fsdp_does_not_do_yet_is_a_clear_error(overrides, message):
    from turngym.sdk.trainers.grpo import _check_fsdp

    base = {"rollout": "openai:http://127.0.0.1:1/v1", "constrained": False}
    with pytest.raises(ValueError, match=message):
        _check_fsdp(GRPOConfig(**{**base, "data_parallel": "fsdp", **overrides}))
    with pytest.raises(ValueError, match="data_parallel must be ddp or fsdp"):
        GRPOConfig(data_parallel="zero")
